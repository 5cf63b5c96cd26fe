import type { CatalogSnapshot, ColumnInfo, ForeignKeyInfo, IndexInfo, TableInfo } from '../contract/catalog.js';
import { SQLSERVER_STATS_SQL, sqlServerColumnStats } from './stats.js';
import { mapNativeType, nativeTypeText } from './type-map.js';

type Query = (sql: string) => Promise<unknown[][]>;

const s = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

export async function introspectSqlServer(
  q: Query,
  defaultSchema: string | undefined,
): Promise<CatalogSnapshot & { warnings: string[] }> {
  const warnings: string[] = [];
  const [[db, schemaName]] = await q(`SELECT DB_NAME(), SCHEMA_NAME()`);
  const schema = defaultSchema ?? s(schemaName);
  const rels = await q(
    `SELECT o.object_id, sc.name, o.name, o.type,
            (SELECT SUM(p.rows) FROM sys.partitions p WHERE p.object_id = o.object_id AND p.index_id IN (0, 1))
       FROM sys.objects o JOIN sys.schemas sc ON sc.schema_id = o.schema_id
      WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0
      ORDER BY sc.name, o.name`,
  );
  const cols = await q(
    `SELECT c.object_id, c.name, ty.name, c.max_length, c.precision, c.scale, c.is_nullable, OBJECT_DEFINITION(c.default_object_id)
       FROM sys.columns c JOIN sys.types ty ON ty.user_type_id = c.user_type_id
       JOIN sys.objects o ON o.object_id = c.object_id
      WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0
      ORDER BY c.object_id, c.column_id`,
  );
  const idx = await q(
    // a filtered index (WHERE) is unique only over the rows it holds
    `SELECT i.object_id, i.name, CAST(CASE WHEN i.is_unique = 1 AND i.has_filter = 0 THEN 1 ELSE 0 END AS bit) AS is_unique, i.is_primary_key, c.name
       FROM sys.indexes i
       JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 0
       JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
       JOIN sys.objects o ON o.object_id = i.object_id
      WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0 AND i.name IS NOT NULL
      ORDER BY i.object_id, i.name, ic.key_ordinal`,
  );
  const fkRows = await q(
    `SELECT fk.parent_object_id, fk.name, pc.name, rs.name, ro.name, rc.name
       FROM sys.foreign_keys fk
       JOIN sys.foreign_key_columns fkc ON fkc.constraint_object_id = fk.object_id
       JOIN sys.columns pc ON pc.object_id = fkc.parent_object_id AND pc.column_id = fkc.parent_column_id
       JOIN sys.objects ro ON ro.object_id = fkc.referenced_object_id
       JOIN sys.schemas rs ON rs.schema_id = ro.schema_id
       JOIN sys.columns rc ON rc.object_id = fkc.referenced_object_id AND rc.column_id = fkc.referenced_column_id
      ORDER BY fk.parent_object_id, fk.name, fkc.constraint_column_id`,
  );
  // the histograms' summaries; absent before SQL Server 2016 SP1 CU2 or without the permission to read them
  const stats = sqlServerColumnStats(await q(SQLSERVER_STATS_SQL).catch(() => []));

  const group = <T>(rows: unknown[][], key: (r: unknown[]) => string, f: (r: unknown[]) => T): Map<string, T[]> => {
    const m = new Map<string, T[]>();
    for (const r of rows) {
      const k = key(r);
      let list = m.get(k);
      if (!list) m.set(k, (list = []));
      list.push(f(r));
    }
    return m;
  };
  const names = new Map(rels.map((r) => [s(r[0]), `${s(r[1])}.${s(r[2])}`]));
  const columns = group<ColumnInfo>(
    cols,
    (r) => s(r[0]),
    (r) => {
      const native = { typeName: s(r[2]), maxLength: Number(r[3]), precision: Number(r[4]), scale: Number(r[5]) };
      const mapped = mapNativeType(native);
      if (mapped.warning) warnings.push(`${names.get(s(r[0])) ?? s(r[0])}.${s(r[1])}: ${mapped.warning}`);
      return {
        name: s(r[1]),
        type: mapped.type,
        nativeType: nativeTypeText(native),
        nullable: r[6] === true || r[6] === 1,
        default: r[7] === null ? null : s(r[7]),
      };
    },
  );
  const pks = new Map<string, string[]>();
  const indexes = new Map<string, Map<string, IndexInfo & { columns: string[] }>>();
  for (const r of idx) {
    const oid = s(r[0]);
    let byName = indexes.get(oid);
    if (!byName) indexes.set(oid, (byName = new Map()));
    let ix = byName.get(s(r[1]));
    if (!ix) byName.set(s(r[1]), (ix = { name: s(r[1]), columns: [], unique: r[2] === true || r[2] === 1 }));
    ix.columns.push(s(r[4]));
    if (r[3] === true || r[3] === 1) pks.set(oid, ix.columns);
  }
  const fks = new Map<string, Map<string, ForeignKeyInfo & { columns: string[]; refColumns: string[] }>>();
  for (const r of fkRows) {
    const oid = s(r[0]);
    let byName = fks.get(oid);
    if (!byName) fks.set(oid, (byName = new Map()));
    let fk = byName.get(s(r[1]));
    if (!fk)
      byName.set(s(r[1]), (fk = { name: s(r[1]), columns: [], refSchema: s(r[3]), refTable: s(r[4]), refColumns: [] }));
    fk.columns.push(s(r[2]));
    fk.refColumns.push(s(r[5]));
  }
  const tables: TableInfo[] = rels.map((r) => {
    const oid = s(r[0]);
    const kind = s(r[3]).trim() === 'V' ? 'view' : 'table';
    const pk = pks.get(oid);
    return {
      catalog: s(db),
      schema: s(r[1]),
      name: s(r[2]),
      kind,
      columns: (columns.get(oid) ?? []).map((c) => {
        const st = stats.get(`${oid}\u0000${c.name}`);
        return st ? { ...c, stats: st } : c;
      }),
      ...(pk ? { primaryKey: pk } : {}),
      foreignKeys: [...(fks.get(oid)?.values() ?? [])],
      indexes: [...(indexes.get(oid)?.values() ?? [])],
      ...(kind === 'table' && r[4] !== null && r[4] !== undefined ? { rowCount: Number(r[4]) } : {}),
    };
  });
  return { defaultSchema: schema, defaultCatalog: s(db), tables, introspectedAt: new Date().toISOString(), warnings };
}
