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
