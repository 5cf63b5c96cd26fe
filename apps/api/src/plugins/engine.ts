import fp from 'fastify-plugin';
import {
  JunctionService,
  type ConnectorFactory,
  type EngineFactory,
  type JunctionLimits,
} from '../services/junction.js';

declare module 'fastify' {
  interface FastifyInstance {
    junction: JunctionService;
  }
}

export interface EnginePluginOptions {
  limits: JunctionLimits;
  engineFactory?: EngineFactory;
  connectorFactory?: ConnectorFactory;
}

export default fp<EnginePluginOptions>(
  async (app, opts) => {
    const service = new JunctionService(app.db, app.secrets, opts.limits, opts.engineFactory, opts.connectorFactory);
    service.log = app.log;
    app.decorate('junction', service);
    // stored limits (lib/limits.ts) apply from the first request
    app.addHook('onReady', async () => {
      await service.limitStore.load();
    });
    app.addHook('onClose', async () => {
      await service.close();
    });
  },
  { name: 'engine', dependencies: ['db', 'crypto'] },
);
