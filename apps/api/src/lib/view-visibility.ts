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
 * Which virtual schemas the caller may see: those granted to them (a grant on the whole
 * schema), those holding a view they may see, and, for designers, empty ones (to fill).
 * Each comes with the views of it the caller may see.
 */
export async function visibleSchemas(app: FastifyInstance, p: Principal) {
  const policy = await app.junction.accessPolicy(p);
  const visible = await visibleViews(app, p, policy);
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
        (s.views.length === 0 && p.permissions.has('design')),
    );
}
