import fp from 'fastify-plugin';
import type { Db } from '../db/client.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
  }
}

/** The metadata client, opened (and migrated) by the caller so tests choose SQLite or PostgreSQL. */
export default fp<{ db: Db }>(
  async (app, opts) => {
    app.decorate('db', opts.db);
  },
  { name: 'db' },
);
