import { serialize } from 'node:v8';
import type { RemoteQuery, RenderedQuery, Row } from '@junction/connectors';
import type { FragmentCacheHook } from '../exec/context.js';
import type { CacheStore } from './cache-store.js';

/** A source's consent to have the results of its fragments reused (RegisteredSource.fragmentCache). */
export interface FragmentCachePolicy {
  readonly ttlSeconds: number;
  /**
   * Only statements reading nothing but these tables (case-insensitive names, e.g. the small
   * dimension tables nation and region); absent: every fragment of the source.
   */
  readonly tables?: readonly string[];
}

/**
 * Results of source fragments shared by every query that sends the same statement with the same
 * parameters to the same source. A fragment only runs inside a query whose grants were checked
 * at bind time, so the key needs nothing about the caller.
 */
export class FragmentCache implements FragmentCacheHook {
  constructor(
    private readonly store: CacheStore,
    private readonly policyOf: (source: string) => FragmentCachePolicy | undefined,
  ) {}

  /** The age of a stored fragment, for EXPLAIN (not counted as a hit). */
  ageMs(source: string, query: RemoteQuery, rendered: RenderedQuery): number | undefined {
    const policy = this.#policy(source, query);
    if (!policy) return undefined;
    return this.store.lookup(fragmentKey(source, rendered), policy.ttlSeconds * 1000, { count: false })?.ageMs;
  }

  wrap(source: string, query: RemoteQuery, rendered: RenderedQuery, run: () => AsyncIterable<Row[]>): AsyncIterable<Row[]> {
    const policy = this.#policy(source, query);
    if (!policy) return run();
    const key = fragmentKey(source, rendered);
    const hit = this.store.lookup(key, policy.ttlSeconds * 1000);
    if (hit) return hit.batches() as AsyncIterable<Row[]>;
    const recording = this.store.record(key, `${source}: ${rendered.sql}`, policy.ttlSeconds * 1000, { sources: [source], views: [] });
    return recording.through(run());
  }

  #policy(source: string, query: RemoteQuery): FragmentCachePolicy | undefined {
    const p = this.policyOf(source);
    if (!p || p.ttlSeconds <= 0) return undefined;
    if (p.tables) {
      const allowed = new Set(p.tables.map((t) => t.toLowerCase()));
      const tables = tablesOf(query);
      if (tables.length === 0 || !tables.every((t) => allowed.has(t.toLowerCase()))) return undefined;
    }
    return p;
  }
}

/** Every table a fragment reads: its FROM, joins, derived tables, set operations and EXISTS subqueries. */
export function tablesOf(query: RemoteQuery): string[] {
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const x of node) walk(x);
      return;
    }
    if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return;
    const o = node as Record<string, unknown>;
    if (o.kind === 'table' && typeof o.table === 'string' && typeof o.alias === 'string') out.push(o.table);
    for (const v of Object.values(o)) walk(v);
  };
  walk(query);
  return out;
}

function fragmentKey(source: string, rendered: RenderedQuery): string {
  return JSON.stringify(['fragment', source, rendered.sql, serialize(rendered.params).toString('base64')]);
}
