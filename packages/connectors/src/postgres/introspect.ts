import { MAX_MOST_COMMON, type CatalogSnapshot, type ColumnInfo, type ColumnStats, type ForeignKeyInfo, type IndexInfo, type TableInfo } from '../contract/catalog.js';
import { mapNativeType } from './type-map.js';

type Query = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

const SYSTEM_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`;

// Tables never analyzed have reltuples = -1 (PostgreSQL 14+); small ones are counted instead.
const SMALL_TABLE_BYTES = 8 * 1024 * 1024;

export async function introspectPostgres(
  q: Query,
  defaultSchema: string | undefined,
): Promise<CatalogSnapshot & { warnings: string[] }> {
  const warnings: string[] = [];
  const schema = defaultSchema ?? String((await q(`SELECT current_schema() AS s`))[0].s ?? 'public');
  const rels = await q(
    `SELECT c.oid::int8 AS oid, n.nspname AS schema, c.relname AS name, c.relkind AS kind,
            c.reltuples::float8 AS reltuples,
            CASE WHEN c.relkind IN ('r','p','m') THEN pg_relation_size(c.oid) ELSE NULL END AS bytes,
            c.relkind <> 'p' AND EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhparent = c.oid) AS inherited
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r','p','v','m','f') AND ${SYSTEM_SCHEMAS} AND NOT c.relispartition
      ORDER BY n.nspname, c.relname`,
  );
  const cols = await q(
    `SELECT a.attrelid::int8 AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS native,
            NOT a.attnotnull AS nullable, pg_get_expr(d.adbin, d.adrelid) AS dflt
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r','p','v','m','f') AND ${SYSTEM_SCHEMAS}
      ORDER BY a.attrelid, a.attnum`,
  );
  const cons = await q(
    `SELECT con.conrelid::int8 AS oid, con.conname AS name, con.contype AS type,
            ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord)::text[] AS cols,
            rn.nspname AS ref_schema, rc.relname AS ref_table,
            ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord)::text[] AS ref_cols
       FROM pg_constraint con
       JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_class rc ON rc.oid = con.confrelid LEFT JOIN pg_namespace rn ON rn.oid = rc.relnamespace
      WHERE con.contype IN ('p','f') AND ${SYSTEM_SCHEMAS}
      ORDER BY con.conrelid, con.conname`,
  );
  const idx = await q(
    // unique for Junction only where every row of the table is: not a partial index (WHERE), not
    // one on expressions, not one left invalid by a failed CREATE UNIQUE INDEX CONCURRENTLY
    `SELECT i.indrelid::int8 AS oid, ic.relname AS name,
            (i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL) AS uniq,
            ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) k ORDER BY k)::text[] AS cols
       FROM pg_index i
       JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${SYSTEM_SCHEMAS}
      ORDER BY i.indrelid, ic.relname`,
  );
  // ANALYZE's per-column statistics (absent for tables never analyzed); arrays as text[] so any type reads
  const statRows = await q(
    // float4 through numeric: 0.9, not float8's 0.8999999761581421
    `SELECT c.oid::int8 AS oid, s.attname AS name, s.null_frac::numeric::text AS null_frac, s.n_distinct::numeric::text AS n_distinct,
            s.most_common_vals::text::text[] AS mcv, s.most_common_freqs::numeric[]::text[] AS mcf,
            s.histogram_bounds::text::text[] AS hist
       FROM pg_stats s
       JOIN pg_namespace n ON n.nspname = s.schemaname
       JOIN pg_class c ON c.relname = s.tablename AND c.relnamespace = n.oid
      WHERE ${SYSTEM_SCHEMAS} AND NOT s.inherited`,
  ).catch(() => []);
  const stats = new Map<string, Record<string, unknown>>();
  for (const r of statRows) stats.set(`${String(r.oid)}\u0000${String(r.name)}`, r);

  const byOid = <T>(rows: Record<string, unknown>[], f: (r: Record<string, unknown>) => T): Map<string, T[]> => {
    const m = new Map<string, T[]>();
    for (const r of rows) {
      const k = String(r.oid);
      let list = m.get(k);
      if (!list) m.set(k, (list = []));
      list.push(f(r));
    }
    return m;
  };
  const columns = byOid<ColumnInfo>(cols, (r) => {
    const native = String(r.native);
    const mapped = mapNativeType(native);
    if (mapped.warning) warnings.push(`${String(r.oid)}:${String(r.name)}: ${mapped.warning}`);
    return {
      name: String(r.name),
      type: mapped.type,
      nativeType: native,
      nullable: r.nullable === true,
      default: (r.dflt as string | null) ?? null,
    };
  });
  const pks = new Map<string, string[]>();
  const fks = byOid<ForeignKeyInfo | undefined>(cons, (r) => {
    if (r.type === 'p') {
      pks.set(String(r.oid), r.cols as string[]);
      return undefined;
    }
    return {
      name: String(r.name),
      columns: r.cols as string[],
      refSchema: String(r.ref_schema),
      refTable: String(r.ref_table),
      refColumns: r.ref_cols as string[],
    };
  });
  const indexes = byOid<IndexInfo>(idx, (r) => ({
    name: String(r.name),
    columns: r.cols as string[],
    unique: r.uniq === true,
  }));

  const tables: TableInfo[] = [];
  for (const r of rels) {
    const oid = String(r.oid);
    const kind = r.kind === 'v' ? 'view' : 'table';
    let rowCount: number | undefined;
    const reltuples = Number(r.reltuples);
    if (kind === 'table' && reltuples >= 0) rowCount = Math.round(reltuples);
    else if (kind === 'table' && r.bytes !== null && Number(r.bytes) <= SMALL_TABLE_BYTES) {
      const ident = `${quoteIdent(String(r.schema))}.${quoteIdent(String(r.name))}`;
      rowCount = Number((await q(`SELECT count(*)::int8 AS n FROM ${ident}`))[0].n);
    }
    // a table with inheritance children is read with their rows, which its keys do not cover
    // (a partitioned table's keys do cover its partitions)
    const inherited = r.inherited === true;
    const pk = inherited ? undefined : pks.get(oid);
    const tableColumns = (columns.get(oid) ?? []).map((c) => {
      const st = stats.get(`${oid}\u0000${c.name}`);
      const cs = st && columnStats(st, rowCount, c.type.kind === 'string' && c.type.fixed === true);
      return cs ? { ...c, stats: cs } : c;
    });
    tables.push({
      schema: String(r.schema),
      name: String(r.name),
      kind,
      columns: tableColumns,
      ...(pk ? { primaryKey: pk } : {}),
      foreignKeys: (fks.get(oid) ?? []).filter((f): f is ForeignKeyInfo => f !== undefined),
      indexes: (indexes.get(oid) ?? []).map((ix) => (inherited && ix.unique ? { ...ix, unique: false } : ix)),
      ...(rowCount !== undefined ? { rowCount } : {}),
    });
  }
  const named = new Map(rels.map((r) => [String(r.oid), `${String(r.schema)}.${String(r.name)}`]));
  return {
    defaultSchema: schema,
    tables,
    introspectedAt: new Date().toISOString(),
    warnings: warnings.map((w) => {
      const oid = w.slice(0, w.indexOf(':'));
      return `${named.get(oid) ?? oid}.${w.slice(oid.length + 1)}`;
    }),
  };
}

/**
 * One pg_stats row as ColumnStats: n_distinct below zero is a fraction of the rows (it grows
 * with the table); min and max are the histogram's ends widened by the most common values,
 * which the histogram leaves out.
 */
export function columnStats(r: Record<string, unknown>, rows: number | undefined, fixedChar: boolean): ColumnStats | undefined {
  const text = (v: string): string => (fixedChar ? v.replace(/ +$/, '') : v);
  const nd = Number(r.n_distinct);
  const distinct = nd > 0 ? nd : nd < 0 && rows !== undefined ? Math.max(1, Math.round(-nd * rows)) : undefined;
  const mcv = (r.mcv as string[] | null) ?? [];
  const mcf = (r.mcf as number[] | null) ?? [];
  const hist = (r.hist as string[] | null) ?? [];
  const mostCommon = mcv.slice(0, MAX_MOST_COMMON).map((v, i) => ({ value: text(v), frequency: Number(mcf[i] ?? 0) }));
  const ends = [...(hist.length ? [hist[0], hist[hist.length - 1]] : []), ...mcv].map(text);
  const numeric = ends.length > 0 && ends.every((v) => v.trim() !== '' && Number.isFinite(Number(v)));
  const order = (a: string, b: string): number => (numeric ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...ends].sort(order);
  const out: ColumnStats = {
    ...(distinct !== undefined ? { distinct } : {}),
    ...(r.null_frac !== null && r.null_frac !== undefined ? { nullFraction: Number(r.null_frac) } : {}),
    ...(sorted.length ? { min: sorted[0], max: sorted[sorted.length - 1] } : {}),
    ...(mostCommon.length ? { mostCommon } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}

export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}
