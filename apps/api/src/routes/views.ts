import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isJunctionError, JunctionError } from '@junction/connectors';
import { conflict, forbidden, notFound, toErrorBody } from '../lib/errors.js';
import { errors, ErrorReply, IdParams, Name, Ok } from '../lib/schemas.js';
import { jsonColumns } from '../lib/values.js';
import type { Principal } from '../plugins/auth.js';
import { runQuery } from './query.js';
import {
  visibleSchemas as visibleSchemasOf,
  visibleViews as visibleViewsOf,
  type ViewRef as ViewRefOf,
} from '../lib/view-visibility.js';

const Column = Type.Object({ name: Type.String(), type: Type.String(), nullable: Type.Boolean() });
const VSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  views: Type.Integer(),
});
const View = Type.Object({
  id: Type.String(),
  schema: Type.String(),
  name: Type.String(),
  sql: Type.String(),
  layout: Type.Union([Type.Unknown(), Type.Null()]),
  columns: Type.Union([Type.Array(Column), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const Sql = Type.String({ minLength: 1, maxLength: 1_000_000 });
const Layout = Type.Unknown({ description: 'the designer canvas, stored as given (JSON)' });
const CreateView = Type.Object(
  {
    schema: Name,
    name: Name,
    sql: Sql,
    layout: Type.Optional(Layout),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  { additionalProperties: false },
);
const UpdateView = Type.Object(
  {
    sql: Type.Optional(Sql),
    /** save even though views reading this one lose columns they use (see POST /views/:id/impact) */
    confirmBreaking: Type.Optional(Type.Boolean()),
    layout: Type.Optional(Layout),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
const Validation = Type.Object({
  ok: Type.Boolean(),
  columns: Type.Optional(Type.Array(Column)),
  error: Type.Optional(ErrorReply),
});
const Impact = Type.Object({
  columns: Type.Array(Column),
  removed: Type.Array(Type.String()),
  changed: Type.Array(Type.Object({ name: Type.String(), from: Type.String(), to: Type.String() })),
  dependants: Type.Array(
    Type.Object({
      id: Type.String(),
      schema: Type.String(),
      name: Type.String(),
      breaks: Type.Boolean(),
      reason: Type.Optional(Type.String()),
    }),
  ),
});
const Graph = Type.Object({
  nodes: Type.Array(
    Type.Object({
      id: Type.String(),
      kind: Type.Union([Type.Literal('source'), Type.Literal('view')]),
      label: Type.String(),
    }),
  ),
  edges: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
});

type ViewRow = {
  id: string;
  name: string;
  sql: string;
  layout: string | null;
  columns: string | null;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
  schema: { name: string };
};
const viewOut = (v: ViewRow) => ({
  id: v.id,
  schema: v.schema.name,
  name: v.name,
  sql: v.sql,
  layout: v.layout ? JSON.parse(v.layout) : null,
  columns: v.columns ? JSON.parse(v.columns) : null,
  description: v.description,
  createdAt: v.createdAt.toISOString(),
  updatedAt: v.updatedAt.toISOString(),
});

/**
 * Names a view's SQL refers to as `<schema>.<name>` (sources and virtual schemas), outside
 * string literals and comments: read off the text for a view that no longer binds (a source
 * or view it reads is gone), where the engine cannot say.
 */
export function referencedNames(sql: string): { qualifier: string; name: string }[] {
  const stripped = sql
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ');
  const out: { qualifier: string; name: string }[] = [];
  const re = /("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)\s*\.\s*("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)/g;
  for (const m of stripped.matchAll(re)) {
    const unq = (s: string) => (s.startsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s);
    out.push({ qualifier: unq(m[1]), name: unq(m[2]) });
  }
  return out;
}

/**
 * Whether a name read off a view's SQL is view `v`. Unquoted names match case-insensitively,
 * and a view that no longer binds is read off its text as written (SALES.Good_Customers).
 */
function sameView(r: { qualifier: string; name: string }, v: { name: string; schema: { name: string } }): boolean {
  return r.qualifier.toLowerCase() === v.schema.name.toLowerCase() && r.name.toLowerCase() === v.name.toLowerCase();
}

/** Names a SQL text uses as words (lower-cased), outside string literals and comments. */
function wordsOf(sql: string): Set<string> {
  const stripped = sql
    .replace(/'(?:[^']|'')*'/g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ');
  const out = new Set<string>();
  for (const m of stripped.matchAll(/"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_$]*)/g))
    out.add((m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!).toLowerCase());
  return out;
}

export default async function viewRoutes(app: FastifyInstance): Promise<void> {
  /** What a view reads, as `<source or schema>.<table or view>`: the engine's binding, or the text's names when it fails. */
  async function readsOf(sql: string): Promise<{ qualifier: string; name: string }[]> {
    try {
      return (await app.junction.references(sql)).map((r) =>
        r.kind === 'view' ? { qualifier: r.schema, name: r.name } : { qualifier: r.source, name: r.table },
      );
    } catch {
      return referencedNames(sql);
    }
  }

  type ViewRef = ViewRefOf & { id?: string };
  const visibleViews = (p: Principal, policy?: Awaited<ReturnType<typeof app.junction.accessPolicy>>) =>
    visibleViewsOf(app, p, policy);
  const visibleSchemas = async (p: Principal) =>
    (await visibleSchemasOf(app, p)).map((s) => ({ ...s, visibleViews: s.visible.length }));

  /**
   * Changing a view: its creator, the admin permission, or a design grant on its schema (or on
   * it) for the caller or their role. A view the caller cannot see is 404, as when reading it.
   */
  async function assertEditable(p: Principal, v: ViewRef & { id: string }) {
    if (v.createdBy === p.userId || p.permissions.has('admin')) return;
    if (!(await visibleViews(p))(v)) throw notFound('view', v.id);
    const grant = await app.db.grant.findFirst({
      where: {
        privilege: 'design',
        viewSchema: v.schema.name,
        AND: [{ OR: [{ viewName: null }, { viewName: v.name }] }, { OR: [{ role: p.role }, { userId: p.userId }] }],
      },
    });
    if (!grant)
      throw forbidden(
        `Only the creator of ${v.schema.name}.${v.name}, an admin, or a holder of a design grant on it may change it.`,
      );
  }

  /** Plans the SQL with the caller's grants and reads its output columns; LIMIT 0 keeps sources idle. */
  async function describe(p: Principal, sql: string) {
    const body = sql.trim().replace(/;+\s*$/, '');
    const ac = new AbortController();
    const run = await app.junction.startQuery(p, `SELECT * FROM (${body}) AS junction_view LIMIT 0`, {
      signal: ac.signal,
      timeoutMs: 60_000,
    });
    try {
      const columns = jsonColumns(run.result.columns);
      for await (const _ of run.result.rows) void _;
      return columns;
    } finally {
      run.release();
    }
  }

  app.get(
    '/schemas',
    {
      schema: { tags: ['views'], summary: 'Virtual schemas', response: { 200: Type.Array(VSchema), ...errors() } },
    },
    async (request) =>
      // counts are of the views the caller may see
      (await visibleSchemas(request.principal!)).map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        views: s.visibleViews,
      })),
  );

  app.post<{ Body: { name: string; description?: string } }>(
    '/schemas',
    {
      schema: {
        tags: ['views'],
        body: Type.Object(
          { name: Name, description: Type.Optional(Type.String({ maxLength: 5000 })) },
          { additionalProperties: false },
        ),
        response: { 201: VSchema, ...errors(409) },
      },
    },
    async (request, reply) => {
      const { name, description } = request.body;
      if (await app.db.source.findUnique({ where: { name } }))
        throw conflict('name_taken', `"${name}" is a source name; a virtual schema needs another.`);
      if (await app.db.virtualSchema.findUnique({ where: { name } }))
        throw conflict('schema_exists', `A virtual schema named "${name}" already exists.`);
      const s = await app.db.virtualSchema.create({
        data: { id: randomUUID(), name, description: description ?? null },
      });
      return reply.status(201).send({ id: s.id, name: s.name, description: s.description, views: 0 });
    },
  );

  app.patch<{ Params: Static<typeof IdParams>; Body: { name: string } }>(
    '/schemas/:id',
    {
      schema: {
        tags: ['views'],
        summary: 'Rename a virtual schema (its views and grants follow)',
        params: IdParams,
        body: Type.Object({ name: Name }, { additionalProperties: false }),
        response: { 200: VSchema, ...errors(404, 409) },
      },
    },
    async (request) => {
      const s = (await visibleSchemas(request.principal!)).find((x) => x.id === request.params.id);
      if (!s) throw notFound('schema', request.params.id);
      const { name } = request.body;
      if (name !== s.name) {
        if (await app.db.source.findUnique({ where: { name } }))
          throw conflict('name_taken', `"${name}" is a source name; a virtual schema needs another.`);
        if (await app.db.virtualSchema.findUnique({ where: { name } }))
          throw conflict('schema_exists', `A virtual schema named "${name}" already exists.`);
        // a view naming one of these views in its SQL would stop binding: it is changed first
        const readers: string[] = [];
        for (const o of await app.db.view.findMany({ include: { schema: true }, orderBy: { name: 'asc' } }))
          if ((await readsOf(o.sql)).some((r) => s.views.some((v) => sameView(r, { name: v.name, schema: s }))))
            readers.push(`${o.schema.name}.${o.name}`);
        if (readers.length)
          throw conflict(
            'schema_in_use',
            `Views ${readers.join(', ')} read views of "${s.name}" by name; change them before renaming it.`,
          );
        await app.db.$transaction([
          app.db.virtualSchema.update({ where: { id: s.id }, data: { name } }),
          app.db.grant.updateMany({ where: { viewSchema: s.name }, data: { viewSchema: name } }),
        ]);
        for (const v of s.views) {
          await app.junction.dropView(s.name, v.name);
          await app.junction.setView(name, v.name, v.sql);
        }
      }
      return { id: s.id, name, description: s.description, views: s.visibleViews };
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/schemas/:id',
    { schema: { tags: ['views'], params: IdParams, response: { 200: Ok, ...errors(404, 409) } } },
    async (request) => {
      const s = await app.db.virtualSchema.findUnique({ where: { id: request.params.id }, include: { views: true } });
      if (!s) throw notFound('schema', request.params.id);
      if (s.views.length)
        throw conflict('schema_not_empty', `Schema "${s.name}" still has ${s.views.length} views; delete them first.`);
      await app.db.virtualSchema.delete({ where: { id: s.id } });
      return { ok: true };
    },
  );

  app.get(
    '/views',
    { schema: { tags: ['views'], response: { 200: Type.Array(View), ...errors() } } },
    async (request) => {
      const visible = await visibleViews(request.principal!);
      const rows = await app.db.view.findMany({
        include: { schema: true },
        orderBy: [{ schemaId: 'asc' }, { name: 'asc' }],
      });
      return rows.filter(visible).map(viewOut);
    },
  );

  app.get<{ Params: Static<typeof IdParams> }>(
    '/views/:id',
    { schema: { tags: ['views'], params: IdParams, response: { 200: View, ...errors(404) } } },
    async (request) => {
      const v = await app.db.view.findUnique({ where: { id: request.params.id }, include: { schema: true } });
      if (!v || !(await visibleViews(request.principal!))(v)) throw notFound('view', request.params.id);
      return viewOut(v);
    },
  );

  app.post<{ Body: { sql: string } }>(
    '/views/validate',
    {
      schema: {
        tags: ['views'],
        summary: 'Check view SQL and report its columns, without saving',
        body: Type.Object({ sql: Sql }, { additionalProperties: false }),
        response: { 200: Validation, ...errors() },
      },
    },
    async (request) => {
      try {
        return { ok: true, columns: await describe(request.principal!, request.body.sql) };
      } catch (e) {
        if (!isJunctionError(e) || e.kind === 'internal') throw e;
        return { ok: false, error: toErrorBody(e).body };
      }
    },
  );

  app.post<{ Body: Static<typeof CreateView> }>(
    '/views',
    {
      schema: { tags: ['views'], body: CreateView, response: { 201: View, ...errors(404, 409, 422, 429) } },
    },
    async (request, reply) => {
      const b = request.body;
      // a schema the caller may not see is not there for them, as in GET /schemas
      const schema = (await visibleSchemas(request.principal!)).find((s) => s.name === b.schema);
      if (!schema) throw notFound('schema', b.schema);
      if (await app.db.view.findUnique({ where: { schemaId_name: { schemaId: schema.id, name: b.name } } }))
        throw conflict('view_exists', `View ${b.schema}.${b.name} already exists.`);
      const columns = await describe(request.principal!, b.sql);
      await app.junction.setView(b.schema, b.name, b.sql);
      const v = await app.db.view.create({
        data: {
          id: randomUUID(),
          schemaId: schema.id,
          name: b.name,
          sql: b.sql,
          layout: b.layout !== undefined ? JSON.stringify(b.layout) : null,
          columns: JSON.stringify(columns),
          description: b.description ?? null,
          createdBy: request.principal!.userId,
        },
        include: { schema: true },
      });
      return reply.status(201).send(viewOut(v));
    },
  );

  app.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateView> }>(
    '/views/:id',
    {
      schema: {
        tags: ['views'],
        params: IdParams,
        body: UpdateView,
        response: { 200: View, ...errors(404, 422, 429) },
      },
    },
    async (request) => {
      const v = await app.db.view.findUnique({ where: { id: request.params.id }, include: { schema: true } });
      if (!v) throw notFound('view', request.params.id);
      await assertEditable(request.principal!, v);
      const b = request.body;
      let columns: string | undefined;
      if (b.sql !== undefined && b.sql !== v.sql) {
        const impact = await impactOf(request.principal!, v, b.sql);
        const broken = impact.dependants.filter((d) => d.breaks);
        if (broken.length > 0 && !b.confirmBreaking)
          throw new JunctionError(
            'dependants_break',
            'conflict',
            `Saving breaks ${broken.map((d) => `${d.schema}.${d.name} (${d.reason})`).join('; ')}. ` +
              'Review the change and confirm to save anyway.',
            { details: { dependants: broken } },
          );
        columns = JSON.stringify(impact.columns);
        await app.junction.setView(v.schema.name, v.name, b.sql);
      }
      const updated = await app.db.view.update({
        where: { id: v.id },
        data: {
          ...(b.sql !== undefined ? { sql: b.sql } : {}),
          ...(columns !== undefined ? { columns } : {}),
          ...(b.layout !== undefined ? { layout: JSON.stringify(b.layout) } : {}),
          ...(b.description !== undefined ? { description: b.description } : {}),
        },
        include: { schema: true },
      });
      return viewOut(updated);
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/views/:id',
    { schema: { tags: ['views'], params: IdParams, response: { 200: Ok, ...errors(404, 409) } } },
    async (request) => {
      const v = await app.db.view.findUnique({ where: { id: request.params.id }, include: { schema: true } });
      if (!v) throw notFound('view', request.params.id);
      await assertEditable(request.principal!, v);
      const others = (await app.db.view.findMany({ include: { schema: true } })).filter((o) => o.id !== v.id);
      const dependents: typeof others = [];
      for (const o of others) if ((await readsOf(o.sql)).some((r) => sameView(r, v))) dependents.push(o);
      if (dependents.length)
        throw conflict(
          'view_in_use',
          `Views ${dependents.map((d) => `${d.schema.name}.${d.name}`).join(', ')} read ${v.schema.name}.${v.name}; change them first.`,
        );
      await app.junction.dropView(v.schema.name, v.name);
      await app.db.view.delete({ where: { id: v.id } });
      return { ok: true };
    },
  );

  type Column = Static<typeof Column>;
  /**
   * What saving `sql` as view `v` does to the views reading it: the columns it would lose or
   * retype, and each dependant that names a lost column (it would stop binding). A dependant
   * reading `*` keeps binding but its own columns change; it is listed, not counted as broken.
   */
  async function impactOf(
    p: Principal,
    v: { id: string; name: string; columns: string | null; schema: { name: string } },
    sql: string,
  ) {
    const columns = (await describe(p, sql)) as Column[];
    const before = (v.columns ? JSON.parse(v.columns) : []) as Column[];
    const after = new Map(columns.map((c) => [c.name.toLowerCase(), c]));
    const removed = before.filter((c) => !after.has(c.name.toLowerCase())).map((c) => c.name);
    const changed = before.flatMap((c) => {
      const now = after.get(c.name.toLowerCase());
      return now && now.type !== c.type ? [{ name: c.name, from: c.type, to: now.type }] : [];
    });
    const dependants: Static<typeof Impact>['dependants'] = [];
    for (const o of await app.db.view.findMany({ include: { schema: true }, orderBy: { name: 'asc' } })) {
      if (o.id === v.id) continue;
      if (!(await readsOf(o.sql)).some((r) => sameView(r, v))) continue;
      const words = wordsOf(o.sql);
      const lost = removed.filter((n) => words.has(n.toLowerCase()));
      dependants.push({
        id: o.id,
        schema: o.schema.name,
        name: o.name,
        breaks: lost.length > 0,
        ...(lost.length > 0 ? { reason: `reads ${lost.join(', ')}, which the new version no longer has` } : {}),
      });
    }
    return { columns, removed, changed, dependants };
  }

  app.post<{ Params: Static<typeof IdParams>; Body: { sql: string } }>(
    '/views/:id/impact',
    {
      schema: {
        tags: ['views'],
        summary: 'What changing a view to this SQL does to the views that read it, without saving',
        params: IdParams,
        body: Type.Object({ sql: Sql }, { additionalProperties: false }),
        response: { 200: Impact, ...errors(404, 422, 429) },
      },
    },
    async (request) => {
      const v = await app.db.view.findUnique({ where: { id: request.params.id }, include: { schema: true } });
      if (!v || !(await visibleViews(request.principal!))(v)) throw notFound('view', request.params.id);
      return impactOf(request.principal!, v, request.body.sql);
    },
  );

  app.get(
    '/views/graph',
    {
      schema: {
        tags: ['views'],
        summary: 'Which views read which sources and views',
        response: { 200: Graph, ...errors() },
      },
    },
    async (request) => {
      // only what the caller may see: granted sources, visible views, edges between them
      const policy = await app.junction.accessPolicy(request.principal!);
      const visible = await visibleViews(request.principal!, policy);
      const sources = (await app.db.source.findMany({ select: { name: true } })).filter((s) =>
        policy.canReadSource(s.name),
      );
      const views = (await app.db.view.findMany({ include: { schema: true } })).filter(visible);
      const sourceNames = new Set(sources.map((s) => s.name));
      const viewIds = new Map(views.map((v) => [`${v.schema.name}.${v.name}`, `view:${v.schema.name}.${v.name}`]));
      const nodes = [
        ...sources.map((s) => ({ id: `source:${s.name}`, kind: 'source' as const, label: s.name })),
        ...views.map((v) => ({
          id: `view:${v.schema.name}.${v.name}`,
          kind: 'view' as const,
          label: `${v.schema.name}.${v.name}`,
        })),
      ];
      const edges = new Map<string, { from: string; to: string }>();
      for (const v of views) {
        const to = `view:${v.schema.name}.${v.name}`;
        for (const r of await readsOf(v.sql)) {
          const from =
            viewIds.get(`${r.qualifier}.${r.name}`) ??
            (sourceNames.has(r.qualifier) ? `source:${r.qualifier}` : undefined);
          if (from && from !== to) edges.set(`${from}>${to}`, { from, to });
        }
      }
      return { nodes, edges: [...edges.values()] };
    },
  );

  app.post<{ Params: Static<typeof IdParams>; Body: { maxRows?: number; queryId?: string } }>(
    '/views/:id/run',
    {
      schema: {
        tags: ['views'],
        summary: 'SELECT * from a view (same reply as POST /query)',
        params: IdParams,
        body: Type.Object(
          {
            maxRows: Type.Optional(Type.Integer({ minimum: 1 })),
            queryId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' })),
          },
          { additionalProperties: false },
        ),
        response: { ...errors(404, 429, 499, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const v = await app.db.view.findUnique({ where: { id: request.params.id }, include: { schema: true } });
      if (!v) throw notFound('view', request.params.id);
      // names are validated identifiers ([A-Za-z_][A-Za-z0-9_]*), so quoting them is exact
      return runQuery(app, request, reply, {
        sql: `SELECT * FROM "${v.schema.name}"."${v.name}"`,
        maxRows: request.body?.maxRows,
        queryId: request.body?.queryId,
      });
    },
  );
}
