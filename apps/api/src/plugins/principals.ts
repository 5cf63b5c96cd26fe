import fp from 'fastify-plugin';
import { PrincipalCache } from '../lib/principal-cache.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** tokens and sessions, cached briefly (lib/principal-cache.ts) */
    principals: PrincipalCache;
  }
}

export default fp<{ ttlMs?: number }>(
  async (app, opts) => {
    app.decorate('principals', new PrincipalCache(app.db, opts.ttlMs));
  },
  { name: 'principals', dependencies: ['db'] },
);
