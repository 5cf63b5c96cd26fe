import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { JunctionError, type EngineName } from '@junction/connectors';
import type { BenchmarkRun } from '../generated/prisma/client.js';
import { CreateBenchmarkBody, Phase, type Definition, type Settings } from '../bench-lab/definition.js';
import { compareRuns, EXPORT_FORMAT, exportCsv, exportJson, type RunRecord } from '../bench-lab/exchange.js';
import { Loader } from '../bench-lab/loader.js';
import { definitionOf, directRefusal, PRESETS, presetById } from '../bench-lab/presets.js';
import { BenchLab } from '../bench-lab/runner.js';
import { labTrino, refuseTrinoModes } from '../bench-lab/trino.js';
import { conflict, notFound } from '../lib/errors.js';
import { errors, Json } from '../lib/schemas.js';
import type { Principal } from '../plugins/auth.js';

const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
/** how long a cancel waits for the run to stop on the server running it */
const RUN_STOP_MS = 30_000;
const RunId = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 100 }) });
const RunSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  benchmarkId: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  createdAt: Type.String(),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  sharedRole: Type.Union([Type.String(), Type.Null()]),
  mine: Type.Boolean(),
  imported: Type.Boolean(),
  summary: Json,
});
const LoadBody = Type.Object(
  {
    layout: Type.Union([Type.Literal('jdv'), Type.Literal('single')]),
    sf: Type.Number({ minimum: 0.001, maximum: 100 }),
    sources: Type.Record(Type.String({ maxLength: 40 }), Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
const ImportBody = Type.Object(
  {
    format: Type.Literal(EXPORT_FORMAT),
    version: Type.Literal(1),
    exportedAt: Type.Optional(Type.String({ maxLength: 40 })),
    run: Type.Unknown(),
  },
  { additionalProperties: true },
);

const ShareBody = Type.Object(
  {
    sharedRole: Type.Union([Type.Literal('admin'), Type.Literal('analyst'), Type.Literal('viewer'), Type.Null()], {
      description:
        'members of this role may read it (a benchmark: also run it) besides its owner and admins; null: nobody else',
    }),
  },
  { additionalProperties: false },
);

/** Benchmarks and runs belong to their owner; admins and an explicitly shared role may read them. */
interface Owned {
  readonly userId: string | null;
  readonly sharedRole: string | null;
}
const mayRead = (p: Principal, o: Owned): boolean =>
  p.permissions.has('admin') || o.userId === p.userId || (o.sharedRole !== null && o.sharedRole === p.role);
const mayChange = (p: Principal, o: Owned): boolean => p.permissions.has('admin') || o.userId === p.userId;
/** The listing filter matching mayRead. */
const readable = (p: Principal) =>
  p.permissions.has('admin') ? {} : { OR: [{ userId: p.userId }, { sharedRole: p.role }] };
const notOwner = (what: string): JunctionError =>
  new JunctionError('forbidden', 'forbidden', `Only the ${what}'s owner or an admin may do this.`);

const parse = (s: string | null): unknown => {
  if (!s) return null;
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
};

/** Where an imported run came from (kept in its progress: the run's row has no column for it). */
function importedOf(progress: unknown): { at: string; from: string | null; exportedAt: string | null } | null {
  const i = (progress as { imported?: unknown } | null)?.imported;
  return i && typeof i === 'object' ? (i as { at: string; from: string | null; exportedAt: string | null }) : null;
}

function record(row: BenchmarkRun, lab: BenchLab): RunRecord & { imported: ReturnType<typeof importedOf> } {
  const live = lab.live(row.id);
  return {
    id: row.id,
    name: row.name,
    benchmarkId: row.benchmarkId,
    status: row.status,
    sharedRole: row.sharedRole,
    progress: live?.progress ?? parse(row.progress),
    definition: parse(row.config),
    results: (live?.results ?? parse(row.results) ?? {}) as RunRecord['results'],
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    imported: importedOf(parse(row.progress)),
  };
}

/**
 * A preset's direct SQL is rendered for its direct target's engine; an engine it cannot be
 * rendered for is refused before any run, with the reason (400).
 */
async function directEngine(app: FastifyInstance, direct: string | undefined) {
  if (!direct) return undefined;
  const engine = (await app.junction.findSource(direct)).engine as EngineName;
  const refusal = directRefusal(engine, direct);
  if (refusal)
    throw new JunctionError('benchmark_direct_dialect', 'user', refusal, {
      details: { field: 'sources.direct', engine },
    });
  return engine;
}

/**
 * The benchmark lab's API: presets, benchmark definitions, runs in the background with live
 * progress, compare, export/import, and the load form. Reading needs `read`; defining and
 * running benchmarks runs SQL, so it needs `query`; loading data into sources drops and
 * creates tables there, so it needs `admin`.
 */
export default async function benchmarkRoutes(app: FastifyInstance): Promise<void> {
  const lab = new BenchLab(app);
  const loader = new Loader(app);
  app.addHook('onReady', async () => lab.recover());
  app.addHook('onClose', async () => lab.close());
  // a run lives on the server that started it; any server follows it from its row and cancels it here
  app.cluster.replicas?.afterBeat(() => lab.recover());
  app.cluster.answer('benchmark-cancel', async (q) => {
    const runId = String((q as { runId?: unknown }).runId);
    if (!lab.cancel(runId)) return false;
    await lab.active.get(runId)?.done.catch(() => undefined);
    return true;
  });
  app.cluster.answer('benchmark-load', (q) => loader.jobs.get(String((q as { id?: unknown }).id)) ?? null);

  // what the caller may not read does not exist for them (404, as for an unknown id)
  const findRun = async (p: Principal, runId: string) => {
    const row = await app.db.benchmarkRun.findUnique({ where: { id: runId } });
    if (!row || !mayRead(p, row)) throw notFound('benchmark_run', runId);
    return row;
  };
  const findBenchmark = async (p: Principal, id: string) => {
    const row = await app.db.benchmark.findUnique({ where: { id } });
    if (!row || !mayRead(p, row)) throw notFound('benchmark', id);
    return row;
  };

  app.get(
    '/benchmarks/presets',
    {
      schema: {
        tags: ['benchmarks'],
        summary: "The lab's presets",
        description:
          "Each preset's queries (id and title) and its phases with their default settings, as built with a direct target (and, when Trino can run queries, with the trino mode beside): a form starts from them.",
        response: {
          200: Type.Array(
            Type.Object({
              id: Type.String(),
              name: Type.String(),
              description: Type.String(),
              queries: Type.Array(Type.Object({ id: Type.String(), title: Type.Optional(Type.String()) })),
              phases: Type.Array(Phase),
            }),
          ),
          ...errors(),
        },
      },
    },
    async () => {
      const trino = labTrino(app)?.available ?? false;
      return PRESETS.map((p) => {
        const built = p.build({ direct: 'direct' }, undefined, trino);
        return {
          id: p.id,
          name: p.name,
          description: p.description,
          queries: built.queries.map((q) => ({ id: q.id, ...(q.title ? { title: q.title } : {}) })),
          phases: built.phases,
        };
      });
    },
  );

  app.get(
    '/benchmarks',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Benchmark definitions, newest first',
        response: { 200: Json, ...errors() },
      },
    },
    async (request) =>
      (
        await app.db.benchmark.findMany({
          where: readable(request.principal!),
          orderBy: { createdAt: 'desc' },
          take: 200,
        })
      ).map((b) => ({
        id: b.id,
        name: b.name,
        preset: b.preset,
        sharedRole: b.sharedRole,
        mine: b.userId === request.principal!.userId,
        createdAt: b.createdAt.toISOString(),
      })),
  );

  app.post<{ Body: Static<typeof CreateBenchmarkBody> }>(
    '/benchmarks',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Define a benchmark, from a preset (with overrides) or from queries and phases',
        body: CreateBenchmarkBody,
        response: { 201: Type.Object({ id: Type.String() }), ...errors(400, 404, 503) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const preset = b.preset ? presetById(b.preset) : undefined;
      if (b.preset && !preset) throw notFound('preset', b.preset);
      const { direct, ...layout } = b.sources ?? {};
      const settings: Settings = {
        ...b.settings,
        sources: { ...b.settings?.sources, ...layout },
        ...(direct ? { direct } : {}),
      };
      const engine = preset && !b.queries ? await directEngine(app, settings.direct) : undefined;
      const trino = labTrino(app);
      const def: Definition = definitionOf(b.name, preset, settings, b, engine, trino?.available ?? false);
      refuseTrinoModes(def, trino);
      if (!def.queries.length)
        throw new JunctionError('benchmark_empty', 'user', 'A benchmark needs queries (or a preset).', {
          details: { field: 'queries' },
        });
      if (!def.phases.length)
        throw new JunctionError('benchmark_no_phases', 'user', 'A benchmark needs phases (or a preset).', {
          details: { field: 'phases' },
        });
      const ids = new Set(def.queries.map((q) => q.id));
      for (const p of def.phases) {
        const named = p.type === 'concurrency' ? [p.query] : (p.queries ?? []);
        for (const q of named)
          if (!ids.has(q))
            throw new JunctionError(
              'benchmark_query_unknown',
              'user',
              `A phase names query "${q}", which is not defined.`,
              {
                details: { field: 'phases' },
              },
            );
      }
      const id = randomUUID();
      await app.db.benchmark.create({
        data: {
          id,
          userId: request.principal!.userId,
          name: b.name,
          preset: preset?.id ?? null,
          definition: JSON.stringify(def),
        },
      });
      await app.audit(request, 'benchmark.create', id, { name: b.name });
      return reply.status(201).send({ id });
    },
  );

  app.get<{ Params: Static<typeof Id> }>(
    '/benchmarks/:id',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'A benchmark definition',
        params: Id,
        response: { 200: Json, ...errors(404) },
      },
    },
    async (request) => {
      const b = await findBenchmark(request.principal!, request.params.id);
      return {
        id: b.id,
        name: b.name,
        preset: b.preset,
        sharedRole: b.sharedRole,
        createdAt: b.createdAt.toISOString(),
        definition: JSON.parse(b.definition),
      };
    },
  );

  app.delete<{ Params: Static<typeof Id> }>(
    '/benchmarks/:id',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Delete a benchmark definition (its runs stay)',
        params: Id,
        response: { 200: Type.Object({ ok: Type.Boolean() }), ...errors(404) },
      },
    },
    async (request) => {
      const b = await findBenchmark(request.principal!, request.params.id);
      if (!mayChange(request.principal!, b)) throw notOwner('benchmark');
      await app.db.benchmark.delete({ where: { id: b.id } });
      await app.audit(request, 'benchmark.delete', b.id, { name: b.name });
      return { ok: true };
    },
  );

  app.patch<{ Params: Static<typeof Id>; Body: Static<typeof ShareBody> }>(
    '/benchmarks/:id',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Share a benchmark with a role (its members may read and run it), or stop sharing it',
        params: Id,
        body: ShareBody,
        response: { 200: Type.Object({ ok: Type.Boolean() }), ...errors(403, 404) },
      },
    },
    async (request) => {
      const b = await findBenchmark(request.principal!, request.params.id);
      if (!mayChange(request.principal!, b)) throw notOwner('benchmark');
      await app.db.benchmark.update({ where: { id: b.id }, data: { sharedRole: request.body.sharedRole } });
      await app.audit(request, 'benchmark.share', b.id, { sharedRole: request.body.sharedRole });
      return { ok: true };
    },
  );

  app.post<{ Params: Static<typeof Id> }>(
    '/benchmarks/:id/runs',
    {
      schema: {
        tags: ['benchmarks'],
        summary: "Start a run in the server's background",
        params: Id,
        response: { 201: Type.Object({ runId: Type.String() }), ...errors(400, 404, 503) },
      },
    },
    async (request, reply) => {
      const b = await findBenchmark(request.principal!, request.params.id);
      // a preset's benchmark defined before its direct SQL was rendered per engine, or whose
      // target changed engine since
      const def = parse(b.definition) as Definition | null;
      if (def?.preset && def.settings?.direct && def.queries.some((q) => q.direct))
        await directEngine(app, def.settings.direct);
      const runId = await lab.start(b.id, request.principal!);
      await app.audit(request, 'benchmark.run', runId, { benchmark: b.id });
      return reply.status(201).send({ runId });
    },
  );

  app.get<{ Querystring: { benchmarkId?: string } }>(
    '/benchmark-runs',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Runs, newest first',
        querystring: Type.Object(
          { benchmarkId: Type.Optional(Type.String({ maxLength: 100 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(RunSummary), ...errors() },
      },
    },
    async (request) => {
      const rows = await app.db.benchmarkRun.findMany({
        where: {
          ...readable(request.principal!),
          ...(request.query.benchmarkId ? { benchmarkId: request.query.benchmarkId } : {}),
        },
        orderBy: { createdAt: 'desc' },
        take: 200,
      });
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        benchmarkId: r.benchmarkId,
        status: r.status,
        sharedRole: r.sharedRole,
        mine: r.userId === request.principal!.userId,
        imported: importedOf(parse(r.progress)) !== null,
        createdAt: r.createdAt.toISOString(),
        startedAt: r.startedAt?.toISOString() ?? null,
        finishedAt: r.finishedAt?.toISOString() ?? null,
        summary: (parse(r.results) as { summary?: unknown } | null)?.summary ?? null,
      }));
    },
  );

  app.get<{ Params: Static<typeof RunId> }>(
    '/benchmark-runs/:runId',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'A run: status, live progress and results (so far, while it runs)',
        params: RunId,
        response: { 200: Json, ...errors(404) },
      },
    },
    async (request) => {
      const row = await findRun(request.principal!, request.params.runId);
      return { ...record(row, lab), mayChange: mayChange(request.principal!, row) };
    },
  );

  app.delete<{ Params: Static<typeof RunId> }>(
    '/benchmark-runs/:runId',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Cancel a running run (409 when it is not running)',
        params: RunId,
        response: { 200: Type.Object({ ok: Type.Boolean(), status: Type.String() }), ...errors(404, 409) },
      },
    },
    async (request) => {
      const row = await findRun(request.principal!, request.params.runId);
      if (!mayChange(request.principal!, row)) throw notOwner('run');
      // on whichever server runs it; each answers once the run has stopped there
      const r = await app.cluster.ask<boolean>('benchmark-cancel', { runId: row.id }, { timeoutMs: RUN_STOP_MS });
      if (!r.answers.some((a) => a.answer === true)) {
        if (r.missing.length && ['queued', 'running'].includes(row.status))
          throw new JunctionError(
            'replica_unreachable',
            'resources',
            `The run was not found on the servers that answered; ${r.missing.map((m) => m.name).join(', ')} did not answer. Try again.`,
            { details: { replicas: r.missing.map((m) => m.name), retryAfterSeconds: 1 } },
          );
        throw conflict('benchmark_run_not_running', `The run is ${row.status}, not running.`);
      }
      await app.audit(request, 'benchmark_run.cancel', row.id);
      return { ok: true, status: (await findRun(request.principal!, row.id)).status };
    },
  );

  app.get<{ Params: { a: string; b: string } }>(
    '/benchmark-runs/:a/compare/:b',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Two runs side by side, with the difference in percent (b against a)',
        params: Type.Object({ a: Type.String({ maxLength: 100 }), b: Type.String({ maxLength: 100 }) }),
        response: { 200: Json, ...errors(404) },
      },
    },
    async (request) =>
      compareRuns(
        record(await findRun(request.principal!, request.params.a), lab),
        record(await findRun(request.principal!, request.params.b), lab),
      ),
  );

  app.get<{ Params: Static<typeof RunId>; Querystring: { format?: 'json' | 'csv'; formulaSafe?: 'true' | 'false' } }>(
    '/benchmark-runs/:runId/export',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Export a run: JSON (re-importable) or CSV (format=csv)',
        params: RunId,
        querystring: Type.Object(
          {
            format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
            formulaSafe: Type.Optional(
              Type.Union([Type.Literal('true'), Type.Literal('false')], {
                description: "csv: false writes names starting with = + - @ as they are (default: prefixed with ')",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Json, ...errors(404) },
      },
    },
    async (request, reply) => {
      const run = record(await findRun(request.principal!, request.params.runId), lab);
      const base = `benchmark-${run.id.slice(0, 8)}`;
      if (request.query.format === 'csv') {
        reply.header('content-disposition', `attachment; filename="${base}.csv"`);
        return reply
          .type('text/csv; charset=utf-8')
          .send(exportCsv(run, { formulaSafe: request.query.formulaSafe !== 'false' }));
      }
      reply.header('content-disposition', `attachment; filename="${base}.json"`);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(exportJson(run)));
    },
  );

  app.post<{ Body: Static<typeof ImportBody> }>(
    '/benchmark-runs/import',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Import an exported run (stored as a new, finished run)',
        body: ImportBody,
        response: { 201: Type.Object({ runId: Type.String() }), ...errors() },
      },
      // a run's results with its samples stay well under this; more is not a run export
      bodyLimit: 16 * 1024 * 1024,
    },
    async (request, reply) => {
      const run = request.body.run as Partial<RunRecord> | null;
      if (!run || typeof run !== 'object' || typeof run.name !== 'string' || typeof run.results !== 'object')
        throw new JunctionError('benchmark_import_invalid', 'user', 'Not an exported benchmark run.', {
          details: { field: 'run' },
        });
      const status = ['done', 'failed', 'cancelled', 'interrupted'].includes(String(run.status))
        ? String(run.status)
        : 'failed';
      // the run says it is an import, and of which run: it looks the same as its original otherwise
      const imported = {
        at: new Date().toISOString(),
        from: typeof run.id === 'string' ? run.id.slice(0, 100) : null,
        exportedAt: request.body.exportedAt ?? null,
      };
      const progress = run.progress && typeof run.progress === 'object' ? run.progress : {};
      const runId = randomUUID();
      await app.db.benchmarkRun.create({
        data: {
          id: runId,
          userId: request.principal!.userId,
          name: run.name.slice(0, 200),
          benchmarkId: null,
          status,
          config: run.definition ? JSON.stringify(run.definition) : null,
          progress: JSON.stringify({ ...progress, imported }),
          results: JSON.stringify(run.results),
          startedAt: run.startedAt ? new Date(run.startedAt) : null,
          finishedAt: run.finishedAt ? new Date(run.finishedAt) : new Date(),
        },
      });
      await app.audit(request, 'benchmark_run.import', runId, { name: run.name.slice(0, 200) });
      return reply.status(201).send({ runId });
    },
  );

  app.patch<{ Params: Static<typeof RunId>; Body: Static<typeof ShareBody> }>(
    '/benchmark-runs/:runId',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Share a run with a role (its members may read and export it), or stop sharing it',
        params: RunId,
        body: ShareBody,
        response: { 200: Type.Object({ ok: Type.Boolean() }), ...errors(403, 404) },
      },
    },
    async (request) => {
      const row = await findRun(request.principal!, request.params.runId);
      if (!mayChange(request.principal!, row)) throw notOwner('run');
      await app.db.benchmarkRun.update({ where: { id: row.id }, data: { sharedRole: request.body.sharedRole } });
      await app.audit(request, 'benchmark_run.share', row.id, { sharedRole: request.body.sharedRole });
      return { ok: true };
    },
  );

  app.post<{ Body: Static<typeof LoadBody> }>(
    '/benchmarks/load',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Load the TPC-H-like data at a scale into registered sources (layout jdv: dbA–dbD; single: direct)',
        body: LoadBody,
        response: { 202: Json, ...errors(404, 409) },
      },
    },
    async (request, reply) => {
      const job = await loader.start(request.principal!, request.body.layout, request.body.sf, request.body.sources);
      await app.audit(request, 'benchmark.load', job.id, { layout: job.layout, sf: job.sf, sources: job.sources });
      return reply.status(202).send(job);
    },
  );

  app.get<{ Params: Static<typeof Id> }>(
    '/benchmarks/load/:id',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Progress of a load',
        params: Id,
        response: { 200: Json, ...errors(404) },
      },
    },
    async (request) => {
      const local = loader.jobs.get(request.params.id);
      if (local) return local;
      // a load runs on the server it was started on
      const r = await app.cluster.ask<unknown>('benchmark-load', { id: request.params.id });
      const job = r.answers.find((a) => a.answer)?.answer;
      if (!job) throw notFound('load', request.params.id);
      return job;
    },
  );
}
