import type { JType, Row, Value } from '@junction/connectors';
import { canonicalValue } from '../hash-key.js';
import type { RowFn } from '../expr-fn.js';

/** Distinct non-NULL values of one column over `rows`, first spelling kept (for IN lists). */
export function distinctKeys(rows: Iterable<Row>, column: number | RowFn, type: JType): Value[] {
  const counter = new KeyCounter(column, type, Infinity);
  counter.add(rows);
  return counter.keys();
}

/** The keys of `a` that `b` holds too, compared as values of the column both are sent to. */
export function intersectKeys(a: readonly Value[], b: readonly Value[], type: JType): Value[] {
  const inB = new Set(b.map((v) => (v === null ? null : canonicalValue(v, type))));
  return a.filter((v) => v !== null && inB.has(canonicalValue(v, type)));
}

/**
 * A column's distinct non-NULL values, gathered batch by batch only until there are more than
 * `limit`: a join that may turn dependent learns early that it will not, and otherwise has the
 * keys it sends without a second pass over its rows.
 */
export class KeyCounter {
  private seen: Map<unknown, Value> | undefined = new Map();
  constructor(
    private readonly column: number | RowFn,
    private readonly type: JType,
    private readonly limit: number,
  ) {}

  /** true once the rows seen so far hold more than `limit` distinct keys */
  add(rows: Iterable<Row>): boolean {
    const seen = this.seen;
    if (!seen) return true;
    const column = this.column;
    for (const row of rows) {
      const v = typeof column === 'number' ? row[column] : column(row);
      if (v === null) continue;
      const k = canonicalValue(v, this.type);
      if (!seen.has(k)) seen.set(k, v);
    }
    if (seen.size <= this.limit) return false;
    this.seen = undefined;
    return true;
  }

  /** the keys seen, first spelling kept; only while there are at most `limit` */
  keys(): Value[] {
    if (!this.seen) throw new Error('KeyCounter: more keys than its limit were seen');
    return [...this.seen.values()];
  }
}
