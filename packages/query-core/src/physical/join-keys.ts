import type { Expr } from '../plan/logical.js';
import { conjuncts, refsOf } from '../plan/exprs.js';

export interface EquiKey {
  readonly left: Expr;
  readonly right: Expr;
}

/**
 * Splits a join condition into equality keys (one side over left fields only, the other
 * over right fields only) and the residual rest, evaluated on the joined row.
 */
export function splitJoinCondition(
  condition: Expr | undefined,
  leftIds: ReadonlySet<number>,
  rightIds: ReadonlySet<number>,
): { keys: EquiKey[]; residual: Expr[] } {
  const keys: EquiKey[] = [];
  const residual: Expr[] = [];
  if (!condition) return { keys, residual };
  for (const c of conjuncts(condition)) {
    if (c.kind === 'call' && c.fn === 'eq' && c.args.length === 2) {
      const [a, b] = c.args;
      const ra = refsOf(a);
      const rb = refsOf(b);
      if (ra.size > 0 && rb.size > 0) {
        if (within(ra, leftIds) && within(rb, rightIds)) {
          keys.push({ left: a, right: b });
          continue;
        }
        if (within(ra, rightIds) && within(rb, leftIds)) {
          keys.push({ left: b, right: a });
          continue;
        }
      }
    }
    residual.push(c);
  }
  return { keys, residual };
}

/**
 * The key pair of an uncorrelated NOT IN: the binder's anti join condition
 * `x = y OR x IS NULL OR y IS NULL` (each IS NULL only where that side may be NULL), with x
 * over the left fields and y over the right ones. undefined for any other condition.
 */
export function notInKeys(condition: Expr | undefined, leftIds: ReadonlySet<number>, rightIds: ReadonlySet<number>): EquiKey | undefined {
  if (!condition) return undefined;
  const parts = disjuncts(condition);
  const eqs = parts.filter((p) => p.kind === 'call' && p.fn === 'eq');
  if (eqs.length !== 1 || parts.length === 1) return undefined;
  const [key] = splitJoinCondition(eqs[0], leftIds, rightIds).keys;
  if (!key) return undefined;
  const same = (a: Expr, b: Expr) => JSON.stringify(a, bigints) === JSON.stringify(b, bigints);
  const nullTests = parts.filter((p) => p !== eqs[0]);
  const ok = nullTests.every((p) => p.kind === 'call' && p.fn === 'is_null' && p.args.length === 1 && (same(p.args[0], key.left) || same(p.args[0], key.right)));
  return ok ? key : undefined;
}

function disjuncts(e: Expr): Expr[] {
  if (e.kind === 'call' && e.fn === 'or') return e.args.flatMap(disjuncts);
  return [e];
}

function bigints(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}

function within(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
