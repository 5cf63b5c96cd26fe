import type { FastifyInstance } from 'fastify';
import type { Principal } from '../plugins/auth.js';

type Policy = Awaited<ReturnType<FastifyInstance['junction']['accessPolicy']>>;
export type ViewRef = { name: string; createdBy: string | null; schema: { name: string } };

/**
 * Which views the caller may see: the ones their grants let them read (a designer also those
 * whose SQL their source grants cover) and the ones they created. Every listing uses it: the
 * view routes, the catalog tree, search and completion.
 */
export async function visibleViews(
  app: FastifyInstance,
  p: Principal,
  policy?: Policy,
): Promise<(v: ViewRef) => boolean> {
  const access = policy ?? (await app.junction.accessPolicy(p));
  return (v) => v.createdBy === p.userId || access.canReadView(v.schema.name, v.name);
}

/**
 * What the caller may design: `(schema)` is a design grant on the whole schema (`viewName` null
 * or '*'), which creating, renaming and deleting need; `(schema, view)` also accepts one on that
 * view, enough to change or delete it. The admin permission may design everything. Only
 * design grants count: reading a schema never lets anyone publish into it, since a view is read
 * with its definition's rights and every holder of `schema.*` would read what it exposes.
 */
export async function designRights(
  app: FastifyInstance,
  p: Principal,
): Promise<(schema: string, view?: string) => boolean> {
  if (p.permissions.has('admin')) return () => true;
  // without the design permission (a viewer, a read-scoped token) a design grant is inert
  if (!p.permissions.has('design')) return () => false;
  const grants = await app.db.grant.findMany({
    where: { privilege: 'design', viewSchema: { not: null }, OR: [{ role: p.role }, { userId: p.userId }] },
  });
  const keys = new Set(grants.map((g) => `${g.viewSchema}.${g.viewName ?? '*'}`));
  return (schema, view) => keys.has(`${schema}.*`) || (view !== undefined && keys.has(`${schema}.${view}`));
}

/**
 * Which virtual schemas the caller may see: those granted to them (a grant on the whole
 * schema, to read or to design), those holding a view they may see, and, for designers, empty
 * ones (to fill). Each comes with the views of it the caller may see.
 */
export async function visibleSchemas(app: FastifyInstance, p: Principal) {
  const policy = await app.junction.accessPolicy(p);
  const visible = await visibleViews(app, p, policy);
  const designs = await designRights(app, p);
  const schemas = await app.db.virtualSchema.findMany({
    include: { views: { orderBy: { name: 'asc' } } },
    orderBy: { name: 'asc' },
  });
  return schemas
    .map((s) => ({ ...s, visible: s.views.filter((v) => visible({ ...v, schema: { name: s.name } })) }))
    .filter(
      (s) =>
        s.visible.length > 0 ||
        policy.canReadView(s.name, '*') ||
        designs(s.name) ||
        (s.views.length === 0 && p.permissions.has('design')),
    );
}
