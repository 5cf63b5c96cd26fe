import { sqlToGraph, type ResolveTable } from './from-sql.js';
import type { ViewGraph } from './model.js';
import { graphToSql } from './to-sql.js';

/** What a view stores as its layout: the canvas graph, positions included. */
export interface StoredLayout {
  readonly designer: 1;
  readonly graph: ViewGraph;
}

export function layoutOf(graph: ViewGraph): StoredLayout {
  return { designer: 1, graph };
}

function isStored(layout: unknown): layout is StoredLayout {
  const o = layout as Partial<StoredLayout> | null;
  return !!o && typeof o === 'object' && o.designer === 1 && !!o.graph && Array.isArray(o.graph.tables);
}

export type Reopened =
  { readonly ok: true; readonly graph: ViewGraph } | { readonly ok: false; readonly reason: string };

/**
 * A saved view back on the canvas. Its SQL is the truth: the stored graph is used as it is
 * when it still prints that SQL (tables' columns refreshed from the catalog); otherwise the
 * SQL is read again (changed through the API or as SQL) and tables keep their stored places.
 */
export function reopen(view: { sql: string; layout: unknown }, resolve: ResolveTable): Reopened {
  const stored = isStored(view.layout) ? view.layout.graph : undefined;
  if (stored && graphToSql(stored) === view.sql.trim()) {
    return {
      ok: true,
      graph: {
        ...stored,
        tables: stored.tables.map((t) => {
          const now = resolve(t.path);
          return now ? { ...t, columns: now.columns } : t;
        }),
      },
    };
  }
  const positions = new Map((stored?.tables ?? []).map((t) => [t.alias, t.position]));
  return sqlToGraph(view.sql, resolve, positions);
}
