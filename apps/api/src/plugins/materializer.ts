import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fp from 'fastify-plugin';
import { JunctionError, isJunctionError } from '@junction/connectors';
import { Materializer } from '../services/materializer.js';
import { DEFAULT_MV_SCHEMA, sourceConfigFromUrl, type MvStoreChoice } from '../services/mv-store/config.js';
import { PgMvStore } from '../services/mv-store/pg-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    materializer: Materializer;
  }
}

export interface MaterializerPluginOptions {
  /** Junction's own store of materialized views; default a file in a fresh temporary directory */
  file?: string;
  /** a PostgreSQL store every replica shares (JUNCTION_MV_STORE, services/mv-store/config.ts); it wins over `file` */
  store?: MvStoreChoice;
}

export default fp<MaterializerPluginOptions>(
  async (app, opts) => {
    const choice = opts.store;
    // the store's rows are every materialized view's: the source's own readers must not see them
    if (choice && 'source' in choice) app.junction.sources.hideSchema(choice.source, choice.schema ?? DEFAULT_MV_SCHEMA);
    const temp = opts.file || choice ? undefined : mkdtempSync(path.join(tmpdir(), 'junction-mv-'));
    const m = new Materializer(
      app.junction,
      app.db,
      choice
        ? new PgMvStore({
            schema: choice.schema ?? DEFAULT_MV_SCHEMA,
            log: () => app.log,
            connection: 'url' in choice ? async () => sourceConfigFromUrl(choice.url) : () => registered(choice.source),
          })
        : (opts.file ?? path.join(temp!, 'materialized.db')),
    );
    m.log = app.log;
    /** a registered source's settings, read when the store opens (after the sources are loaded) */
    async function registered(name: string) {
      try {
        return app.junction.configOf(await app.junction.findSource(name));
      } catch (e) {
        if (isJunctionError(e) && e.kind === 'not_found')
          throw new JunctionError('materialized_store_invalid', 'user', `The materialized view store is the source "${name}" (JUNCTION_MV_STORE), and no source has that name.`, {
            cause: e,
            details: { source: name },
          });
        throw e;
      }
    }
    app.junction.onViewChanged = (schema, name) => m.viewChanged(schema, name);
    app.decorate('materializer', m);
    app.addHook('onClose', async () => {
      await m.close();
      if (temp) rmSync(temp, { recursive: true, force: true });
    });
  },
  { name: 'materializer', dependencies: ['engine', 'db'] },
);
