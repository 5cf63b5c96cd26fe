import type { AccessPolicy } from '@junction/query-core';
import type { Db } from '../db/client.js';
import type { Principal } from '../plugins/auth.js';
import { STORE_SOURCE } from './internal-sources.js';
import type { EngineLike } from './junction.js';

/** how long an access policy read from the grants is reused for the same caller */
const POLICY_TTL_MS = 500;

/**
 * What a principal may read, from the grants: per source and per view (a view's grant covers
 * what it reads), and who may send a source its own SQL. The engine checks the policy while
 * binding; the source gate asks it before native SQL and probes.
 */
export class AccessPolicies {
  /** access policies of recent callers (of) */
  readonly #policies = new Map<string, { at: number; policy: Promise<AccessPolicy> }>();

  constructor(
    private readonly db: Db,
    private readonly engine: () => Promise<EngineLike>,
  ) {}

  /**
   * Grants decide per source and per view; an admin may read everything. Loaded once per query.
   * The policy's key names its decisions (engine plans bound under one key are reused under it,
   * instead of parsing and binding every query again): 'all' for admins, else the granted
   * sources and views and the views derived from them.
   */
  async of(p: Principal): Promise<AccessPolicy> {
    if (p.role === 'admin') return { key: 'all', canReadSource: () => true, canReadView: () => true };
    // Kept for POLICY_TTL_MS per caller, so a program's stream of queries does not read the
    // grants (and, for designers, plan every stored view) before each one. Changing grants,
    // views or sources forgets them at once (invalidate); another server sharing the
    // metadata database sees a grant change within the TTL.
    const key = `${p.role}\u0000${p.userId}\u0000${p.permissions.has('design') ? 'd' : ''}`;
    const hit = this.#policies.get(key);
    if (hit && Date.now() - hit.at < POLICY_TTL_MS) return hit.policy;
    if (this.#policies.size >= 10_000) this.#policies.clear();
    const policy = this.#loadPolicy(p);
    this.#policies.set(key, { at: Date.now(), policy });
    policy.catch(() => this.#policies.delete(key));
    return policy;
  }

  /**
   * Native SQL is a privilege of its own: the admin permission, or a `native` grant naming the
   * source (never `*`) held by the user or their role, used with a session or a token that may
   * run ad hoc SQL.
   */
  async mayRunNative(p: Principal, source: string): Promise<boolean> {
    if (p.permissions.has('admin')) return true;
    if (!p.permissions.has('query')) return false;
    const g = await this.db.grant.findFirst({
      where: { sourceName: source, privilege: 'native', OR: [{ role: p.role }, { userId: p.userId }] },
    });
    return g !== null;
  }

  /** After grants, views or sources changed: the next query of everyone reads them again. */
  invalidate(): void {
    this.#policies.clear();
  }

  async #loadPolicy(p: Principal): Promise<AccessPolicy> {
    const grants = await this.db.grant.findMany({ where: { OR: [{ role: p.role }, { userId: p.userId }] } });
    const sources = new Set(grants.filter((g) => g.sourceName).map((g) => g.sourceName as string));
    // a design grant lets its holder change views, not read them (views read with their definer's rights)
    const views = new Set(
      grants.filter((g) => g.viewSchema && g.privilege === 'read').map((g) => `${g.viewSchema}.${g.viewName ?? '*'}`),
    );
    const granted = (schema: string, view: string) => views.has(`${schema}.${view}`) || views.has(`${schema}.*`);
    // A view's grant covers what it reads, so a designer gets no grant for free: they may read
    // a view only when their own grants would let them run its SQL. Planning (EXPLAIN without
    // ANALYZE) decides that exactly, without contacting any source.
    const derived = new Set<string>();
    const policy: AccessPolicy = {
      // the store of materialized views holds every view's rows: reached only through the views
      canReadSource: (s) => sources.has(s) || (sources.has('*') && s.toLowerCase() !== STORE_SOURCE),
      canReadView: (schema, view) => granted(schema, view) || derived.has(`${schema}.${view}`),
    };
    const keyed = () => ({
      ...policy,
      key: JSON.stringify([[...sources].sort(), [...views].sort(), [...derived].sort()]),
    });
    if (!p.permissions.has('design')) return keyed();
    const stored = await this.db.view.findMany({ include: { schema: true }, orderBy: { createdAt: 'asc' } });
    if (stored.length === 0) return keyed();
    const engine = await this.engine();
    for (const v of stored) {
      if (granted(v.schema.name, v.name)) continue;
      try {
        await engine.explain(v.sql, { access: policy });
        derived.add(`${v.schema.name}.${v.name}`);
      } catch {
        // not readable with these grants (or broken): stays denied
      }
    }
    return keyed();
  }
}
