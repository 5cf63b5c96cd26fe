import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fp from 'fastify-plugin';
import { Materializer } from '../services/materializer.js';

declare module 'fastify' {
  interface FastifyInstance {
    materializer: Materializer;
  }
}

export interface MaterializerPluginOptions {
  /** Junction's own store of materialized views; default a file in a fresh temporary directory */
  file?: string;
}

export default fp<MaterializerPluginOptions>(
  async (app, opts) => {
    const temp = opts.file ? undefined : mkdtempSync(path.join(tmpdir(), 'junction-mv-'));
    const m = new Materializer(app.junction, app.db, opts.file ?? path.join(temp!, 'materialized.db'));
    m.log = app.log;
    app.junction.onViewChanged = (schema, name) => m.viewChanged(schema, name);
    app.decorate('materializer', m);
    app.addHook('onClose', async () => {
      await m.close();
      if (temp) rmSync(temp, { recursive: true, force: true });
    });
  },
  { name: 'materializer', dependencies: ['engine', 'db'] },
);
