/** One sqlite_stat1 row: `idx` is NULL for the row count of a table ANALYZE found no full index on. */
export interface Stat1Row {
  readonly idx: string | null;
  readonly stat: string;
}

/** An index as PRAGMA index_list / index_info describe it, with its leading key column. */
export interface IndexShape {
  readonly name: string;
  /** NULL for an expression */
  readonly leading: string | null;
  readonly partial: boolean;
  /** 'pk' for the primary key's index */
  readonly origin: string;
}

/**
 * The numbers of a stat1 text, "nrow avg1 avg2 … [unordered] [sz=N] [noskipscan]": the row
 * count, then for each key prefix the average rows that share one value of it.
 */
export function statNumbers(stat: string): number[] {
  const out: number[] = [];
  for (const word of stat.trim().split(/\s+/)) {
    if (!/^\d+$/.test(word)) break;
    out.push(Number(word));
  }
  return out;
}

/**
 * A table's row count and its leading index columns' distinct counts from sqlite_stat1.
 * The row count is the largest nrow: every full index holds every row, a partial one fewer,
 * and a table with only partial indexes (or none) gets its own NULL-idx row. Partial indexes
 * give no distinct count (they see some rows only), nor do expression indexes. A WITHOUT ROWID
 * table's primary key is stored under the table's own name. SQLite counts NULL as one value
 * here, so a distinct count includes it when the column holds NULLs.
 */
export function stat1Estimates(
  table: string,
  rows: readonly Stat1Row[],
  indexes: readonly IndexShape[],
): { rowCount?: number; distinct: Map<string, number> } {
  const distinct = new Map<string, number>();
  if (rows.length === 0) return { distinct };
  const byIndex = new Map(rows.filter((r) => r.idx !== null).map((r) => [r.idx as string, statNumbers(r.stat)]));
  const rowCount = Math.max(...rows.map((r) => statNumbers(r.stat)[0] ?? 0));
  for (const ix of indexes) {
    if (ix.partial || ix.leading === null) continue;
    const nums = byIndex.get(ix.name) ?? (ix.origin === 'pk' ? byIndex.get(table) : undefined);
    if (!nums || nums.length < 2 || nums[0] === 0 || nums[1] === 0) continue;
    // SQLite rounds the average up, so nrow / avg is at most the true count; round to the nearest
    const d = Math.max(1, Math.round(nums[0] / nums[1]));
    if (d > (distinct.get(ix.leading) ?? 0)) distinct.set(ix.leading, d);
  }
  return { rowCount, distinct };
}
