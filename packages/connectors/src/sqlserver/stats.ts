import type { ColumnStats } from '../contract/catalog.js';

/**
 * A histogram key (sql_variant) as text by its base type: dates and timestamps in ISO form and
 * floats with 17 digits (the default conversions give 'Jan  1 2020 12:00AM' and 6 digits),
 * binary and time-of-day keys not at all (no order the estimates can use).
 */
function keyText(k: string): string {
  const base = `CAST(SQL_VARIANT_PROPERTY(${k}, 'BaseType') AS nvarchar(128))`;
  return `CASE WHEN ${base} = 'date' THEN CONVERT(nvarchar(10), CAST(${k} AS date), 23)
         WHEN ${base} IN ('datetime', 'smalldatetime', 'datetime2') THEN CONVERT(nvarchar(27), CAST(${k} AS datetime2(7)), 126)
         WHEN ${base} IN ('float', 'real') THEN CONVERT(nvarchar(30), CAST(${k} AS float), 3)
         WHEN ${base} IN ('binary', 'varbinary', 'timestamp', 'time', 'datetimeoffset') THEN NULL
         ELSE CONVERT(nvarchar(4000), ${k}) END`;
}

/**
 * One row per statistics object of a user table: its leading column, the rows it describes
 * and the changes since (sys.dm_db_stats_properties), and its histogram summed
 * (sys.dm_db_stats_histogram, SQL Server 2016 SP1 CU2 and later): every step's upper key is a
 * distinct value and distinct_range_rows counts those strictly inside the step; a NULL key is
 * the step of the NULLs. Filtered statistics see some rows only and are left out. Counts are
 * cast to float so they arrive as numbers, not bigint text.
 */
export const SQLSERVER_STATS_SQL = `SELECT s.object_id, c.name, s.stats_id,
       CAST(sp.rows AS float), CAST(sp.rows_sampled AS float), CAST(sp.modification_counter AS float),
       h.steps, h.distinct_keys, h.null_rows,
       CAST(SQL_VARIANT_PROPERTY(lo.k, 'BaseType') AS nvarchar(128)),
       ${keyText('lo.k')},
       ${keyText('hi.k')}
  FROM sys.stats s
  JOIN sys.objects o ON o.object_id = s.object_id
  JOIN sys.stats_columns sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id AND sc.stats_column_id = 1
  JOIN sys.columns c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
  CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) sp
  CROSS APPLY (SELECT COUNT(*) AS steps,
                      SUM(CAST(x.distinct_range_rows AS float)) + COUNT(x.range_high_key) AS distinct_keys,
                      SUM(CASE WHEN x.range_high_key IS NULL THEN CAST(x.equal_rows AS float) ELSE 0 END) AS null_rows
                 FROM sys.dm_db_stats_histogram(s.object_id, s.stats_id) x) h
  OUTER APPLY (SELECT TOP (1) x.range_high_key AS k FROM sys.dm_db_stats_histogram(s.object_id, s.stats_id) x
                WHERE x.range_high_key IS NOT NULL ORDER BY x.step_number) lo
  OUTER APPLY (SELECT TOP (1) x.range_high_key AS k FROM sys.dm_db_stats_histogram(s.object_id, s.stats_id) x
                WHERE x.range_high_key IS NOT NULL ORDER BY x.step_number DESC) hi
 WHERE o.type = 'U' AND o.is_ms_shipped = 0 AND s.has_filter = 0 AND sp.rows > 0 AND h.steps > 0
 ORDER BY s.object_id, c.name, s.stats_id`;

const num = (v: unknown): number | undefined => (v === null || v === undefined || v === '' ? undefined : Number(v));

/**
 * The rows of SQLSERVER_STATS_SQL (as tedious returns them: arrays in select order) as
 * ColumnStats keyed by `object_id \0 column`. A column that leads several statistics objects
 * (an index's and an auto-created _WA_Sys one) takes the freshest: fewest modifications since
 * the update, then most rows sampled, then the lowest stats_id. Fixed-width keys lose their
 * padding, as elsewhere in the catalog.
 */
export function sqlServerColumnStats(rows: readonly (readonly unknown[])[]): Map<string, ColumnStats> {
  const best = new Map<string, { rank: [number, number, number]; stats: ColumnStats }>();
  for (const r of rows) {
    const total = num(r[3]);
    const distinctKeys = num(r[7]);
    if (total === undefined || total <= 0) continue;
    const key = `${String(r[0])}\u0000${String(r[1])}`;
    const rank: [number, number, number] = [num(r[5]) ?? Infinity, -(num(r[4]) ?? 0), Number(r[2])];
    const held = best.get(key);
    if (held && !before(rank, held.rank)) continue;
    const fixed = r[9] === 'char' || r[9] === 'nchar';
    const text = (v: unknown): string | undefined =>
      v === null || v === undefined ? undefined : fixed ? String(v).replace(/ +$/, '') : String(v);
    const [min, max] = [text(r[10]), text(r[11])];
    const nulls = num(r[8]) ?? 0;
    const stats: ColumnStats = {
      ...(distinctKeys !== undefined && distinctKeys > 0 ? { distinct: Math.round(distinctKeys) } : {}),
      nullFraction: Math.min(1, nulls / total),
      ...(min !== undefined && max !== undefined ? { min, max } : {}),
    };
    best.set(key, { rank, stats });
  }
  return new Map([...best].map(([k, v]) => [k, v.stats]));
}

function before(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}
