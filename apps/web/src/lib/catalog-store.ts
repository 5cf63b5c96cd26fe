import type { ApiError } from './api-error.js';
import { tableKey, withColumns, type CatalogColumn, type CatalogSource } from './catalog.js';

export interface CatalogFetchers {
  catalog(): Promise<CatalogSource[]>;
  columns(source: string, schema: string, table: string): Promise<CatalogColumn[]>;
}

export interface CatalogSnapshot {
  readonly sources: readonly CatalogSource[];
  readonly loading: boolean;
  readonly error?: ApiError;
}

/**
 * The catalog lists tables up front and loads a table's columns the first time something
 * needs them (the tree opening it, completion after its name). One request per table.
 */
export class CatalogStore {
  private base: CatalogSource[] = [];
  private readonly columns = new Map<string, CatalogColumn[]>();
  private readonly inflight = new Map<string, Promise<void>>();
  private snap: CatalogSnapshot = { sources: [], loading: false };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly fetch: CatalogFetchers) {}

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  getSnapshot = (): CatalogSnapshot => this.snap;

  /** (Re)loads the table list; loaded columns are dropped since tables may have changed. */
  async load(): Promise<void> {
    this.set({ ...this.snap, loading: true });
    try {
      this.base = await this.fetch.catalog();
      this.columns.clear();
      this.set({ sources: this.base, loading: false });
    } catch (e) {
      this.set({ ...this.snap, loading: false, error: e as ApiError });
    }
  }

  hasColumns(source: string, schema: string, table: string): boolean {
    return this.columns.has(tableKey(source, schema, table));
  }

  /** Loads columns of the given tables that are not loaded yet; resolves when all are in. */
  async ensureColumns(tables: readonly { source: string; schema: string; table: string }[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const t of tables) {
      const key = tableKey(t.source, t.schema, t.table);
      if (this.columns.has(key)) continue;
      let p = this.inflight.get(key);
      if (!p) {
        p = this.fetch
          .columns(t.source, t.schema, t.table)
          .then((cols) => {
            this.columns.set(key, cols);
            this.set({ ...this.snap, sources: withColumns(this.base, this.columns) });
          })
          .catch(() => undefined)
          .finally(() => this.inflight.delete(key));
        this.inflight.set(key, p);
      }
      waits.push(p);
    }
    await Promise.all(waits);
  }

  private set(s: CatalogSnapshot): void {
    this.snap = s;
    for (const l of this.listeners) l();
  }
}
