import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { conflict, forbidden, notFound } from '../lib/errors.js';
import { errors, IdParams, Ok } from '../lib/schemas.js';
import type { Principal } from '../plugins/auth.js';
import { EXPORT_FORMATS } from '../lib/result-encoders.js';
import { ExportBody, ExportReply, runQuery, type RunInput } from './query.js';

const Param = Type.Union([Type.String({ maxLength: 100_000 }), Type.Number(), Type.Boolean(), Type.Null()]);
const Saved = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  sql: Type.String(),
  params: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
  example: Type.Boolean(),
  shared: Type.Boolean(),
  owner: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const CreateSaved = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    sql: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    params: Type.Optional(Type.Array(Param, { maxItems: 1000, description: 'default parameter values' })),
    shared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const UpdateSaved = Type.Partial(CreateSaved, { additionalProperties: false, minProperties: 1 });
const RunSaved = Type.Object(
  {
    params: Type.Optional(Type.Array(Param, { maxItems: 1000 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 3600_000 })),
    maxRows: Type.Optional(Type.Integer({ minimum: 1 })),
    queryId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' })),
  },
  { additionalProperties: false },
);
const ExportSaved = Type.Object(
  {
    ...RunSaved.properties,
    format: Type.Union(EXPORT_FORMATS.map((f) => Type.Literal(f))),
    formulaSafe: ExportBody.properties.formulaSafe,
  },
  { additionalProperties: false },
);

type Row = {
  id: string;
  name: string;
  description: string | null;
  sql: string;
  params: string | null;
  example: boolean;
  shared: boolean;
  ownerId: string | null;
  createdAt: Date;
  updatedAt: Date;
  owner?: { username: string } | null;
};
const out = (q: Row) => ({
  id: q.id,
  name: q.name,
  description: q.description,
  sql: q.sql,
  params: q.params ? JSON.parse(q.params) : null,
  example: q.example,
  shared: q.shared,
  owner: q.owner?.username ?? null,
  createdAt: q.createdAt.toISOString(),
  updatedAt: q.updatedAt.toISOString(),
});

