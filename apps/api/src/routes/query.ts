import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isJunctionError, JunctionError, type Value } from '@junction/connectors';
import type { ExplainResult, QueryStats } from '@junction/query-core';
import { logLevelOf, notFound, toErrorBody } from '../lib/errors.js';
import { errors, Limit } from '../lib/schemas.js';
import { coalesce } from '../lib/coalesce.js';
import { encodeJsonReply } from '../lib/json-reply.js';
import {
  EXPORT_FORMATS,
  exportEncoder,
  ndjsonEncoder,
  type ExportFormat,
  type ExportOptions,
  type ResultEncoder,
} from '../lib/result-encoders.js';
import { jsonColumns } from '../lib/values.js';
import type { Principal } from '../plugins/auth.js';

/** Where a query runs: Junction itself, the Trino backend, or whichever the planner's estimate favours. */
const EngineChoice = Type.Union([Type.Literal('local'), Type.Literal('trino'), Type.Literal('auto')], {
  description:
    "local: Junction and its sources; trino: the configured Trino backend (400 trino_not_configured without one); auto: Trino when the rows Junction would fetch locally are estimated above its threshold. Default: the statement's /*+ engine(NAME) */ hint, else the server's default",
});

/** Parameter values as JSON carries them; strings stay strings and the engine casts them as PostgreSQL would. */
const Param = Type.Union([Type.String({ maxLength: 1_000_000 }), Type.Number(), Type.Boolean(), Type.Null()]);
export const QueryBody = Type.Object(
  {
    sql: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    params: Type.Optional(Type.Array(Param, { maxItems: 10_000 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 3600_000 })),
    maxRows: Type.Optional(Type.Integer({ minimum: 1 })),
    queryId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'chosen by the client so it can cancel before the reply arrives',
      }),
    ),
    engine: Type.Optional(EngineChoice),
  },
  { additionalProperties: false },
);
const Column = Type.Object({ name: Type.String(), type: Type.String(), nullable: Type.Boolean() });
const Stats = Type.Object({
  queryId: Type.String(),
  rows: Type.Integer(),
  elapsedMs: Type.Number(),
  peakMemoryBytes: Type.Number(),
  spilledBytes: Type.Number({ description: 'bytes joins, aggregates and sorts wrote to spill files' }),
  sourceStatements: Type.Array(
    Type.Object({
      source: Type.String(),
      sql: Type.String(),
      rows: Type.Integer(),
      timeMs: Type.Number(),
      startMs: Type.Optional(Type.Number({ description: 'ms since the query started' })),
      endMs: Type.Optional(Type.Number()),
      stoppedEarly: Type.Optional(
        Type.Boolean({ description: 'closed before its last row (a limit was met, or the query stopped)' }),
      ),
    }),
  ),
  cache: Type.Union([Type.Literal('hit'), Type.Literal('miss'), Type.Literal('off')], {
    description:
      "hit: the rows came from the result cache; miss: the statement asked for the cache and ran; off: it did not ask (hint /*+ cache(ttl=SECONDS) */ or a view's)",
  }),
  cacheAgeSeconds: Type.Optional(Type.Number({ description: 'on a hit: how old the stored result is' })),
  engine: Type.String({
    description: "where the query ran: 'local', or 'trino' when statements went to the Trino backend",
  }),
  engineReason: Type.Optional(
    Type.String({ description: "why that engine: asked for, auto's estimate, or what kept it local" }),
  ),
});
const QueryReply = Type.Object(
  { queryId: Type.String(), columns: Type.Array(Column), rows: Type.Array(Type.Array(Type.Unknown())), stats: Stats },
  {
    description:
      'With Accept: application/x-ndjson the same content streams as lines: {"columns":…}, one JSON array per row, then {"stats":…} (or {"error":…}).',
  },
);
const ExplainBody = Type.Object(
  {
    sql: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    params: Type.Optional(Type.Array(Param, { maxItems: 10_000 })),
    analyze: Type.Optional(Type.Boolean()),
    engine: Type.Optional(EngineChoice),
    queryId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'analyze: chosen by the client so it can cancel (DELETE /queries/:id) before the reply arrives',
      }),
    ),
  },
  { additionalProperties: false },
);
const Running = Type.Object({
  id: Type.String(),
  sql: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
  user: Type.String(),
  replica: Type.String({ description: 'the server running it (several share one PostgreSQL metadata database)' }),
});

