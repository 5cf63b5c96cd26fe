import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isJunctionError, type CatalogSnapshot, type JunctionError } from '@junction/connectors';
import type { Source as SourceRow } from '../generated/prisma/client.js';
import { notFound } from '../lib/errors.js';
import { errors, IdParams, Name, Ok } from '../lib/schemas.js';
import { SourceAllow, type SourceTarget } from '../lib/source-allow.js';
import { FileAccess, type FileTarget } from '../lib/file-access.js';
import { checkSourcePayload, DocumentsOption, FilesOption } from '../lib/file-source-options.js';
import sourcePreviewRoutes from './source-preview.js';

const Engine = Type.Union([
  Type.Literal('postgresql'),
  Type.Literal('mysql'),
  Type.Literal('sqlserver'),
  Type.Literal('sqlite'),
  Type.Literal('duckdb'),
  Type.Literal('documents'),
]);
const Options = Type.Object(
  {
    schema: Type.Optional(Type.String({ maxLength: 128 })),
    pool: Type.Optional(
      Type.Object(
        {
          max: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          idleTimeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
          maxLifetimeMs: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    tls: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean(),
          rejectUnauthorized: Type.Optional(Type.Boolean()),
          ca: Type.Optional(Type.String({ maxLength: 20000 })),
        },
        { additionalProperties: false },
      ),
    ),
    connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
    // no fileRoots nor urlHosts: those are the server's (JUNCTION_FILE_ROOTS, JUNCTION_URL_HOSTS), never a payload's
    files: Type.Optional(FilesOption),
    documents: Type.Optional(DocumentsOption),
    statementTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    fragmentCache: Type.Optional(
      Type.Object(
        {
          ttlSeconds: Type.Integer({ minimum: 1, maximum: 30 * 86400 }),
          tables: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 1000 })),
        },
        {
          additionalProperties: false,
          description:
            "reuse the results of this source's statements for ttlSeconds (only those reading just the listed tables, when given)",
        },
      ),
    ),
  },
  { additionalProperties: false },
);
const Host = Type.String({ minLength: 1, maxLength: 255 });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Str = Type.String({ minLength: 1, maxLength: 255 });
const Secret = Type.String({
  maxLength: 16000,
  description:
    'write-only: never returned. documents: the secret HTTP headers as JSON, {"<table>" or "*": {"Authorization": "Bearer …"}}; https only (plain http on the loopback host), and entered again when a table\'s URL moves to another origin',
});
/** The refusals of SourceRegistry.update that protect a documents source's secret headers. */
const HEADER_REFUSALS: ReadonlySet<string> = new Set(['document_headers_reentry', 'document_headers_insecure']);

export const CreateSource = Type.Object(
  {
    name: Name,
    engine: Engine,
    host: Type.Optional(Host),
    port: Type.Optional(Port),
    database: Type.Optional(Str),
    user: Type.Optional(Str),
    password: Type.Optional(Secret),
    file: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'sqlite: database file path; duckdb: an optional .duckdb file',
      }),
    ),
    options: Type.Optional(Options),
  },
  { additionalProperties: false },
);
const UpdateSource = Type.Object(
  {
    host: Type.Optional(Host),
    port: Type.Optional(Port),
    database: Type.Optional(Str),
    user: Type.Optional(Str),
    password: Type.Optional(Secret),
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    options: Type.Optional(Options),
  },
  { additionalProperties: false, minProperties: 1 },
);

const SourceSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  engine: Engine,
  status: Type.String(),
  demo: Type.Boolean(),
});
// No password field: the serializer drops anything not declared, so a credential cannot slip out.
const SourceDetail = Type.Object({
  id: Type.String(),
  name: Type.String(),
  engine: Engine,
  host: Type.Union([Type.String(), Type.Null()]),
  port: Type.Union([Type.Integer(), Type.Null()]),
  database: Type.Union([Type.String(), Type.Null()]),
  user: Type.Union([Type.String(), Type.Null()]),
  file: Type.Union([Type.String(), Type.Null()]),
  hasPassword: Type.Boolean(),
  options: Type.Unknown(),
  status: Type.String(),
  statusMessage: Type.Union([Type.String(), Type.Null()]),
  semantics: Type.Union([Type.Unknown(), Type.Null()]),
  tables: Type.Integer(),
  demo: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  introspectedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const Diagnosis = Type.Object({
  ok: Type.Boolean(),
  serverVersion: Type.Optional(Type.String()),
  latencyMs: Type.Optional(Type.Number()),
  code: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  hint: Type.Optional(Type.String()),
});

type EngineT = Static<typeof Engine>;

export function sourceDetail(s: SourceRow): Static<typeof SourceDetail> {
  const catalog = s.catalog ? (JSON.parse(s.catalog) as CatalogSnapshot) : undefined;
  return {
    id: s.id,
    name: s.name,
    engine: s.engine as EngineT,
    host: s.host,
    port: s.port,
    database: s.database,
    user: s.user,
    file: s.file,
    hasPassword: s.passwordEncrypted !== null,
    options: JSON.parse(s.options || '{}'),
    status: s.status,
    statusMessage: s.statusMessage,
    semantics: s.semantics ? JSON.parse(s.semantics) : null,
    tables: catalog?.tables.length ?? 0,
    demo: s.demo,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    introspectedAt: s.introspectedAt?.toISOString() ?? null,
  };
}

/**
 * What non-admins see of a source: where it lives (host, user, file path) and why it failed
 * (messages quote both) is for admins, who are the only ones who can change it.
 */
export function withoutConnection(d: Static<typeof SourceDetail>): Static<typeof SourceDetail> {
  return {
    ...d,
    host: null,
    port: null,
    database: null,
    user: null,
    file: null,
    hasPassword: false,
    options: {},
    statusMessage: null,
  };
}

export interface SourceRouteOptions {
  /** where sources may point (JUNCTION_SOURCE_ALLOW); default: anywhere, as without a data directory */
  allow?: SourceAllow;
  /** where file and document sources may read (JUNCTION_FILE_ROOTS, JUNCTION_URL_HOSTS); default: nowhere */
  files?: FileAccess;
  /** how long POST /sources/preview may take (routes/source-preview.ts) */
  previewTimeoutMs?: number;
}

export default async function sourceRoutes(app: FastifyInstance, opts: SourceRouteOptions): Promise<void> {
  const allow = opts.allow ?? SourceAllow.parse(undefined);
  const files = opts.files ?? FileAccess.parse(undefined, undefined);

  /**
   * Before any connection is attempted: what a refused target would have answered (open, closed,
   * silent port; a file that exists or not) is never learnt, so the API is no port scanner.
   */
  async function assertAllowed(
    request: FastifyRequest,
    target: SourceTarget & FileTarget,
    path: string,
  ): Promise<void> {
    try {
      await allow.check(target);
      await files.check(target);
    } catch (e) {
      if (isJunctionError(e))
        await app.audit(request, 'source.refused', target.name, { path, code: e.code, message: e.message });
      throw e;
    }
  }

  /** A stored source whose target the rules no longer allow: offline, and never contacted. */
  async function refusedStored(row: SourceRow): Promise<JunctionError | undefined> {
    try {
      await allow.check(row);
      await files.check(row);
      return undefined;
    } catch (e) {
      if (!isJunctionError(e)) throw e;
      await app.db.source.update({ where: { id: row.id }, data: { status: 'offline', statusMessage: e.message } });
      return e;
    }
  }

  app.get(
    '/sources',
    { schema: { tags: ['sources'], response: { 200: Type.Array(SourceSummary), ...errors() } } },
    async (request) => {
      const policy = await app.junction.accessPolicy(request.principal!);
      const rows = await app.db.source.findMany({ orderBy: { name: 'asc' } });
      return rows
        .filter((s) => policy.canReadSource(s.name))
        .map((s) => ({ id: s.id, name: s.name, engine: s.engine as EngineT, status: s.status, demo: s.demo }));
    },
  );

  app.post<{ Body: Static<typeof CreateSource> }>(
    '/sources',
    {
      schema: {
        tags: ['sources'],
        summary: 'Register a source: tests the connection, probes its semantics and introspects its catalog',
        body: CreateSource,
        response: { 201: SourceDetail, ...errors(409, 502) },
      },
    },
    async (request, reply) => {
      checkSourcePayload(request.body);
      await assertAllowed(request, request.body, 'create');
      const row = await app.junction.createSource(request.body);
      await app.audit(request, 'source.create', row.name, {
        engine: row.engine,
        host: row.host,
        port: row.port,
        database: row.database,
        user: row.user,
      });
      return reply.status(201).send(sourceDetail(row));
    },
  );

  await app.register(sourcePreviewRoutes, { check: assertAllowed, timeoutMs: opts.previewTimeoutMs });

  app.get<{ Params: Static<typeof IdParams> }>(
    '/sources/:id',
    {
      schema: { tags: ['sources'], params: IdParams, response: { 200: SourceDetail, ...errors(404) } },
    },
    async (request) => {
      const row = await app.junction.findSource(request.params.id);
      const policy = await app.junction.accessPolicy(request.principal!);
      if (!policy.canReadSource(row.name)) throw notFound('source', request.params.id);
      return request.principal!.permissions.has('admin') ? sourceDetail(row) : withoutConnection(sourceDetail(row));
    },
  );

  app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateSource> }>(
    '/sources/:id',
    {
      schema: {
        tags: ['sources'],
        summary: 'Change connection settings (e.g. rotate the password); the old pool drains, no restart needed',
        params: IdParams,
        body: UpdateSource,
        response: { 200: SourceDetail, ...errors(404, 502) },
      },
    },
    async (request) => {
      // the settings the update would connect with: a new host, or a stored one the rules now refuse
      const stored = await app.junction.findSource(request.params.id);
      checkSourcePayload({ ...request.body, name: stored.name, engine: stored.engine }, { partial: true });
      await assertAllowed(
        request,
        {
          name: stored.name,
          engine: stored.engine,
          host: request.body.host ?? stored.host,
          file: request.body.file ?? stored.file,
          options: request.body.options ?? stored.options,
        },
        'update',
      );
      const row = await app.junction.updateSource(stored.id, request.body).catch(async (e: unknown) => {
        // an attempt to send the stored headers somewhere new is recorded like any refused target
        if (isJunctionError(e) && HEADER_REFUSALS.has(e.code))
          await app.audit(request, 'source.refused', stored.name, { path: 'update', code: e.code, message: e.message });
        throw e;
      });
      const changed = Object.keys(request.body).filter((k) => k !== 'password');
      await app.audit(request, 'source.update', row.name, {
        changed,
        ...(request.body.password !== undefined ? { passwordChanged: true } : {}),
      });
      return sourceDetail(row);
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/sources/:id',
    { schema: { tags: ['sources'], params: IdParams, response: { 200: Ok, ...errors(404) } } },
    async (request) => {
      const row = await app.junction.deleteSource(request.params.id);
      await app.audit(request, 'source.delete', row.name);
      return { ok: true };
    },
  );

  app.post<{ Params: Static<typeof IdParams> }>(
    '/sources/:id/test',
    {
      schema: {
        tags: ['sources'],
        summary: 'Test the stored connection settings',
        params: IdParams,
        response: { 200: Diagnosis, ...errors(404) },
      },
    },
    async (request) => {
      const row = await app.junction.findSource(request.params.id);
      const refused = await refusedStored(row);
      // the same answer whatever is (or is not) listening there
      if (refused)
        return {
          ok: false,
          code: refused.code,
          message: refused.message,
          hint:
            refused.details?.rule === 'data_directory'
              ? "Point the source at a file outside Junction's data directory."
              : refused.code === 'file_outside_roots'
                ? "Allow the source's folder in JUNCTION_FILE_ROOTS, or point the source at files inside one."
                : refused.code === 'url_host_not_allowed'
                  ? "Allow the URL's host in JUNCTION_URL_HOSTS, or point the source elsewhere."
                  : "Allow the source's host or folder in JUNCTION_SOURCE_ALLOW, or point the source elsewhere.",
        };
      return app.junction.testSource(row.id);
    },
  );

  app.post<{ Params: Static<typeof IdParams> }>(
    '/sources/:id/refresh',
    {
      schema: {
        tags: ['sources'],
        summary: 'Re-introspect the catalog and re-probe semantics',
        params: IdParams,
        response: { 200: SourceDetail, ...errors(404, 502) },
      },
    },
    async (request) => {
      const stored = await app.junction.findSource(request.params.id);
      const refused = await refusedStored(stored);
      if (refused) throw refused;
      const row = await app.junction.refreshSource(stored.id);
      await app.audit(request, 'source.refresh', row.name);
      return sourceDetail(row);
    },
  );
}
