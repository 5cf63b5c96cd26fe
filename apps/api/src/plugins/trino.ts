import fp from 'fastify-plugin';
import type { TrinoBackendSettings } from '../services/trino-backend.js';
import { TrinoService } from '../services/trino-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the Trino backend (JUNCTION_TRINO_URL), or null when none is configured */
    trino: TrinoService | null;
  }
}

export interface TrinoPluginOptions {
  settings?: TrinoBackendSettings;
}

/**
 * The Trino execution backend, when configured. Connecting is left to whoever starts the server
 * (main.ts calls start() after the sources are registered): a Trino that is down or slow never
 * holds up the studio.
 */
export default fp<TrinoPluginOptions>(
  async (app, opts) => {
    const service = opts.settings ? new TrinoService(app.junction, opts.settings, () => app.log) : null;
    app.decorate('trino', service);
    if (service) app.addHook('onClose', () => service.close());
  },
  { name: 'trino', dependencies: ['engine'] },
);