/** Who asks about running queries: the same rule on every server (your own; all with the admin permission). */
interface Asker {
  readonly userId: string;
  readonly admin: boolean;
  /** cancel: named in the query's error */
  readonly username?: string;
  /** cancel: the query's id */
  readonly id?: string;
}
const askerOf = (p: Principal): Asker => ({
  userId: p.userId,
  admin: p.permissions.has('admin'),
  username: p.username,
});

/** The running queries of this server the asker may see. */
function runningFor(app: FastifyInstance, a: Asker): Omit<Static<typeof Running>, 'replica'>[] {
  return [...app.junction.running.values()]
    .filter((q) => a.admin || q.userId === a.userId)
    .map((q) => ({ id: q.id, sql: q.sql, startedAt: q.startedAt.toISOString(), user: q.userId }));
}

/** Cancels the query when it runs on this server and the asker may cancel it; whether it did. */
function cancelFor(app: FastifyInstance, a: Asker): boolean {
  const q = a.id === undefined ? undefined : app.junction.running.get(a.id);
  if (!q || (q.userId !== a.userId && !a.admin)) return false;
  q.cancel(`cancelled by ${a.username ?? 'another user'}`);
  return true;
}

/** The servers that did not answer, in a header (the listing stays an array). */
const UNANSWERED_HEADER = 'x-junction-unanswered-replicas';
const History = Type.Object({
  id: Type.String(),
  queryId: Type.String(),
  sql: Type.String(),
  params: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
  status: Type.String(),
  rows: Type.Union([Type.Integer(), Type.Null()]),
  elapsedMs: Type.Union([Type.Integer(), Type.Null()]),
  errorCode: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

function statsOut(id: string, s: QueryStats): Static<typeof Stats> {
  return {
    queryId: id,
    rows: s.rows,
    elapsedMs: s.elapsedMs,
    peakMemoryBytes: s.peakMemoryBytes,
    spilledBytes: s.spilledBytes,
    sourceStatements: s.sourceStatements.map((x) => ({ ...x })),
    cache: s.cache ?? 'off',
    ...(s.cache === 'hit' && s.cacheAgeMs !== undefined ? { cacheAgeSeconds: Math.round(s.cacheAgeMs) / 1000 } : {}),
    engine: s.engine,
    ...(s.engineReason !== undefined ? { engineReason: s.engineReason } : {}),
  };
}

/** POST /query/export: the query, and the file format of its whole result. */
export const ExportBody = Type.Object(
  {
    ...QueryBody.properties,
    format: Type.Union(
      EXPORT_FORMATS.map((f) => Type.Literal(f)),
      { description: 'csv (RFC 4180) or json (an array of row objects)' },
    ),
    formulaSafe: Type.Optional(
      Type.Boolean({
        description:
          "csv: text cells starting with = + - @ tab or CR get a leading ' so spreadsheets do not run them as formulas (default true); false writes them as they are",
      }),
    ),
  },
  { additionalProperties: false },
);
export const ExportReply = {
  200: Type.String({
    description:
      'The whole result, streamed (no row or size cap). A failure after the first byte cuts the download off.',
  }),
};

export interface RunInput {
  sql: string;
  params?: (string | number | boolean | null)[];
  timeoutMs?: number;
  maxRows?: number;
  queryId?: string;
  engine?: 'local' | 'trino' | 'auto';
}

/**
 * Runs one query for a caller and answers as JSON or NDJSON. A client that goes away before the
 * last row aborts the query, which cancels its statements at the sources.
 */
/**
 * How long a streamed reply's chunk waits for the next one to go out with it: a short query's
 * head line, rows and stats then leave in one write; a slow one's first bytes are late by this.
 */
const COALESCE_WAIT_MS = 10;

export async function runQuery(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  input: RunInput,
  exportAs?: ExportFormat,
  exportOptions?: ExportOptions,
): Promise<unknown> {
  const p = request.principal as Principal;
  const encoder = exportAs
    ? exportEncoder(exportAs, exportOptions)
    : (request.headers.accept ?? '').includes('application/x-ndjson')
      ? ndjsonEncoder()
      : undefined;
  const ndjson = encoder !== undefined;
  const abort = new AbortController();
  let finished = false;
  const onClose = () => {
    if (!finished)
      abort.abort(new JunctionError('client_disconnected', 'cancelled', 'The client closed the connection.'));
  };
  // The request's own 'close' fires as soon as its body has been read; the response's 'close'
  // before it finished writing is what a client going away looks like.
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) onClose();
  });

  const queryId = input.queryId ?? randomUUID();
  const started = Date.now();
  const record = async (status: string, rows: number | null, errorCode: string | null) => {
    // batched off the request path (plugins/records.ts): the reply does not wait for the metadata database
    await app.records.history({
      id: randomUUID(),
      userId: p.userId,
      queryId,
      sql: input.sql,
      params: input.params ? JSON.stringify(input.params) : null,
      status,
      rows,
      elapsedMs: Date.now() - started,
      errorCode,
    });
  };

  const maxRows = ndjson
    ? input.maxRows
    : Math.min(input.maxRows ?? app.junction.limits.maxRowsJson, app.junction.limits.maxRowsJson);
  let run: Awaited<ReturnType<typeof app.junction.startQuery>>;
  try {
    run = await app.junction.startQuery(p, input.sql, {
      params: input.params as Value[] | undefined,
      timeoutMs: input.timeoutMs,
      maxRows,
      queryId,
      signal: abort.signal,
      ...(input.engine ? { engine: input.engine } : {}),
    });
  } catch (e) {
    finished = true;
    await record(statusOf(e), null, isJunctionError(e) ? e.code : 'internal');
    throw e;
  }
  const abortListener = () => run.result.cancel('client disconnected');
  abort.signal.addEventListener('abort', abortListener, { once: true });
  reply.header('x-junction-query-id', run.id);

  if (!ndjson) {
    let handedOff = false;
    try {
      let stats: Static<typeof Stats> | undefined;
      const reply_ = await encodeJsonReply({
        head: `{"queryId":${JSON.stringify(run.id)},"columns":${JSON.stringify(jsonColumns(run.result.columns))},"rows":[`,
        rows: run.result.rows,
        tail: () => {
          stats = statsOut(run.id, run.result.stats());
          return `],"stats":${JSON.stringify(stats)}}`;
        },
        maxBytes: app.junction.limits.maxJsonBytes,
      });
      finished = true;
      await record('ok', reply_.rows, null);
      reply.type('application/json; charset=utf-8');
      reply.header('content-length', reply_.bytes);
      // the admission slot is held until the body is written: the encoded reply is this
      // query's memory, and releasing first would let more than maxConcurrent bodies pile up
      const release = run.release;
      reply.raw.once('finish', release);
      reply.raw.once('close', release);
      handedOff = true;
      return reply.send(reply_.body());
    } catch (e) {
      finished = true;
      await record(statusOf(e), null, isJunctionError(e) ? e.code : 'internal');
      throw e;
    } finally {
      if (!handedOff) run.release();
    }
  }

  const result = run.result;
  const enc = encoder as ResultEncoder;
  async function* lines(): AsyncGenerator<string> {
    let rows = 0;
    let ok = false;
    try {
      yield enc.head(run.id, result.columns);
      for await (const batch of result.rows) {
        rows += batch.length;
        yield enc.rows(batch);
      }
      ok = true;
      finished = true;
      await record('ok', rows, null);
      const tail = enc.tail(statsOut(run.id, result.stats()));
      if (tail !== '') yield tail;
    } catch (e) {
      finished = true;
      const { body } = toErrorBody(e);
      await record(statusOf(e), rows, body.code);
      const level = logLevelOf(e);
      if (level === 'error') request.log.error({ err: e }, 'query failed mid-stream');
      else request.log[level]({ code: body.code, kind: body.kind }, 'query stopped mid-stream');
      const last = enc.error(body);
      if (last === undefined) throw e;
      yield last;
    } finally {
      if (!ok && !finished) {
        // the consumer stopped early (client gone): stop the sources too
        result.cancel('client disconnected');
        await record('cancelled', rows, 'client_disconnected');
      }
      run.release();
    }
  }
  reply.type(enc.contentType);
  if (exportAs) reply.header('content-disposition', `attachment; filename="junction-${run.id}.${exportAs}"`);
  return reply.send(Readable.from(coalesce(lines(), { waitMs: COALESCE_WAIT_MS }), { objectMode: false }));
}

