import type { JType } from '@junction/connectors';
import type { Expr, Field, LogicalPlan } from '../plan/logical.js';
import { outputFields } from '../plan/fields.js';
import { printExpr } from '../plan/print.js';

export const BOOL: JType = { kind: 'bool' };

/** AND-ed parts of a predicate, flattened. */
export function conjuncts(e: Expr): Expr[] {
  if (e.kind === 'call' && e.fn === 'and') return e.args.flatMap(conjuncts);
  return [e];
}

export function conjoin(parts: readonly Expr[]): Expr | undefined {
  if (parts.length === 0) return undefined;
  return parts.reduce((a, b) => ({ kind: 'call', fn: 'and', args: [a, b], type: BOOL }));
}

/** Field ids an expression reads (uncorrelated subqueries read nothing from the outer row). */
export function refsOf(e: Expr, out: Set<number> = new Set()): Set<number> {
  switch (e.kind) {
    case 'ref':
      out.add(e.id);
      break;
    case 'call':
      for (const a of e.args) refsOf(a, out);
      break;
    case 'in':
      refsOf(e.expr, out);
      for (const a of e.list) refsOf(a, out);
      break;
    case 'case':
      if (e.operand) refsOf(e.operand, out);
      for (const w of e.whens) {
        refsOf(w.when, out);
        refsOf(w.then, out);
      }
      if (e.else) refsOf(e.else, out);
      break;
    case 'cast':
      refsOf(e.expr, out);
      break;
    default:
      break;
  }
  return out;
}

/** Replaces field references through `map`; unmapped refs stay. */
export function replaceRefs(e: Expr, map: ReadonlyMap<number, Expr>): Expr {
  const r = (x: Expr) => replaceRefs(x, map);
  switch (e.kind) {
    case 'ref':
      return map.get(e.id) ?? e;
    case 'call':
      return { ...e, args: e.args.map(r) };
    case 'in':
      return { ...e, expr: r(e.expr), list: e.list.map(r) };
    case 'case':
      return {
        ...e,
        ...(e.operand ? { operand: r(e.operand) } : {}),
        whens: e.whens.map((w) => ({ when: r(w.when), then: r(w.then) })),
        ...(e.else ? { else: r(e.else) } : {}),
      };
    case 'cast':
      return { ...e, expr: r(e.expr) };
    default:
      return e;
  }
}

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
  const visit = (p: LogicalPlan): void => {
    for (const f of outputFields(p)) names.set(f.id, f.name);
    if (p.kind === 'Remote') visit(p.plan);
    else if (p.kind === 'Join' || p.kind === 'SetOp') {
      visit(p.left);
      visit(p.right);
    } else if (p.kind !== 'Scan' && p.kind !== 'Values') visit(p.input);
  };
  plans.forEach(visit);
  return printExpr(e, names, { omitIds: true });
}

export function sameType(a: JType, b: JType): boolean {
  return (
    a.kind === b.kind &&
    a.precision === b.precision &&
    a.scale === b.scale &&
    a.length === b.length &&
    !!a.fixed === !!b.fixed
  );
}

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
