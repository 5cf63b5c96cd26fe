import { api } from '../../lib/api.js';
import type { CatalogSource } from '../../lib/catalog.js';
import { designerApi } from '../../lib/designer-api.js';
import { tablePaths, type ResolvedTable } from '../../lib/view-graph/from-sql.js';
import type { StringSemantics } from '../../lib/view-graph/join-warnings.js';

export interface CatalogEntry {
  readonly source: string;
  readonly schema: string;
  readonly table: string;
}

const key = (e: CatalogEntry) => `${e.source}\u0000${e.schema}\u0000${e.table}`.toLowerCase();
const eq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The name a catalog table has in SQL: tables of the default schema (and views) need no schema. */
export function sqlPath(sources: readonly CatalogSource[], e: CatalogEntry): string[] {
  const s = sources.find((x) => x.name === e.source);
  return e.schema === (s?.defaultSchema ?? e.schema) ? [e.source, e.table] : [e.source, e.schema, e.table];
}

/** Which catalog table a name in SQL means (unquoted names match case-insensitively). */
export function findEntry(sources: readonly CatalogSource[], path: readonly string[]): CatalogEntry | undefined {
  const s = sources.find((x) => eq(x.name, path[0] ?? ''));
  if (!s || path.length < 2 || path.length > 3) return undefined;
  const schemaName = path.length === 3 ? path[1]! : (s.defaultSchema ?? s.schemas[0]?.name ?? '');
  const sc = s.schemas.find((x) => eq(x.name, schemaName));
  const t = sc?.tables.find((x) => eq(x.name, path[path.length - 1]!));
  return sc && t ? { source: s.name, schema: sc.name, table: t.name } : undefined;
}

/**
 * Tables and views the canvas has used, with their columns and keys (one request each), and
 * the string semantics of their sources (for join warnings). Not React: the page holds one.
 */
export class TableCache {
  private readonly tables = new Map<string, ResolvedTable>();
  private readonly semantics = new Map<string, StringSemantics | null>();
  private sourceIds?: Promise<Map<string, string>>;

  constructor(private readonly sources: () => readonly CatalogSource[]) {}

  async load(e: CatalogEntry): Promise<ResolvedTable> {
    const hit = this.tables.get(key(e));
    if (hit) return hit;
    const d = await designerApi.table(e.source, e.schema, e.table);
    const engine = this.sources().find((s) => s.name === e.source)?.engine;
    const t: ResolvedTable = {
      path: sqlPath(this.sources(), e),
      kind: d.kind === 'view' ? 'view' : 'table',
      ...(engine ? { engine } : {}),
      columns: d.columns.map((c) => ({ name: c.name, type: c.type })),
      primaryKey: d.primaryKey,
      foreignKeys: d.foreignKeys,
    };
    this.tables.set(key(e), t);
    return t;
  }

  /** Loads every table the SQL names that the catalog knows, so resolve() can answer. */
  async loadFor(sql: string): Promise<void> {
    const entries = tablePaths(sql).flatMap((p) => findEntry(this.sources(), p) ?? []);
    await Promise.all(entries.map((e) => this.load(e)));
  }

  resolve = (path: readonly string[]): ResolvedTable | undefined => {
    const e = findEntry(this.sources(), path);
    return e ? this.tables.get(key(e)) : undefined;
  };

  /** A source's probed string semantics; views and unknown sources have none. */
  async semanticsOf(source: string): Promise<StringSemantics | undefined> {
    if (this.semantics.has(source)) return this.semantics.get(source) ?? undefined;
    this.sourceIds ??= api.sources().then((list) => new Map(list.map((s) => [s.name, s.id])));
    const id = (await this.sourceIds).get(source);
    const sem = id ? (await api.source(id)).semantics : undefined;
    const out = sem ? { source, ...sem } : null;
    this.semantics.set(source, out);
    return out ?? undefined;
  }

  /** After a save: views' columns may have changed. */
  forgetViews(): void {
    for (const [k, t] of this.tables) if (t.kind === 'view') this.tables.delete(k);
  }
}
