import fp from 'fastify-plugin';
import { LocalBus, PgBus } from '../cluster/bus.js';
import { Cluster } from '../cluster/cluster.js';
import { replicaIdentity, Replicas } from '../cluster/replicas.js';
import { installSync } from '../cluster/sync.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the other API servers sharing the metadata database, if any (cluster/) */
    cluster: Cluster;
  }
}

export interface ClusterOptions {
  /** the PostgreSQL metadata database the servers share (DATABASE_URL) */
  databaseUrl: string;
  /** JUNCTION_REPLICA_NAME: how this server is named to people (default host:pid) */
  replicaName?: string;
  /** JUNCTION_REPLICA_URL: where this server can be reached directly (shown, never called) */
  replicaUrl?: string;
}

/**
 * With PostgreSQL metadata, this server joins the others sharing it: it listens for their
 * announcements (cluster/sync.ts applies them), announces its own changes, answers their asks
 * and writes its heartbeat. Without (SQLite, one server) the cluster is this server alone and
 * nothing runs for it. Every reply names the server that made it (x-junction-replica), which
 * tells behind a load balancer which one answered.
 */
export default fp<{ cluster?: ClusterOptions }>(
  async (app, opts) => {
    const self = replicaIdentity({ name: opts.cluster?.replicaName, url: opts.cluster?.replicaUrl });
    let cluster: Cluster;
    if (opts.cluster) {
      const bus = new PgBus({ connectionString: opts.cluster.databaseUrl, replicaId: self.id, log: app.log });
      // listening before the heartbeat: once the others count this server, it hears them
      await bus.start();
      const replicas = new Replicas(app.db, self, app.log);
      try {
        await replicas.start();
      } catch (e) {
        await bus.close();
        throw e;
      }
      cluster = new Cluster(bus, self, replicas, app.log);
      installSync(cluster, app.junction, app.principals);
      app.junction.announce = (e) => cluster.announce(e);
      app.principals.announce = (e) => cluster.announce(e);
      app.addHook('onClose', async () => {
        await replicas.close();
        await bus.close();
      });
    } else cluster = new Cluster(new LocalBus(self.id), self, undefined, app.log);
    app.decorate('cluster', cluster);
    // onSend: error replies too, whichever hook refused the request
    const name = self.name.replace(/[^\x20-\x7e]/g, '_');
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-junction-replica', name);
      return payload;
    });
  },
  { name: 'cluster', dependencies: ['db', 'engine', 'principals'] },
);
