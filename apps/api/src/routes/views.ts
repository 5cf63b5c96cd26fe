import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isJunctionError, JunctionError } from '@junction/connectors';
import { conflict, forbidden, notFound, toErrorBody } from '../lib/errors.js';
import { errors, ErrorReply, IdParams, Name, Ok } from '../lib/schemas.js';
import { jsonColumns } from '../lib/values.js';
import type { Principal } from '../plugins/auth.js';
import { STORE_SOURCE } from '../services/materializer.js';
import { disconnectSignal, recordHistory, runQuery } from './query.js';
import {
  designRights,
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
  hiddenDependants: Type.Integer({ description: 'views reading it that the caller may not see (not named)' }),
  hiddenBreaking: Type.Integer({ description: 'how many of those would stop binding' }),
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

/**
 * Views named in a reply: the ones the caller may see by name, the others only counted, so a
 * refusal or an impact report does not reveal what someone else built on a view.
 */
function namesAnd(named: readonly string[], hidden: number, separator = ', '): string {
  const unseen = hidden ? `${hidden} ${hidden === 1 ? 'view' : 'views'} you cannot see` : '';
  if (!named.length) return unseen;
  return `${named.join(separator)}${unseen ? ` and ${unseen}` : ''}`;
}
/** "Views a, b" / "Views a and 2 views you cannot see" / "2 views you cannot see" */
const readersOf = (named: readonly string[], hidden: number) =>
  named.length ? `Views ${namesAnd(named, hidden)}` : namesAnd(named, hidden);

type GrantRow = {
  role: string | null;
  userId: string | null;
  sourceName: string | null;
  viewSchema: string | null;
  viewName: string | null;
  privilege: string;
};
const grantTarget = (g: GrantRow) => g.sourceName ?? `${g.viewSchema}.${g.viewName ?? '*'}`;
const grantDetails = (g: GrantRow) => ({ role: g.role, userId: g.userId, privilege: g.privilege });

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
   * Changing or deleting a view: the admin permission, or a design grant on its schema or on it
   * for the caller or their role. Having created it is not enough: a creator whose design grant
   * was taken back could otherwise still rewrite what the schema's readers see. A view the
   * caller cannot see is 404, as when reading it.
   */
  async function assertEditable(p: Principal, v: ViewRef & { id: string }) {
    if (p.permissions.has('admin')) return;
    if (!(await visibleViews(p))(v)) throw notFound('view', v.id);
    if (!(await designRights(app, p))(v.schema.name, v.name))
      throw forbidden(
        `Changing ${v.schema.name}.${v.name} takes a design grant on "${v.schema.name}" or on the view (or the admin permission).`,
      );
  }

  /**
   * Schema names the engine would confuse with something else: a source's (case-insensitively,
   * as unquoted names resolve) and Junction's store of materialized views, whose name a view's
   * SQL could no longer tell apart from the store.
   */
  async function assertSchemaName(name: string) {
    if (name.toLowerCase() === STORE_SOURCE)
      throw conflict(
        'name_reserved',
        `"${name}" is the name of Junction's store of materialized views; a virtual schema needs another.`,
      );
    const sources = await app.db.source.findMany({ select: { name: true } });
    if (sources.some((x) => x.name.toLowerCase() === name.toLowerCase()))
      throw conflict('name_taken', `"${name}" is a source name; a virtual schema needs another.`);
    if (await app.db.virtualSchema.findUnique({ where: { name } }))
      throw conflict('schema_exists', `A virtual schema named "${name}" already exists.`);
  }

  /**
   * Removes grants on an object that goes away (or on one about to be created under a name an
   * older object had): a grant must not reach a later object of the same name.
   */
  async function dropGrants(
    request: Parameters<typeof app.audit>[0],
    where: { viewSchema: string; viewName?: string },
    reason: string,
  ) {
    const stale = await app.db.grant.findMany({ where });
    if (!stale.length) return;
    await app.db.grant.deleteMany({ where: { id: { in: stale.map((g) => g.id) } } });
    await app.junction.invalidateAccess();
    for (const g of stale) await app.audit(request, 'grant.delete', grantTarget(g), { ...grantDetails(g), reason });
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
      const p = request.principal!;
      const { name, description } = request.body;
      await assertSchemaName(name);
      // grants left by an earlier schema of this name (from before deleting took them along)
      await dropGrants(request, { viewSchema: name }, 'stale');
      const s = await app.db.virtualSchema.create({
        data: { id: randomUUID(), name, description: description ?? null },
      });
      await app.audit(request, 'schema.create', s.name);
      // views need a design grant on their schema: its creator gets one, or they could not fill it
      if (!p.permissions.has('admin')) {
        const g = await app.db.grant.create({
          data: { id: randomUUID(), userId: p.userId, viewSchema: s.name, viewName: null, privilege: 'design' },
        });
        await app.junction.invalidateAccess();
        await app.audit(request, 'grant.create', grantTarget(g), { ...grantDetails(g), reason: 'schema.create' });
      }
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
      const p = request.principal!;
      const s = (await visibleSchemas(p)).find((x) => x.id === request.params.id);
      if (!s) throw notFound('schema', request.params.id);
      // its grants follow it: renaming moves what every grantee reads, so it is the designer's
      if (!(await designRights(app, p))(s.name))
        throw forbidden(`Renaming "${s.name}" takes a design grant on it (or the admin permission).`);
      const { name } = request.body;
      if (name !== s.name) {
        await assertSchemaName(name);
        const visible = await visibleViews(p);
        // a view naming one of these views in its SQL would stop binding: it is changed first
        const readers: string[] = [];
        let hidden = 0;
        for (const o of await app.db.view.findMany({ include: { schema: true }, orderBy: { name: 'asc' } }))
          if ((await readsOf(o.sql)).some((r) => s.views.some((v) => sameView(r, { name: v.name, schema: s })))) {
            if (visible(o)) readers.push(`${o.schema.name}.${o.name}`);
            else hidden++;
          }
        if (readers.length || hidden)
          throw conflict(
            'schema_in_use',
            `${readersOf(readers, hidden)} read views of "${s.name}" by name; change them before renaming it.`,
          );
        // stored rows are kept under the view's qualified name: they would stay behind
        await app.materializer.ready();
        const stored = new Set(app.materializer.list().map((m) => m.view));
        const materialized = s.views.filter((v) => stored.has(`${s.name}.${v.name}`));
        if (materialized.length) {
          const shown = materialized.filter((v) => visible({ ...v, schema: s })).map((v) => `${s.name}.${v.name}`);
          throw conflict(
            'schema_materialized',
            `${readersOf(shown, materialized.length - shown.length)} of "${s.name}" are materialized; stop materializing them before renaming it.`,
          );
        }
        await app.db.$transaction([
          app.db.virtualSchema.update({ where: { id: s.id }, data: { name } }),
          app.db.grant.updateMany({ where: { viewSchema: s.name }, data: { viewSchema: name } }),
        ]);
        await app.junction.invalidateAccess();
        for (const v of s.views) {
          await app.junction.dropView(s.name, v.name);
          await app.junction.setView(name, v.name, v.sql);
        }
        await app.junction.viewsChanged();
        await app.audit(request, 'schema.rename', s.name, { name });
      }
      return { id: s.id, name, description: s.description, views: s.visibleViews };
    },
  );

  app.delete<{ Params: Static<typeof IdParams> }>(
    '/schemas/:id',
    { schema: { tags: ['views'], params: IdParams, response: { 200: Ok, ...errors(404, 409) } } },
    async (request) => {
      const p = request.principal!;
      const s = (await visibleSchemas(p)).find((x) => x.id === request.params.id);
      if (!s) throw notFound('schema', request.params.id);
      if (!(await designRights(app, p))(s.name))
        throw forbidden(`Deleting "${s.name}" takes a design grant on it (or the admin permission).`);
      if (s.views.length)
        throw conflict('schema_not_empty', `Schema "${s.name}" still has ${s.views.length} views; delete them first.`);
      await app.db.virtualSchema.delete({ where: { id: s.id } });
      await app.audit(request, 'schema.delete', s.name);
      await dropGrants(request, { viewSchema: s.name }, 'schema.delete');
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
        response: { 200: Validation, ...errors(499) },
      },
    },
    async (request, reply) => {
      // As describe(), but a run of the caller's: listed while it runs, cancellable by them or an
      // admin, stopped when the client goes away, and in their history. LIMIT 0 does not keep
      // every source idle: a scalar subquery runs to the end before the first row.
      const p = request.principal!;
      const queryId = randomUUID();
      const sql = `SELECT * FROM (${request.body.sql.trim().replace(/;+\s*$/, '')}) AS junction_view LIMIT 0`;
      const started = Date.now();
      try {
        const run = await app.junction.startQuery(p, sql, {
          signal: disconnectSignal(reply),
          timeoutMs: 60_000,
          queryId,
        });
        let columns: ReturnType<typeof jsonColumns>;
        try {
          columns = jsonColumns(run.result.columns);
          for await (const _ of run.result.rows) void _;
        } finally {
          run.release();
        }
        await recordHistory(app, p, { queryId, sql, started, rows: 0 });
        return { ok: true, columns };
      } catch (e) {
        await recordHistory(app, p, { queryId, sql, started, error: e });
        // a cancelled check is no verdict on the SQL
        if (!isJunctionError(e) || e.kind === 'internal' || e.kind === 'cancelled') throw e;
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
      // every reader of the schema reads a new view with its definition's rights: publishing
      if (!(await designRights(app, request.principal!))(schema.name))
        throw forbidden(`Creating views in "${schema.name}" takes a design grant on it (or the admin permission).`);
      if (await app.db.view.findUnique({ where: { schemaId_name: { schemaId: schema.id, name: b.name } } }))
        throw conflict('view_exists', `View ${b.schema}.${b.name} already exists.`);
      const columns = await describe(request.principal!, b.sql);
      await dropGrants(request, { viewSchema: schema.name, viewName: b.name }, 'stale');
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
      await app.junction.viewsChanged();
      await app.audit(request, 'view.create', `${v.schema.name}.${v.name}`);
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
        if ((broken.length > 0 || impact.hiddenBreaking > 0) && !b.confirmBreaking)
          throw new JunctionError(
            'dependants_break',
            'conflict',
            `Saving breaks ${namesAnd(
              broken.map((d) => `${d.schema}.${d.name} (${d.reason})`),
              impact.hiddenBreaking,
              '; ',
            )}. Review the change and confirm to save anyway.`,
            { details: { dependants: broken, hidden: impact.hiddenBreaking } },
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
      if (columns !== undefined) await app.junction.viewsChanged();
      await app.audit(request, 'view.update', `${v.schema.name}.${v.name}`, {
        changed: (['sql', 'layout', 'description'] as const).filter((k) => b[k] !== undefined),
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
      const visible = await visibleViews(request.principal!);
      const others = (await app.db.view.findMany({ include: { schema: true }, orderBy: { name: 'asc' } })).filter(
        (o) => o.id !== v.id,
      );
      const dependents: typeof others = [];
      for (const o of others) if ((await readsOf(o.sql)).some((r) => sameView(r, v))) dependents.push(o);
      if (dependents.length) {
        const named = dependents.filter(visible).map((d) => `${d.schema.name}.${d.name}`);
        throw conflict(
          'view_in_use',
          `${readersOf(named, dependents.length - named.length)} read ${v.schema.name}.${v.name}; change them first.`,
        );
      }
      await app.junction.dropView(v.schema.name, v.name);
      await app.db.view.delete({ where: { id: v.id } });
      await app.junction.viewsChanged();
      await app.audit(request, 'view.delete', `${v.schema.name}.${v.name}`);
      await dropGrants(request, { viewSchema: v.schema.name, viewName: v.name }, 'view.delete');
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
    const visible = await visibleViews(p);
    let hiddenDependants = 0;
    let hiddenBreaking = 0;
    for (const o of await app.db.view.findMany({ include: { schema: true }, orderBy: { name: 'asc' } })) {
      if (o.id === v.id) continue;
      if (!(await readsOf(o.sql)).some((r) => sameView(r, v))) continue;
      const words = wordsOf(o.sql);
      const lost = removed.filter((n) => words.has(n.toLowerCase()));
      if (!visible(o)) {
        hiddenDependants++;
        if (lost.length > 0) hiddenBreaking++;
        continue;
      }
      dependants.push({
        id: o.id,
        schema: o.schema.name,
        name: o.name,
        breaks: lost.length > 0,
        ...(lost.length > 0 ? { reason: `reads ${lost.join(', ')}, which the new version no longer has` } : {}),
      });
    }
    return { columns, removed, changed, dependants, hiddenDependants, hiddenBreaking };
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