export function statusOf(e: unknown): string {
  return isJunctionError(e) && (e.kind === 'cancelled' || e.kind === 'timeout') ? e.kind : 'error';
}

/** One row of the caller's history for a statement run other than through runQuery. */
export async function recordHistory(
  app: FastifyInstance,
  p: Principal,
  entry: { queryId: string; sql: string; params?: unknown[]; started: number; rows?: number | null; error?: unknown },
): Promise<void> {
  const failed = entry.error !== undefined;
  await app.records.history({
    id: randomUUID(),
    userId: p.userId,
    queryId: entry.queryId,
    sql: entry.sql,
    params: entry.params?.length ? JSON.stringify(entry.params) : null,
    status: failed ? statusOf(entry.error) : 'ok',
    rows: entry.rows ?? null,
    elapsedMs: Date.now() - entry.started,
    errorCode: failed ? (isJunctionError(entry.error) ? entry.error.code : 'internal') : null,
  });
}

/** An abort signal that fires when the client goes away before its reply is written. */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished)
      abort.abort(new JunctionError('client_disconnected', 'cancelled', 'The client closed the connection.'));
  });
  return abort.signal;
}

/**
 * EXPLAIN ANALYZE runs the statement on its sources to the end, so, like a query, it is listed
 * (GET /queries), cancellable by its owner or an admin (DELETE /queries/:id) or by the client
 * going away, and in the caller's history.
 */
