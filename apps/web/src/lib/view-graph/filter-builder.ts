import { typeFamily } from './join-warnings.js';
import { columnSql, type ColumnRef } from './model.js';

export const FILTER_OPS = ['=', '<>', '<', '<=', '>', '>=', 'LIKE', 'IS NULL', 'IS NOT NULL'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** `value` as a SQL literal of the column's type family: numbers bare, dates typed, text quoted. */
export function literalFor(type: string, value: string): string {
  const v = value.trim();
  const family = typeFamily(type);
  if (family === 'number' && /^-?\d+(\.\d+)?$/.test(v)) return v;
  if (family === 'bool' && /^(true|false)$/i.test(v)) return v.toUpperCase();
  const quoted = `'${v.replace(/'/g, "''")}'`;
  if (family === 'temporal')
    return `${/^timestamp/i.test(type) ? 'TIMESTAMP' : type.toUpperCase() === 'TIME' ? 'TIME' : 'DATE'} ${quoted}`;
  return quoted;
}

/** A WHERE predicate from the filter builder's column, operator and value. */
export function buildPredicate(ref: ColumnRef, type: string, op: FilterOp, value: string): string {
  const col = columnSql(ref);
  if (op === 'IS NULL' || op === 'IS NOT NULL') return `${col} ${op}`;
  return `${col} ${op} ${literalFor(op === 'LIKE' ? 'text' : type, value)}`;
}
