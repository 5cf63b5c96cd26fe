import type { JType, Row, Value } from '@junction/connectors';
import { canonicalValue } from '../hash-key.js';
import type { RowFn } from '../expr-fn.js';

/** Distinct non-NULL values of one column over `rows`, first spelling kept (for IN lists). */
export function distinctKeys(rows: Iterable<Row>, column: number | RowFn, type: JType): Value[] {
  const seen = new Map<unknown, Value>();
  for (const row of rows) {
    const v = typeof column === 'number' ? row[column] : column(row);
    if (v === null) continue;
    const k = canonicalValue(v, type);
    if (!seen.has(k)) seen.set(k, v);
  }
  return [...seen.values()];
}

/** The keys of `a` that `b` holds too, compared as values of the column both are sent to. */
export function intersectKeys(a: readonly Value[], b: readonly Value[], type: JType): Value[] {
  const inB = new Set(b.map((v) => (v === null ? null : canonicalValue(v, type))));
  return a.filter((v) => v !== null && inB.has(canonicalValue(v, type)));
}

/**
 * Counts a column's distinct non-NULL values batch by batch, only until there are more than
 * `limit`: a join that may turn dependent learns early that it will not.
 */
export class KeyCounter {
  private seen: Set<unknown> | undefined = new Set();
  constructor(
    private readonly column: number | RowFn,
    private readonly type: JType,
    private readonly limit: number,
  ) {}

  /** true once the rows seen so far hold more than `limit` distinct keys */
  add(rows: readonly Row[]): boolean {
    const seen = this.seen;
    if (!seen) return true;
    const column = this.column;
    for (const row of rows) {
      const v = typeof column === 'number' ? row[column] : column(row);
      if (v !== null) seen.add(canonicalValue(v, this.type));
    }
    if (seen.size <= this.limit) return false;
    this.seen = undefined;
    return true;
  }
}
