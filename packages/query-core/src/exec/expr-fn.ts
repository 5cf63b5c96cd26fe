import type { Row, Value } from '@junction/connectors';

/** A compiled expression: evaluated against one row laid out as the operator's input. */
export type RowFn = (row: Row) => Value;

/** A hash key for one row's join/group columns; `null` when a key column is NULL (never equal under `=`). */
export type KeyFn = (row: Row) => unknown;

/** Total order for sort keys, already including direction and NULLS FIRST/LAST. */
export type RowComparator = (a: Row, b: Row) => number;
