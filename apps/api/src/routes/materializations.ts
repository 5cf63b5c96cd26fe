import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors, Ok } from '../lib/schemas.js';

const Status = Type.Object({
  view: Type.String(),
  status: Type.Union([Type.Literal('never'), Type.Literal('ok'), Type.Literal('failed'), Type.Literal('outdated')]),
  refreshing: Type.Boolean(),
  intervalSeconds: Type.Union([Type.Integer(), Type.Null()]),
  maxStalenessSeconds: Type.Integer(),
  rows: Type.Union([Type.Integer(), Type.Null()]),
  bytes: Type.Union([Type.Integer(), Type.Null()]),
  refreshedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], {
    description: "why the last refresh failed: the driver's message for admins, a generic one for other readers",
  }),
  errorCode: Type.Union([Type.String(), Type.Null()]),
});
/** what a reader who is not an admin sees of a failed refresh */
const GENERIC_ERROR = 'The last refresh failed; an administrator can see why.';
const ViewParams = Type.Object({
  schema: Type.String({ minLength: 1, maxLength: 128 }),
  name: Type.String({ minLength: 1, maxLength: 128 }),
});
const Settings = Type.Object(
  {
    intervalSeconds: Type.Union([Type.Integer({ minimum: 1, maximum: 30 * 86400 }), Type.Null()], {
      description: 'refresh on this schedule; null: only on demand',
    }),
    maxStalenessSeconds: Type.Integer({
      minimum: 1,
      maximum: 365 * 86400,
      description: 'queries read the stored rows while they are at most this old, the view itself afterwards',
    }),
  },
  { additionalProperties: false },
);

/** Materialized views: status for every reader of the view, settings and refresh for admins. */
export default async function materializationRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/materializations',
    {
      schema: {
        tags: ['views'],
        summary: 'Materialized views you may read: status, size, last refresh and its duration, the last error',
        response: { 200: Type.Array(Status), ...errors() },
      },
    },
    async (request) => {
      await app.materializer.ready();
      const access = await app.junction.accessPolicy(request.principal!);
      // a driver's message may quote the rows it choked on, and a view's readers need not be
      // allowed to read what it reads
      const admin = request.principal!.permissions.has('admin');
      return app.materializer
        .list()
        .filter((m) => {
          const i = m.view.indexOf('.');
          return access.canReadView(m.view.slice(0, i), m.view.slice(i + 1));
        })
        .map((m) => (admin || m.error === null ? m : { ...m, error: GENERIC_ERROR }));
    },
  );

  app.put<{ Params: Static<typeof ViewParams>; Body: Static<typeof Settings> }>(
    '/materializations/:schema/:name',
    {
      schema: {
        tags: ['views'],
        summary: "Materialize a view into Junction's own store (or change its schedule and staleness)",
        params: ViewParams,
        body: Settings,
        response: { 200: Status, ...errors(404) },
      },
    },
    async (request) => {
      await app.materializer.ready();
      const { schema, name } = request.params;
      const out = await app.materializer.configure(schema, name, request.body);
      await app.audit(request, 'materialization.set', `${schema}.${name}`, { ...request.body });
      return out;
    },
  );

  app.post<{ Params: Static<typeof ViewParams> }>(
    '/materializations/:schema/:name/refresh',
    {
      schema: {
        tags: ['views'],
        summary:
          'Refresh now: load the rows into a new table, then swap it in (a failure keeps the previous rows). While another server sharing the store refreshes the view, waits for that refresh and answers with its outcome',
        params: ViewParams,
        response: { 200: Status, ...errors(404) },
      },
    },
    async (request) => {
      await app.materializer.ready();
      const { schema, name } = request.params;
      app.materializer.get(`${schema}.${name}`); // 404 before the log says it was refreshed
      // logged before it runs: a failing refresh is an attempt worth recording too
      await app.audit(request, 'materialization.refresh', `${schema}.${name}`);
      return app.materializer.refresh(schema, name);
    },
  );

  app.delete<{ Params: Static<typeof ViewParams> }>(
    '/materializations/:schema/:name',
    {
      schema: {
        tags: ['views'],
        summary: 'Stop materializing a view: queries read its definition again',
        params: ViewParams,
        response: { 200: Ok, ...errors(404) },
      },
    },
    async (request) => {
      await app.materializer.ready();
      const { schema, name } = request.params;
      await app.materializer.remove(schema, name);
      await app.audit(request, 'materialization.delete', `${schema}.${name}`);
      return { ok: true };
    },
  );
}
