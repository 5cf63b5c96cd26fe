import type { JType } from '@junction/connectors';
import type { Expr, Field, LogicalPlan } from '../plan/logical.js';
import { outputFields } from '../plan/fields.js';
import { fieldNames, printExpr } from '../plan/print.js';

export const BOOL: JType = { kind: 'bool' };

export { conjoin, conjuncts, keyColumn, mapOperands, refsOf, replaceRefs } from '../plan/exprs.js';

/** Structural identity of an expression, for de-duplicating predicates. */
export function exprKey(e: Expr): string {
  return JSON.stringify(e, (_k, v) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
  );
}

export function planKey(p: LogicalPlan): string {
  return JSON.stringify(p, (_k, v) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
  );
}

export function fieldIds(plan: LogicalPlan): Set<number> {
  return new Set(outputFields(plan).map((f) => f.id));
}

export function subset(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

export function isConstant(e: Expr): boolean {
  return e.kind === 'literal' || e.kind === 'param';
}

/** `name#id` names for every field at or below `plan`, for notPushed texts. */
export function describe(e: Expr, plans: readonly LogicalPlan[]): string {
  const names = new Map<number, string>();
  for (const p of plans) fieldNames(p, names);
  return printExpr(e, names, { omitIds: true });
}

export { isInteger, sameType } from '../expr/types.js';

export function refExpr(f: Field): Expr {
  return { kind: 'ref', id: f.id, type: f.type };
}

/** Comparison operators and their mirror image (a < b  ⇔  b > a). */
export const MIRROR: Partial<Record<string, 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge'>> = {
  eq: 'eq',
  ne: 'ne',
  lt: 'gt',
  le: 'ge',
  gt: 'lt',
  ge: 'le',
};
