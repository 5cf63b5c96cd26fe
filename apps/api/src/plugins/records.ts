import fp from 'fastify-plugin';
import { RecordWriter, type RecordWriterOptions } from '../lib/record-writer.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** query history and audit rows, written in batches off the request path */
    records: RecordWriter;
  }
}

/**
 * Registered before the engine plugin: Fastify runs onClose hooks last-registered first, so the
 * engine cancels its running queries (whose history rows are then added) before this writes
 * what is left; main.ts closes the database only after app.close().
 */
export default fp<{ options?: RecordWriterOptions }>(
  async (app, opts) => {
    const writer = new RecordWriter(app.db, app.log, opts.options);
    app.decorate('records', writer);
    app.addHook('onClose', async () => {
      await writer.close();
    });
  },
  { name: 'records', dependencies: ['db'] },
);
