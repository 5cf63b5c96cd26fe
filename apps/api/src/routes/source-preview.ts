import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formatType, JunctionError, type RemoteQuery, type SourceConfig } from '@junction/connectors';
import { errors } from '../lib/schemas.js';
import { checkSourcePayload, DocumentsOption, FilesOption } from '../lib/file-source-options.js';
import type { FileTarget } from '../lib/file-access.js';
import type { SourceTarget } from '../lib/source-allow.js';
import { jsonValue } from '../lib/values.js';

/** A preview answers while an admin types paths: a slow glob or a hung URL must not hold the form. */
export const PREVIEW_TIMEOUT_MS = 15_000;
export const PREVIEW_MAX_ROWS = 100;

const PreviewSource = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
    engine: Type.Union([Type.Literal('duckdb'), Type.Literal('documents')]),
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    password: Type.Optional(Type.String({ maxLength: 16000 })),
    options: Type.Optional(
      Type.Object(
        { files: Type.Optional(FilesOption), documents: Type.Optional(DocumentsOption) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
const PreviewBody = Type.Object(
  {
    source: PreviewSource,
    /** default: the first table the source has */
    table: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PREVIEW_MAX_ROWS })),
  },
  { additionalProperties: false },
);
const PreviewReply = Type.Object({
  table: Type.String(),
  /** every table the settings define, for the form to offer */
  tables: Type.Array(Type.String()),
  columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), nativeType: Type.String() })),
  rows: Type.Array(Type.Array(Type.Unknown())),
});

export interface PreviewRouteOptions {
  /** the registration's own checks (allow-list, file roots, URL hosts), with its audit of refusals */
  check(request: FastifyRequest, target: SourceTarget & FileTarget, path: string): Promise<void>;
  /** default PREVIEW_TIMEOUT_MS */
  timeoutMs?: number;
}

function timedOut(ms: number): JunctionError {
  return new JunctionError(
    'preview_timeout',
    'timeout',
    `The preview took longer than ${ms / 1000} s and was stopped: narrow the path or glob, or check that the URL answers.`,
    { details: { timeoutMs: ms } },
  );
}

/**
 * POST /sources/preview: the schema and first rows of one table of a file or document source's
 * settings, without storing anything. The rows come through the connector's own render and
 * stream, as a query's would, so what the form shows is what queries will read.
 */
export default async function sourcePreviewRoutes(app: FastifyInstance, opts: PreviewRouteOptions): Promise<void> {
  app.post<{ Body: Static<typeof PreviewBody> }>(
    '/sources/preview',
    {
      schema: {
        tags: ['sources'],
        summary: "Preview a file or document source's table (inferred columns and first rows) without registering it",
        body: PreviewBody,
        response: { 200: PreviewReply, ...errors(502, 504) },
      },
    },
    async (request) => {
      const body = request.body;
      const src = body.source;
      const name = src.name ?? 'preview';
      const config: SourceConfig = {
        name,
        engine: src.engine,
        ...(src.file ? { file: src.file } : {}),
        ...(src.password ? { password: src.password } : {}),
        options: src.options ?? {},
      };
      checkSourcePayload({ ...src, name });
      await opts.check(request, { name, engine: src.engine, file: src.file, options: src.options }, 'preview');
      const limit = body.limit ?? 20;
      const ac = new AbortController();
      const ms = opts.timeoutMs ?? PREVIEW_TIMEOUT_MS;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          ac.abort();
          reject(timedOut(ms));
        }, ms);
      });
      const { connector, access } = await app.junction.gate.preview(request.principal!, config);
      const work = (async () => {
        const catalog = await connector.introspect();
        const tables = catalog.tables.map((t) => t.name);
        const wanted = body.table;
        const table = wanted
          ? (catalog.tables.find((t) => t.name === wanted) ??
            catalog.tables.find((t) => t.name.toLowerCase() === wanted.toLowerCase()))
          : catalog.tables[0];
        if (!table)
          throw new JunctionError(
            'preview_table_not_found',
            'user',
            wanted
              ? `The settings define no table "${wanted}" (they define ${tables.length ? tables.join(', ') : 'none'}).`
              : 'The settings define no table yet.',
            { details: { table: wanted ?? null, tables } },
          );
        const query: RemoteQuery = {
          select: table.columns.map((c) => ({
            expr: { kind: 'column', table: 't', column: c.name, type: c.type },
            alias: c.name,
          })),
          from: { kind: 'table', alias: 't', schema: table.schema, table: table.name },
          limit,
        };
        const rendered = connector.render(query);
        const rows: unknown[][] = [];
        for await (const batch of connector.stream(rendered, { signal: ac.signal, access, batchSize: limit })) {
          for (const r of batch.rows) if (rows.length < limit) rows.push(r.map(jsonValue));
          if (rows.length >= limit) break;
        }
        return {
          table: table.name,
          tables,
          columns: table.columns.map((c) => ({ name: c.name, type: formatType(c.type), nativeType: c.nativeType })),
          rows,
        };
      })();
      try {
        return await Promise.race([work, deadline]);
      } finally {
        clearTimeout(timer);
        // the work may still run after a timeout: its rejection is the timeout's, already answered
        work.catch(() => undefined);
        const closed = connector.close().catch(() => undefined);
        // a hung read may hold the close too: the timeout answers without waiting for it
        if (!ac.signal.aborted) await closed;
      }
    },
  );
}
