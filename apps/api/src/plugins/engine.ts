import { randomUUID } from 'node:crypto';
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
    // every refusal of the source gate is an audit entry: someone tried to reach a source
    service.gate.onRefusal = (r, message) => {
      void app.records
        .audit({
          id: randomUUID(),
          actorId: r.principal?.userId ?? null,
          actorName: r.principal?.username ?? null,
          action: 'source.refused',
          target: r.source,
          details: JSON.stringify({ path: r.path, code: r.code, message }),
          ip: null,
        })
        .catch((err: unknown) => app.log.error({ err }, 'could not audit a refusal'));
    };
    app.decorate('junction', service);
    // stored limits (lib/limits.ts) apply from the first request
    app.addHook('onReady', async () => {
      await service.limitStore.load();
    });
    app.addHook('onClose', async () => {
      await service.close();
    });
  },
  { name: 'engine', dependencies: ['db', 'crypto', 'records'] },
);