/** Saved queries: yours, shared ones, and the examples. Viewers may run them (grants still apply). */
export default async function savedRoutes(app: FastifyInstance): Promise<void> {
  const visible = (userId: string) => ({ OR: [{ ownerId: userId }, { shared: true }, { example: true }] });

  /**
   * Whether the caller's grants let them run the query: binding under their access policy
   * decides it exactly (views read with the view's rights included), and planning contacts no
   * source. A query refused for anything but access (a placeholder without a default value, a
   * table since dropped) stays listed: it is the caller's to fix or run with values, and binding
   * got past every name it checks before failing.
   */
  async function runnableBy(p: Principal): Promise<(q: { sql: string; params: string | null }) => Promise<boolean>> {
    const access = await app.junction.accessPolicy(p);
    if (access.key === 'all') return async () => true;
    const engine = await app.junction.engine();
    return async (q) => {
      try {
        await engine.explain(q.sql, { access, params: q.params ? JSON.parse(q.params) : [] });
        return true;
      } catch (e) {
        return (e as { code?: string }).code !== 'access_denied';
      }
    };
  }

  app.get(
    '/saved-queries',
    {
      schema: { tags: ['saved queries'], response: { 200: Type.Array(Saved), ...errors() } },
    },
    async (request) => {
      const all = await app.db.savedQuery.findMany({
        where: visible(request.principal!.userId),
        include: { owner: true },
        orderBy: [{ example: 'desc' }, { name: 'asc' }],
      });
      const may = await runnableBy(request.principal!);
      const shown = [];
      // one at a time: plans are cached per policy, and a long list must not plan in parallel bursts
      for (const q of all) if (await may(q)) shown.push(out(q));
      return shown;
    },
  );

  app.get<{ Params: Static<typeof IdParams> }>(
    '/saved-queries/:id',
    {
      schema: { tags: ['saved queries'], params: IdParams, response: { 200: Saved, ...errors(404) } },
    },
    async (request) => {
      const q = await app.db.savedQuery.findFirst({
        where: { id: request.params.id, ...visible(request.principal!.userId) },
        include: { owner: true },
      });
      // a query over what the caller may not read is not theirs to learn of, as a private one
      if (!q || !(await (await runnableBy(request.principal!))(q))) throw notFound('saved_query', request.params.id);
      return out(q);
    },
  );

  app.post<{ Body: Static<typeof CreateSaved> }>(
    '/saved-queries',
    {
      schema: { tags: ['saved queries'], body: CreateSaved, response: { 201: Saved, ...errors(409) } },
    },
    async (request, reply) => {
      const b = request.body;
      await nameFree(request.principal!.userId, b.name);
      const q = await app.db.savedQuery.create({
        data: {
          id: randomUUID(),
          ownerId: request.principal!.userId,
          name: b.name,
          description: b.description ?? null,
          sql: b.sql,
          params: b.params ? JSON.stringify(b.params) : null,
          shared: b.shared ?? false,
        },
        include: { owner: true },
      });
      return reply.status(201).send(out(q));
    },
  );

  /** One owner's saved queries have distinct names, so a name picks one out in the list. */
  async function nameFree(ownerId: string | null, name: string, except?: string): Promise<void> {
    const same = await app.db.savedQuery.findFirst({
      where: { ownerId, name, ...(except ? { NOT: { id: except } } : {}) },
      select: { id: true },
    });
    if (same)
      throw conflict('saved_query_exists', `You already have a saved query named "${name}". Pick another name, or overwrite that one.`);
  }

  /**
   * The owner may change a saved query, and the admin permission any. Another user's private
   * query is 404 as for reading it (its existence is not yours to learn); one you can see is 403.
   */
  async function editable(id: string, p: Principal) {
    const q = await app.db.savedQuery.findUnique({ where: { id } });
    if (!q) throw notFound('saved_query', id);
    if (q.ownerId === p.userId || p.permissions.has('admin')) return q;
    if (!q.shared && !q.example) throw notFound('saved_query', id);
    throw forbidden('Only the owner or an admin may change this saved query.');
  }

  app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateSaved> }>(
    '/saved-queries/:id',
    {
      schema: {
        tags: ['saved queries'],
        params: IdParams,
        body: UpdateSaved,
        response: { 200: Saved, ...errors(404, 409) },
      },
    },
    async (request) => {
      const current = await editable(request.params.id, request.principal!);
      const b = request.body;
      if (b.name !== undefined && b.name !== current.name) await nameFree(current.ownerId, b.name, current.id);
      const q = await app.db.savedQuery.update({
        where: { id: request.params.id },
        data: {
          ...(b.name !== undefined ? { name: b.name } : {}),
          ...(b.description !== undefined ? { description: b.description } : {}),
          ...(b.sql !== undefined ? { sql: b.sql } : {}),
          ...(b.params !== undefined ? { params: JSON.stringify(b.params) } : {}),
          ...(b.shared !== undefined ? { shared: b.shared } : {}),
        },
        include: { owner: true },
      });
      return out(q);
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/saved-queries/:id',
    {
      schema: { tags: ['saved queries'], params: IdParams, response: { 200: Ok, ...errors(404) } },
    },
    async (request) => {
      await editable(request.params.id, request.principal!);
      await app.db.savedQuery.delete({ where: { id: request.params.id } });
      return { ok: true };
    },
  );

  /** The saved query's SQL with the caller's parameter values, or its own defaults. */
  async function runnable(id: string, p: Principal, body: Static<typeof RunSaved>): Promise<RunInput> {
    const q = await app.db.savedQuery.findFirst({ where: { id, ...visible(p.userId) } });
    if (!q || !(await (await runnableBy(p))(q))) throw notFound('saved_query', id);
    const params = body.params ?? (q.params ? JSON.parse(q.params) : undefined);
    return { sql: q.sql, params, timeoutMs: body.timeoutMs, maxRows: body.maxRows, queryId: body.queryId };
  }

  app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof ExportSaved> }>(
    '/saved-queries/:id/export',
    {
      schema: {
        tags: ['saved queries'],
        summary: 'Run a saved query and download the whole result as CSV or JSON',
        params: IdParams,
        body: ExportSaved,
        produces: ['text/csv', 'application/json'],
        response: { ...ExportReply, ...errors(404, 422, 429, 499, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const { format, formulaSafe, ...body } = request.body;
      return runQuery(app, request, reply, await runnable(request.params.id, request.principal!, body), format, {
        formulaSafe,
      });
    },
  );

  app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof RunSaved> }>(
    '/saved-queries/:id/run',
    {
      schema: {
        tags: ['saved queries'],
        summary: 'Run a saved query (same reply as POST /query)',
        params: IdParams,
        body: RunSaved,
        response: { ...errors(404, 422, 429, 499, 502, 503, 504) },
      },
    },
    async (request, reply) =>
      runQuery(app, request, reply, await runnable(request.params.id, request.principal!, request.body)),
  );
}
