import type { JType, ScalarFn } from '@junction/connectors';
import type { Expr } from '../plan/logical.js';

/**
 * Leakproof expressions: those that cannot raise an error, whatever row they meet, and so
 * reveal nothing about a row but their value (PostgreSQL's LEAKPROOF). Only these may be
 * evaluated below a view's security barrier (Project.securityBarrier), on rows the view's own
 * filter may still remove: a predicate that can fail there (1/(salary - 90000) > 0, a cast
 * of a hidden column) tells the caller by its error that a hidden row holds some value.
 *
 * The list is the whole policy and deliberately short; anything not named here (arithmetic,
 * string functions, CASE, subqueries, casts that can fail) is treated as leaky.
 */
const LEAKPROOF_FNS: ReadonlySet<ScalarFn> = new Set<ScalarFn>([
  'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'is_distinct_from', 'is_not_distinct_from',
  'and', 'or', 'not',
  'is_null', 'is_not_null',
]);

/** Pattern matches whose pattern is a constant: a bad pattern fails on any row, not a chosen one. */
const PATTERN_FNS: ReadonlySet<ScalarFn> = new Set<ScalarFn>(['like', 'ilike', 'starts_with']);

const INTEGER_BITS: Readonly<Partial<Record<JType['kind'], number>>> = { int16: 16, int32: 32, int64: 64 };

export function isLeakproof(e: Expr): boolean {
  switch (e.kind) {
    case 'ref':
    case 'literal':
    case 'param':
      return true;
    case 'call':
      if (LEAKPROOF_FNS.has(e.fn)) return e.args.every(isLeakproof);
      if (PATTERN_FNS.has(e.fn)) return e.args.length === 2 && isLeakproof(e.args[0]) && isConstant(e.args[1]);
      return false;
    case 'in':
      return isLeakproof(e.expr) && e.list.every(isLeakproof);
    case 'cast':
      return isConstant(e.expr) || (isLeakproof(e.expr) && castCannotFail(e.expr.type, e.type));
    case 'case':
    case 'subquery':
    case 'raise':
      return false;
  }
}

function isConstant(e: Expr): boolean {
  return e.kind === 'literal' || e.kind === 'param' || (e.kind === 'cast' && isConstant(e.expr));
}

/** Casts the binder inserts to compare a column with a wider constant; none can fail. */
function castCannotFail(from: JType, to: JType): boolean {
  if (from.kind === to.kind && from.kind !== 'decimal' && (from.kind !== 'string' || to.length === undefined)) return true;
  const f = INTEGER_BITS[from.kind];
  if (f === undefined) return false;
  const t = INTEGER_BITS[to.kind];
  if (t !== undefined) return t >= f;
  return to.kind === 'float64' || (to.kind === 'float32' && f <= 16);
}

/** Why a predicate stays above a view's barrier, as EXPLAIN prints it. */
export function barrierReason(view: string): string {
  return `not leakproof: evaluated after view ${view}'s own filter`;
}
