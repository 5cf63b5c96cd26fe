import type { PrincipalCache } from '../lib/principal-cache.js';
import type { JunctionService } from '../services/junction.js';
import type { Cluster } from './cluster.js';

/**
 * How a replica applies the changes other replicas announce: it re-reads the rows they name and
 * makes its engine, access policies, caches and limits match them. After its connection to the
 * other replicas was lost it re-reads everything, since announcements made meanwhile are gone.
 */
export function installSync(cluster: Cluster, junction: JunctionService, principals: PrincipalCache): void {
  cluster.on('source', (e) => junction.sources.reload(e.name));
  cluster.on('views', () => junction.resyncViews());
  cluster.on('access', () => junction.policies.invalidate());
  cluster.on('token', (e) => principals.dropToken(e.id));
  cluster.on('session', (e) => principals.dropSession(e.id));
  cluster.on('user', (e) => principals.dropUser(e.id));
  cluster.on('limits', () => junction.limitStore.load());
  cluster.on('purge', async (e) => {
    const engine = await junction.engine();
    engine.purgeCache(e.source ? { source: e.source } : e.view ? { view: e.view } : {});
  });
  cluster.onResync(async () => {
    principals.dropAll();
    junction.policies.invalidate();
    await junction.sources.reloadAll();
    await junction.resyncViews();
    await junction.limitStore.load();
    // a purge announced meanwhile is lost too
    (await junction.engine()).purgeCache({});
  });
}
