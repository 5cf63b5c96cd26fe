import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnStats } from '../contract/catalog.js';
import type { TypeKind } from '../contract/types.js';
import { quoteString } from './views.js';

/** Kinds whose Parquet min/max mean something to the planner once parsed. */
const RANGED = new Set<TypeKind>([
  'int16',
  'int32',
  'int64',
  'decimal',
  'float32',
  'float64',
  'date',
  'timestamp',
  'timestamptz',
  'string',
]);

export interface StatsColumn {
  readonly name: string;
  /** DuckDB's type text of the view column, to compare the footers' min/max texts by value */
  readonly duckType: string;
  readonly kind: TypeKind;
}

/**
 * Row count and per-column NULL fraction, min and max from the Parquet footers: no data page
 * is read. A column some row group keeps no statistics for gets none (an estimate from part of
 * the file would mislead). Min and max are compared as the column's type, not as text, across
 * row groups and files.
 */
export async function parquetStats(
  conn: DuckDBConnection,
  files: readonly string[],
  columns: readonly StatsColumn[],
): Promise<{ rowCount?: number; columns: Map<string, ColumnStats> }> {
  const list = `[${files.map(quoteString).join(', ')}]`;
  const total = (
    await conn.runAndReadAll(`SELECT sum(num_rows) FROM parquet_file_metadata(${list})`)
  ).getRows()[0]?.[0];
  const rowCount = total === null || total === undefined ? undefined : Number(total);
  const out = new Map<string, ColumnStats>();
  if (!rowCount) return { rowCount, columns: out };
  for (const c of columns) {
    const ranged = RANGED.has(c.kind);
    const r = await conn.runAndReadAll(
      `SELECT count(*), count(stats_null_count), sum(stats_null_count),
        ${ranged ? `min(TRY_CAST(stats_min_value AS ${c.duckType}))::VARCHAR, max(TRY_CAST(stats_max_value AS ${c.duckType}))::VARCHAR, count(stats_min_value)` : 'NULL, NULL, 0'}
       FROM parquet_metadata(${list}) WHERE path_in_schema = ${quoteString(c.name)}`,
    );
    const [chunks, withNulls, nulls, min, max, withRange] = r.getRows()[0] as [
      bigint,
      bigint,
      bigint | null,
      string | null,
      string | null,
      bigint | number,
    ];
    if (chunks === 0n) continue;
    const stats: { nullFraction?: number; min?: string; max?: string } = {};
    if (withNulls === chunks && nulls !== null) stats.nullFraction = Number(nulls) / rowCount;
    if (ranged && BigInt(withRange) === chunks && min !== null && max !== null) {
      stats.min = min;
      stats.max = max;
    }
    if (Object.keys(stats).length) out.set(c.name, stats);
  }
  return { rowCount, columns: out };
}
