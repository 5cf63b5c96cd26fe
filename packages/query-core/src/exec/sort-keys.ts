import type { JType, Row, Value } from '@junction/connectors';
import { comparatorFor } from '../expr/compare.js';
import type { RowComparator, RowFn } from './expr-fn.js';

export interface SortKeySpec {
  /** input position, or an expression over the input row */
  readonly column: number | RowFn;
  readonly type: JType;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

/** Orders rows by keys read at the given positions (PostgreSQL order, explicit NULLS FIRST/LAST). */
export function makePositionComparator(keys: readonly { position: number; type: JType; desc: boolean; nullsFirst: boolean }[]): RowComparator {
  const cmps = keys.map((k) => comparatorFor(k.type));
  const n = keys.length;
  return (a: Row, b: Row) => {
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      const x: Value = a[k.position];
      const y: Value = b[k.position];
      if (x === null || y === null) {
        if (x === y) continue;
        // a NULL sorts first exactly when nullsFirst, whatever the direction
        return (x === null) === k.nullsFirst ? -1 : 1;
      }
      const c = cmps[i](x, y);
      if (c !== 0) return k.desc ? -c : c;
    }
    return 0;
  };
}

/**
 * Sort keys that are expressions are evaluated once per row, not once per comparison:
 * rows are decorated with their key values, compared by those, and undecorated on output.
 */
export interface Decorator {
  readonly decorate: (row: Row) => Row;
  readonly undecorate: (row: Row) => Row;
  readonly compare: RowComparator;
}

export function makeDecorator(keys: readonly SortKeySpec[]): Decorator {
  if (keys.every((k) => typeof k.column === 'number')) {
    const compare = makePositionComparator(keys.map((k) => ({ ...k, position: k.column as number })));
    return { decorate: (r) => r, undecorate: (r) => r, compare };
  }
  const fns = keys.map((k) => (typeof k.column === 'number' ? ((p: number) => (r: Row) => r[p])(k.column) : k.column));
  // decorated row: [key0, …, keyN-1, originalRow]
  const compare = makePositionComparator(keys.map((k, i) => ({ ...k, position: i })));
  return {
    decorate: (row) => {
      const d: Row = fns.map((f) => f(row));
      (d as unknown[]).push(row);
      return d;
    },
    undecorate: (d) => d[fns.length] as unknown as Row,
    compare,
  };
}
