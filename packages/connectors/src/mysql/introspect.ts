import type { CatalogSnapshot, ColumnInfo, ColumnStats, ForeignKeyInfo, IndexInfo, TableInfo } from '../contract/catalog.js';
import type { Row, Value } from '../contract/types.js';
import { mapNativeType } from './type-map.js';

type Query = (sql: string, params?: readonly Value[]) => Promise<Row[]>;

const str = (v: Value): string => (v === null ? '' : String(v));

/**
 * MariaDB reports COLUMN_DEFAULT as SQL ('NULL', quoted literals, expressions); MySQL as the
 * bare value. Both become "the default as SQL text, or null for none".
 */
function normalizeDefault(v: Value, mariadb: boolean): string | null {
  if (v === null) return null;
  const s = String(v);
  if (mariadb) return s === 'NULL' ? null : s;
  return s;
}

export async function introspectMysql(q: Query, schema: string): Promise<CatalogSnapshot & { warnings: string[] }> {
  const warnings: string[] = [];
  const mariadb = /mariadb/i.test(str((await q(`SELECT VERSION()`))[0][0]));
  const rels = await q(
    `SELECT TABLE_NAME, TABLE_TYPE, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`,
    [schema],
  );
  const cols = await q(
    `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [schema],
  );
  const keys = await q(
    `SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, c.CONSTRAINT_TYPE, k.COLUMN_NAME, k.REFERENCED_TABLE_SCHEMA, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME
       FROM information_schema.KEY_COLUMN_USAGE k
       JOIN information_schema.TABLE_CONSTRAINTS c
         ON c.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND c.TABLE_NAME = k.TABLE_NAME AND c.CONSTRAINT_NAME = k.CONSTRAINT_NAME
      WHERE k.TABLE_SCHEMA = ? AND c.CONSTRAINT_TYPE IN ('PRIMARY KEY', 'FOREIGN KEY')
      ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    [schema],
  );
  const idx = await q(
    `SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME, SEQ_IN_INDEX, CARDINALITY
       FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    [schema],
  );
  // MariaDB's engine-independent statistics (ANALYZE TABLE … PERSISTENT FOR ALL): present only
  // where they were collected, and readable only with access to the mysql schema
  const engineStats = mariadb
    ? await q(
        `SELECT table_name, column_name, CONVERT(min_value USING utf8mb4), CONVERT(max_value USING utf8mb4), nulls_ratio, avg_frequency
           FROM mysql.column_stats WHERE db_name = ?`,
        [schema],
      ).catch(() => [])
    : [];
  const stats = columnStats(idx, engineStats, new Map(rels.map((r) => [str(r[0]), r[2] === null ? undefined : Number(r[2])])));

  const columns = new Map<string, ColumnInfo[]>();
  for (const r of cols) {
    const table = str(r[0]);
    const native = str(r[2]);
    const mapped = mapNativeType(native);
    if (mapped.warning) warnings.push(`${schema}.${table}.${str(r[1])}: ${mapped.warning}`);
    let list = columns.get(table);
    if (!list) columns.set(table, (list = []));
    list.push({
      name: str(r[1]),
      type: mapped.type,
      nativeType: native,
      nullable: r[3] === 'YES',
      default: normalizeDefault(r[4], mariadb),
    });
  }
  const pks = new Map<string, string[]>();
  const fks = new Map<string, Map<string, ForeignKeyInfo & { columns: string[]; refColumns: string[] }>>();
  for (const r of keys) {
    const table = str(r[0]);
    if (r[2] === 'PRIMARY KEY') {
      let pk = pks.get(table);
      if (!pk) pks.set(table, (pk = []));
      pk.push(str(r[3]));
      continue;
    }
    let byName = fks.get(table);
    if (!byName) fks.set(table, (byName = new Map()));
    let fk = byName.get(str(r[1]));
    if (!fk)
      byName.set(
        str(r[1]),
        (fk = { name: str(r[1]), columns: [], refSchema: str(r[4]), refTable: str(r[5]), refColumns: [] }),
      );
    fk.columns.push(str(r[3]));
    fk.refColumns.push(str(r[6]));
  }
  const indexes = new Map<string, Map<string, IndexInfo & { columns: string[] }>>();
  for (const r of idx) {
    const table = str(r[0]);
    let byName = indexes.get(table);
    if (!byName) indexes.set(table, (byName = new Map()));
    let ix = byName.get(str(r[1]));
    if (!ix) byName.set(str(r[1]), (ix = { name: str(r[1]), columns: [], unique: Number(r[2]) === 0 }));
    ix.columns.push(str(r[3]));
  }

  const tables: TableInfo[] = rels.map((r) => {
    const name = str(r[0]);
    const kind = r[1] === 'VIEW' ? 'view' : 'table';
    const pk = pks.get(name);
    return {
      schema,
      name,
      kind,
      columns: (columns.get(name) ?? []).map((c) => {
        const st = stats.get(`${name}\u0000${c.name}`);
        return st ? { ...c, stats: st } : c;
      }),
      ...(pk ? { primaryKey: pk } : {}),
      foreignKeys: [...(fks.get(name)?.values() ?? [])],
      // information_schema sorts case-insensitively; code-point order is what every other engine gives
      indexes: [...(indexes.get(name)?.values() ?? [])].sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      ),
      // InnoDB's estimate from its statistics (exact for MyISAM/Aria)
      ...(kind === 'table' && r[2] !== null ? { rowCount: Number(r[2]) } : {}),
    };
  });
  return { defaultSchema: schema, tables, introspectedAt: new Date().toISOString(), warnings };
}

/**
 * Per-column statistics: mysql.column_stats where MariaDB collected them (distinct values are
 * rows / avg_frequency), otherwise the cardinality of an index the column leads (InnoDB
 * samples it on ANALYZE TABLE), which is its distinct count.
 */
function columnStats(idx: readonly Row[], engineStats: readonly Row[], rows: ReadonlyMap<string, number | undefined>): Map<string, ColumnStats> {
  const out = new Map<string, ColumnStats>();
  for (const r of idx) {
    if (Number(r[4]) !== 1 || r[5] === null) continue;
    const key = `${str(r[0])}\u0000${str(r[3])}`;
    const distinct = Number(r[5]);
    if (distinct > (out.get(key)?.distinct ?? 0)) out.set(key, { distinct });
  }
  for (const r of engineStats) {
    const key = `${str(r[0])}\u0000${str(r[1])}`;
    const n = rows.get(str(r[0]));
    const nulls = r[4] === null ? undefined : Number(r[4]);
    const avg = r[5] === null ? 0 : Number(r[5]);
    const distinct = avg > 0 && n !== undefined ? Math.max(1, Math.round((n * (1 - (nulls ?? 0))) / avg)) : out.get(key)?.distinct;
    out.set(key, {
      ...(distinct !== undefined ? { distinct } : {}),
      ...(nulls !== undefined ? { nullFraction: nulls } : {}),
      ...(r[2] !== null ? { min: str(r[2]) } : {}),
      ...(r[3] !== null ? { max: str(r[3]) } : {}),
    });
  }
  return out;
}