async function explainAnalyzed(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  body: Static<typeof ExplainBody>,
): Promise<ExplainResult> {
  const p = request.principal as Principal;
  const queryId = body.queryId ?? randomUUID();
  // marked, so the history tells it from a run of the same SQL; still runnable as it stands
  const label = `/* EXPLAIN ANALYZE */ ${body.sql}`;
  const started = Date.now();
  reply.header('x-junction-query-id', queryId);
  try {
    const out = await app.junction.explain(p, body.sql, {
      params: body.params,
      analyze: true,
      ...(body.engine ? { engine: body.engine } : {}),
      signal: disconnectSignal(reply),
      queryId,
      label,
    });
    await recordHistory(app, p, { queryId, sql: label, params: body.params, started });
    return out;
  } catch (e) {
    await recordHistory(app, p, { queryId, sql: label, params: body.params, started, error: e });
    throw e;
  }
}

export default async function queryRoutes(app: FastifyInstance): Promise<void> {
  // what the other servers ask of this one: the rule is applied here, to what they say of the caller
  app.cluster.answer('queries', (q) => runningFor(app, q as Asker));
  app.cluster.answer('cancel', (q) => cancelFor(app, q as Asker));

  app.post<{ Body: Static<typeof QueryBody> }>(
    '/query',
    {
      schema: {
        tags: ['query'],
        summary: 'Run SQL over all sources (PostgreSQL semantics)',
        description:
          'Values are exact: int64 and decimals are JSON strings, dates YYYY-MM-DD, timestamps ISO 8601, binary base64. Accept: application/x-ndjson streams the result.',
        body: QueryBody,
        response: { 200: QueryReply, ...errors(404, 409, 422, 429, 499, 502, 503, 504) },
      },
    },
    async (request, reply) => runQuery(app, request, reply, request.body),
  );

  app.post<{ Body: Static<typeof ExportBody> }>(
    '/query/export',
    {
      schema: {
        tags: ['query'],
        summary: 'Run SQL and download the whole result as CSV or JSON',
        body: ExportBody,
        produces: ['text/csv', 'application/json'],
        response: { ...ExportReply, ...errors(404, 409, 422, 429, 499, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const { format, formulaSafe, ...input } = request.body;
      return runQuery(app, request, reply, input, format, { formulaSafe });
    },
  );

  app.get(
    '/queries',
    {
      schema: {
        tags: ['query'],
        summary: 'Running queries (yours; all for admins), on every server sharing the metadata database',
        description: `A server that did not answer within a second is named in the ${UNANSWERED_HEADER} header.`,
        response: { 200: Type.Array(Running), ...errors() },
      },
    },
    async (request, reply) => {
      const r = await app.cluster.ask<Omit<Static<typeof Running>, 'replica'>[]>(
        'queries',
        askerOf(request.principal!),
      );
      if (r.missing.length) reply.header(UNANSWERED_HEADER, r.missing.map((m) => m.name).join(','));
      return r.answers.flatMap((a) =>
        Array.isArray(a.answer) ? a.answer.map((q) => ({ ...q, replica: a.replica.name })) : [],
      );
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/queries/:id',
    {
      schema: {
        tags: ['query'],
        summary: 'Cancel a running query, on whichever server runs it',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: Type.Object({ ok: Type.Boolean() }), ...errors(404, 503) },
      },
    },
    async (request) => {
      const asker = { ...askerOf(request.principal!), id: request.params.id };
      // here first: a query is most often cancelled through the server that runs it
      if (cancelFor(app, asker)) return { ok: true };
      const r = await app.cluster.ask<boolean>('cancel', asker);
      if (r.answers.some((a) => a.answer === true)) return { ok: true };
      if (r.missing.length)
        throw new JunctionError(
          'replica_unreachable',
          'resources',
          `No server that answered runs query "${request.params.id}" for you; ${r.missing.map((m) => m.name).join(', ')} did not answer within a second. Try again.`,
          { details: { replicas: r.missing.map((m) => m.name), retryAfterSeconds: 1 } },
        );
      throw notFound('query', request.params.id);
    },
  );

  app.post<{ Body: Static<typeof ExplainBody> }>(
    '/explain',
    {
      schema: {
        tags: ['query'],
        summary: 'The plan Junction would run (analyze: run it and report per-step rows and times)',
        body: ExplainBody,
        response: {
          200: Type.Object({
            plan: Type.Unknown(),
            text: Type.String(),
            cache: Type.Optional(
              Type.Object(
                { ageSeconds: Type.Number() },
                { description: 'the answer would come from the result cache' },
              ),
            ),
            engine: Type.Optional(
              Type.Object(
                { engine: Type.String(), reason: Type.String() },
                {
                  description:
                    'where the query would run and why (set when Trino is configured or the query named an engine)',
                },
              ),
            ),
          }),
          ...errors(404, 409, 422, 429, 499, 502, 503, 504),
        },
      },
    },
    async (request, reply) => {
      const out = request.body.analyze
        ? await explainAnalyzed(app, request, reply, request.body)
        : // planning only: no source is contacted, nothing to list or cancel
          await app.junction.explain(request.principal!, request.body.sql, {
            params: request.body.params,
            ...(request.body.engine ? { engine: request.body.engine } : {}),
          });
      return {
        plan: out.plan,
        text: out.text,
        ...(out.cache ? { cache: { ageSeconds: Math.round(out.cache.ageMs) / 1000 } } : {}),
        ...(out.engine ? { engine: out.engine } : {}),
      };
    },
  );

  app.get<{ Querystring: { limit?: string } }>(
    '/history',
    {
      schema: {
        tags: ['history'],
        summary: 'Your query history, newest first',
        querystring: Type.Object({ limit: Type.Optional(Limit) }, { additionalProperties: false }),
        response: { 200: Type.Array(History), ...errors() },
      },
    },
    async (request) => {
      await app.records.flush(); // your latest queries may still wait in the writer
      return (
        await app.db.queryHistory.findMany({
          where: { userId: request.principal!.userId },
          orderBy: { createdAt: 'desc' },
          take: request.query.limit ? Number(request.query.limit) : 100,
        })
      ).map((h) => ({
        id: h.id,
        queryId: h.queryId,
        sql: h.sql,
        params: h.params ? JSON.parse(h.params) : null,
        status: h.status,
        rows: h.rows,
        elapsedMs: h.elapsedMs,
        errorCode: h.errorCode,
        createdAt: h.createdAt.toISOString(),
      }));
    },
  );

  app.delete(
    '/history',
    {
      schema: {
        tags: ['history'],
        summary: 'Clear your query history',
        response: { 200: Type.Object({ ok: Type.Boolean() }), ...errors() },
      },
    },
    async (request) => {
      await app.records.flush(); // else rows still waiting would come back after the clear
      await app.db.queryHistory.deleteMany({ where: { userId: request.principal!.userId } });
      return { ok: true };
    },
  );
}
