/** The catalog as the studio shows it: sources → schemas → tables → columns. */
export interface CatalogColumn {
  readonly name: string;
  readonly type: string;
  readonly nativeType?: string;
  readonly nullable?: boolean;
}
export interface CatalogTable {
  readonly name: string;
  readonly kind: 'table' | 'view';
  /** undefined until loaded: the tree lists tables first and fetches columns on demand */
  readonly columns?: readonly CatalogColumn[];
  readonly rowCount?: number;
}
export interface CatalogSchema {
  readonly name: string;
  readonly tables: readonly CatalogTable[];
}
export interface CatalogSource {
  readonly name: string;
  readonly engine?: string;
  readonly defaultSchema?: string;
  readonly status?: string;
  readonly schemas: readonly CatalogSchema[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);

function toColumn(c: unknown): CatalogColumn {
  const o = obj(c);
  return {
    name: str(o.name),
    type: str(o.type, str(o.nativeType)),
    ...(typeof o.nativeType === 'string' ? { nativeType: o.nativeType } : {}),
    ...(typeof o.nullable === 'boolean' ? { nullable: o.nullable } : {}),
  };
}

function toTable(t: unknown): CatalogTable {
  const o = obj(t);
  return {
    name: str(o.name),
    kind: o.kind === 'view' ? 'view' : 'table',
    ...(Array.isArray(o.columns) ? { columns: o.columns.map(toColumn) } : {}),
    ...(typeof o.rowCount === 'number' ? { rowCount: o.rowCount } : {}),
  };
}

/**
 * Accepts a source either with nested `schemas: [{name, tables}]` or with a flat
 * `tables: [{schema, name, columns}]` list (the connectors' CatalogSnapshot shape).
 */
export function toCatalogSource(s: unknown): CatalogSource {
  const o = obj(s);
  const snapshot = obj(o.catalog);
  const base = {
    name: str(o.name, str(o.source)),
    ...(typeof o.engine === 'string' ? { engine: o.engine } : {}),
    ...(typeof o.status === 'string' ? { status: o.status } : {}),
    ...(typeof o.defaultSchema === 'string' ? { defaultSchema: o.defaultSchema } : {}),
  };
  if (Array.isArray(o.schemas)) {
    return {
      ...base,
      schemas: o.schemas.map((sc) => ({ name: str(obj(sc).name), tables: arr(obj(sc).tables).map(toTable) })),
    };
  }
  const flat = arr(o.tables).length > 0 ? arr(o.tables) : arr(snapshot.tables);
  const bySchema = new Map<string, CatalogTable[]>();
  for (const t of flat) {
    const schema = str(obj(t).schema, str(snapshot.defaultSchema, str(o.defaultSchema, 'default')));
    const list = bySchema.get(schema) ?? [];
    list.push(toTable(t));
    bySchema.set(schema, list);
  }
  return { ...base, schemas: [...bySchema].map(([name, tables]) => ({ name, tables })) };
}

/** Accepts `[...]`, `{sources: [...]}` or `{items: [...]}`. */
export function toCatalog(body: unknown): CatalogSource[] {
  const o = obj(body);
  const list = Array.isArray(body) ? body : arr(o.sources ?? o.items ?? o.catalog);
  return list.map(toCatalogSource).sort((a, b) => a.name.localeCompare(b.name));
}

/** A column the server's search found (its table's columns may not be loaded yet). */
export interface ColumnHit {
  readonly source: string;
  readonly schema: string;
  readonly table: string;
  readonly column: string;
  readonly type?: string;
}

/**
 * Keeps what matches `query` (case-insensitive substring of a source, schema, table or
 * column name); a matching container keeps all its children, a matching child keeps its path.
 * Columns match among the loaded ones and among `hits` from the server's search.
 */
export function filterCatalog(
  sources: readonly CatalogSource[],
  query: string,
  hits: readonly ColumnHit[] = [],
): CatalogSource[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [...sources];
  const hit = (name: string) => name.toLowerCase().includes(q);
  const hitCols = new Map<string, CatalogColumn[]>();
  for (const h of hits) {
    if (!hit(h.column)) continue;
    const key = tableKey(h.source, h.schema, h.table);
    const list = hitCols.get(key) ?? [];
    list.push({ name: h.column, type: h.type ?? '' });
    hitCols.set(key, list);
  }
  const out: CatalogSource[] = [];
  for (const s of sources) {
    if (hit(s.name)) {
      out.push(s);
      continue;
    }
    const schemas: CatalogSchema[] = [];
    for (const sc of s.schemas) {
      if (hit(sc.name)) {
        schemas.push(sc);
        continue;
      }
      const tables: CatalogTable[] = [];
      for (const t of sc.tables) {
        if (hit(t.name)) {
          tables.push(t);
          continue;
        }
        const columns = t.columns
          ? t.columns.filter((c) => hit(c.name))
          : (hitCols.get(tableKey(s.name, sc.name, t.name)) ?? []);
        if (columns.length > 0) tables.push({ ...t, columns });
      }
      if (tables.length > 0) schemas.push({ ...sc, tables });
    }
    if (schemas.length > 0) out.push({ ...s, schemas });
  }
  return out;
}

export function tableKey(source: string, schema: string, table: string): string {
  return `${source}\u0000${schema}\u0000${table}`;
}

/** The catalog with the loaded columns filled in. */
export function withColumns(
  sources: readonly CatalogSource[],
  columns: ReadonlyMap<string, readonly CatalogColumn[]>,
): CatalogSource[] {
  return sources.map((s) => ({
    ...s,
    schemas: s.schemas.map((sc) => ({
      ...sc,
      tables: sc.tables.map((t) => {
        const c = t.columns ?? columns.get(tableKey(s.name, sc.name, t.name));
        return c ? { ...t, columns: c } : t;
      }),
    })),
  }));
}
