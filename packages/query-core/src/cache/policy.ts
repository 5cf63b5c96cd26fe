import type { QueryOptions, RelationReference, ViewDefinition } from '../api.js';
import type { Catalog } from '../catalog/catalog.js';
import { bind } from '../sql/index.js';
import type { CacheDeps } from './cache-store.js';
import { cacheHint, type CachePolicy } from './statement.js';

/**
 * Whether a statement asks for the result cache: the caller's option, else the statement's own
 * hint, else — when it names only views and each of them carries a hint — the strictest of theirs.
 */
export function cachePolicyOf(
  sql: string,
  references: readonly RelationReference[],
  options: QueryOptions,
  definition: (schema: string, name: string) => ViewDefinition | undefined,
): CachePolicy | undefined {
  if (options.cache === 'off') return undefined;
  const own = options.cache ?? cacheHint(sql);
  if (own) return own;
  if (references.length === 0) return undefined;
  let ttl = Infinity;
  let staleness = Infinity;
  for (const r of references) {
    if (r.kind !== 'view') return undefined;
    const view = definition(r.schema, r.name);
    const hint = view && cacheHint(view.sql);
    if (!hint) return undefined;
    ttl = Math.min(ttl, hint.ttlSeconds);
    staleness = Math.min(staleness, hint.maxStalenessSeconds ?? hint.ttlSeconds);
  }
  return { ttlSeconds: ttl, maxStalenessSeconds: staleness };
}

/** Sources and views a result depends on: what the statement names, and through views what they read. */
export function dependenciesOf(references: readonly RelationReference[], catalog: Catalog): CacheDeps {
  const sources = new Set<string>();
  const views = new Set<string>();
  const walk = (refs: readonly RelationReference[]): void => {
    for (const r of refs) {
      if (r.kind === 'table') {
        sources.add(r.source);
        continue;
      }
      const name = `${r.schema}.${r.name}`;
      if (views.has(name)) continue;
      views.add(name);
      const view = catalog.views().find((v) => v.schema === r.schema && v.name === r.name);
      if (view) walk(bind(view.sql, catalog, {}).references);
    }
  };
  walk(references);
  return { sources: [...sources], views: [...views] };
}
