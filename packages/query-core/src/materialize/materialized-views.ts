import { JunctionError, type ColumnMeta } from '@junction/connectors';
import type { ViewDefinition } from '../api.js';
import type { Catalog } from '../catalog/catalog.js';
import { bind } from '../sql/index.js';
import { materializedSql, type Materialization } from './substitute.js';

/**
 * Views' own definitions and their materializations. The catalog holds, for each view, either
 * its definition or (while its materialization is fresh enough) SQL reading the stored table;
 * apply() switches between them when that changes, and the engine then starts a new catalog
 * version so no plan bound on the other one is reused.
 */
export class MaterializedViews {
  /** by `schema.name` */
  readonly #definitions = new Map<string, { view: ViewDefinition; columns: readonly ColumnMeta[] }>();
  readonly #stored = new Map<string, Materialization>();
  /** which materializations the catalog reads now ('[]': none); undefined: to be recomputed */
  #applied: string | undefined = '[]';

  /** A view was (re)defined: its stored rows answered the old definition. */
  defined(view: ViewDefinition, columns: readonly ColumnMeta[]): void {
    const key = `${view.schema}.${view.name}`;
    this.#definitions.set(key, { view, columns });
    this.#stored.delete(key);
  }

  dropped(schema: string, name: string): void {
    this.#definitions.delete(`${schema}.${name}`);
    this.#stored.delete(`${schema}.${name}`);
  }

  /** The view as its owner wrote it (the catalog may hold its materialized stand-in). */
  definition(schema: string, name: string): ViewDefinition | undefined {
    return this.#definitions.get(`${schema}.${name}`)?.view;
  }

  /** Sources changed: a stored table may have appeared or gone. */
  invalidate(): void {
    this.#applied = undefined;
  }

  /** Checks that the table can stand in for the view (binding it now), then records it. */
  set(schema: string, name: string, m: Materialization | undefined, catalog: Catalog): void {
    const key = `${schema}.${name}`;
    const d = this.#definitions.get(key);
    if (!d) throw new JunctionError('view_not_found', 'not_found', `No view ${key} exists.`, { details: { schema, name } });
    if (m) {
      const sql = materializedSql(m, d.columns, catalog.getSource(m.source)?.catalog);
      if (!sql) {
        throw new JunctionError('materialization_mismatch', 'user', `The table ${m.source}.${m.table} does not have the columns of view ${key}.`, {
          details: { view: key, source: m.source, table: m.table },
        });
      }
      bind(sql, catalog, {});
      this.#stored.set(key, m);
    } else this.#stored.delete(key);
    this.#applied = undefined;
  }

  /** Points each view at its table or its definition, as freshness says now; true when that changed. */
  apply(catalog: Catalog, now = Date.now()): boolean {
    if (this.#stored.size === 0 && this.#applied === '[]') return false;
    const fresh = [...this.#stored.entries()].filter(([, m]) => now - m.refreshedAt <= m.maxStalenessSeconds * 1000);
    const key = JSON.stringify(fresh.map(([k, m]) => [k, m.source, m.table]));
    if (key === this.#applied) return false;
    for (const [k, d] of this.#definitions) {
      const m = fresh.find(([f]) => f === k)?.[1];
      const sql = m && materializedSql(m, d.columns, catalog.getSource(m.source)?.catalog);
      catalog.defineView(sql ? { ...d.view, sql } : d.view);
    }
    this.#applied = key;
    return true;
  }

  /** Of these views (`schema.name`), the ones the catalog reads from their stored rows, with their age. */
  inUse(views: readonly string[], catalog: Catalog, now = Date.now()): { view: string; ageMs: number }[] {
    const out: { view: string; ageMs: number }[] = [];
    for (const v of views) {
      const m = this.#stored.get(v);
      const current = catalog.views().find((x) => `${x.schema}.${x.name}` === v);
      if (m && current && current.sql !== this.#definitions.get(v)?.view.sql) out.push({ view: v, ageMs: now - m.refreshedAt });
    }
    return out;
  }
}
