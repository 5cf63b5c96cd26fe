import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { JunctionError } from '@junction/connectors';
import { errors } from '../lib/schemas.js';

const Counters = Type.Object({
  hits: Type.Integer(),
  misses: Type.Integer(),
  evictions: Type.Integer(),
  admissions: Type.Integer(),
  rejections: Type.Integer({ description: 'complete results too large for the budgets' }),
  invalidations: Type.Integer({ description: 'entries dropped by a purge or a change to what they read' }),
  expirations: Type.Integer(),
  entries: Type.Integer(),
  memoryBytes: Type.Integer(),
  diskBytes: Type.Integer(),
  maxMemoryBytes: Type.Integer(),
  maxDiskBytes: Type.Integer(),
});
const Entry = Type.Object({
  label: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  ageSeconds: Type.Number(),
  rows: Type.Integer(),
  bytes: Type.Integer(),
  where: Type.Union([Type.Literal('memory'), Type.Literal('disk')]),
  hits: Type.Integer(),
  sources: Type.Array(Type.String()),
  views: Type.Array(Type.String()),
});
const CacheReply = Type.Object({
  results: Type.Object({ stats: Counters, entries: Type.Array(Entry) }),
  fragments: Type.Object({ stats: Counters, entries: Type.Array(Entry) }),
});
const PurgeBody = Type.Object(
  {
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    view: Type.Optional(Type.String({ minLength: 3, maxLength: 257, pattern: '^[^.]+\\.[^.]+$', description: 'schema.name' })),
  },
  { additionalProperties: false, description: 'neither: purge everything; source or view: what read it' },
);

/** The result and fragment caches: what they hold, and purging them (admins). */
export default async function cacheRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/cache',
    {
      schema: {
        tags: ['cache'],
        summary: 'Hits, misses, bytes, entries and evictions of the result and fragment caches, with their entries',
        response: { 200: CacheReply, ...errors() },
      },
    },
    async () => {
      const engine = await app.junction.engine();
      const stats = engine.cacheStats();
      const entries = engine.cacheEntries();
      const now = Date.now();
      const out = (list: typeof entries.results) =>
        list
          .map((e) => ({
            label: e.label,
            createdAt: new Date(e.createdAt).toISOString(),
            expiresAt: new Date(e.expiresAt).toISOString(),
            ageSeconds: Math.max(0, Math.round((now - e.createdAt) / 100) / 10),
            rows: e.rows,
            bytes: e.bytes,
            where: e.where,
            hits: e.hits,
            sources: [...e.deps.sources],
            views: [...e.deps.views],
          }))
          .reverse(); // most recently used first
      return {
        results: { stats: stats.results, entries: out(entries.results) },
        fragments: { stats: stats.fragments, entries: out(entries.fragments) },
      };
    },
  );

  app.post<{ Body: Static<typeof PurgeBody> }>(
    '/cache/purge',
    {
      schema: {
        tags: ['cache'],
        summary: 'Drop cached results and fragments: all, or those that read one source or one view',
        body: PurgeBody,
        response: { 200: Type.Object({ purged: Type.Integer() }), ...errors() },
      },
    },
    async (request) => {
      const { source, view } = request.body;
      if (source && view)
        throw new JunctionError('purge_scope_ambiguous', 'user', 'Purge either a source or a view, not both (or neither to purge everything).');
      const engine = await app.junction.engine();
      let purged: number;
      if (source) purged = engine.purgeCache({ source });
      else if (view) {
        const [schema, name] = view.split('.');
        purged = engine.purgeCache({ view: { schema, name } });
      } else purged = engine.purgeCache({});
      // the other servers' caches are purged the same way before this answers (purged counts this one's)
      if (source) await app.junction.announce({ t: 'purge', source });
      else if (view) {
        const [schema, name] = view.split('.');
        await app.junction.announce({ t: 'purge', view: { schema, name } });
      } else await app.junction.announce({ t: 'purge' });
      await app.audit(request, 'cache.purge', source ?? view ?? '*', { purged });
      return { purged };
    },
  );
}
