import type { Expr, LogicalPlan, NamedExpr } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { conjuncts, exprKey, fieldIds, isConstant, refsOf, replaceRefs, sameType, subset } from '../exprs.js';
import { addFilter } from './push-filter-into-join.js';

type Join = Extract<LogicalPlan, { kind: 'Join' }>;

/**
 * `c_custkey = o_custkey AND c_custkey < 10000` also restricts o_custkey: a one-column
 * predicate against constants known on one side of an equi-join is copied to the other side's
 * key, so both sources filter. Only in directions where every joined row satisfies it: both
 * ways for inner and semi joins, from the preserved side to the null-supplying side of an
 * outer join (the null-supplying side only matters where it matches).
 */
export function inferPredicatesThroughJoinKeys(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Join' || !node.condition) return undefined;
  const toRight = node.type === 'inner' || node.type === 'semi' || node.type === 'left' || node.type === 'anti';
  const toLeft = node.type === 'inner' || node.type === 'semi' || node.type === 'right';
  if (!toLeft && !toRight) return undefined;
  const left = fieldIds(node.left);
  const right = fieldIds(node.right);
  const pairs: [number, number][] = [];
  for (const c of conjuncts(node.condition)) {
    if (c.kind !== 'call' || c.fn !== 'eq') continue;
    const [a, b] = c.args;
    if (a.kind !== 'ref' || b.kind !== 'ref' || !sameType(a.type, b.type)) continue;
    // char(n) equality ignores trailing blanks, so `a = b` does not make every predicate on a hold for b
    if (a.type.kind === 'string' && a.type.fixed) continue;
    if (left.has(a.id) && right.has(b.id)) pairs.push([a.id, b.id]);
    else if (left.has(b.id) && right.has(a.id)) pairs.push([b.id, a.id]);
  }
  if (pairs.length === 0) return undefined;
  const newRight = toRight ? inferred(knownPredicates(node.left), knownPredicates(node.right), pairs, right) : [];
  const newLeft = toLeft
    ? inferred(
        knownPredicates(node.right),
        knownPredicates(node.left),
        pairs.map(([l, r]) => [r, l]),
        left,
      )
    : [];
  if (newLeft.length + newRight.length === 0) return undefined;
  return { ...node, left: addFilter(node.left, newLeft), right: addFilter(node.right, newRight) } satisfies Join;
}

function inferred(
  from: readonly Expr[],
  existing: readonly Expr[],
  pairs: readonly (readonly [number, number])[],
  target: ReadonlySet<number>,
): Expr[] {
  const have = new Set(existing.map(exprKey));
  const out: Expr[] = [];
  for (const p of from) {
    const refs = refsOf(p);
    if (refs.size !== 1 || !isColumnVsConstants(p)) continue;
    const [id] = refs;
    for (const [a, b] of pairs) {
      if (a !== id) continue;
      const type = refType(p, a);
      const copy = replaceRefs(p, new Map([[a, { kind: 'ref', id: b, type: type! }]]));
      const key = exprKey(copy);
      if (!have.has(key) && subset(refsOf(copy), target)) {
        have.add(key);
        out.push(copy);
      }
    }
  }
  return out;
}

/** cmp(col, constant), cmp(constant, col), col IN (constants), col BETWEEN-like pairs */
function isColumnVsConstants(p: Expr): boolean {
  if (p.kind === 'in') return p.expr.kind === 'ref' && p.list.every(isConstant);
  if (p.kind !== 'call' || !['eq', 'ne', 'lt', 'le', 'gt', 'ge'].includes(p.fn)) return false;
  const [a, b] = p.args;
  return (a.kind === 'ref' && isConstant(b)) || (b.kind === 'ref' && isConstant(a));
}

function refType(p: Expr, id: number) {
  if (p.kind === 'in' && p.expr.kind === 'ref' && p.expr.id === id) return p.expr.type;
  if (p.kind === 'call') for (const a of p.args) if (a.kind === 'ref' && a.id === id) return a.type;
  return undefined;
}

/** Conjuncts that hold for every row a subtree produces. */
export function knownPredicates(plan: LogicalPlan): Expr[] {
  switch (plan.kind) {
    case 'Filter':
      return [...conjuncts(plan.predicate), ...knownPredicates(plan.input)];
    case 'Join':
      switch (plan.type) {
        case 'inner':
        case 'cross':
          return [
            ...knownPredicates(plan.left),
            ...knownPredicates(plan.right),
            ...(plan.condition ? conjuncts(plan.condition) : []),
          ];
        case 'left':
        case 'semi':
        case 'anti':
          return knownPredicates(plan.left);
        case 'right':
          return knownPredicates(plan.right);
        default:
          return [];
      }
    case 'Sort':
    case 'Limit':
    case 'Distinct':
      return knownPredicates(plan.input);
    case 'Remote':
      return knownPredicates(plan.plan);
    case 'Project':
      return renamed(knownPredicates(plan.input), plan.exprs);
    case 'Aggregate':
      // a predicate on a grouping column holds for every group
      return renamed(knownPredicates(plan.input), plan.groupBy);
    case 'SetOp': {
      const toOutput = (side: LogicalPlan) =>
        renamed(
          knownPredicates(side),
          outputFields(side).map((f, i) => ({ field: plan.fields[i], expr: { kind: 'ref', id: f.id, type: f.type } })),
        );
      const left = toOutput(plan.left);
      if (plan.op === 'except') return left;
      const right = new Set(toOutput(plan.right).map(exprKey));
      // a union row comes from either input, an intersect row from both: what holds on both
      return plan.op === 'intersect' ? [...left, ...toOutput(plan.right)] : left.filter((f) => right.has(exprKey(f)));
    }
    default:
      return [];
  }
}

/** Predicates over the columns a projection passes through, in terms of its output fields. */
function renamed(facts: readonly Expr[], exprs: readonly NamedExpr[]): Expr[] {
  const map = new Map<number, Expr>();
  for (const e of exprs)
    if (e.expr.kind === 'ref' && !map.has(e.expr.id))
      map.set(e.expr.id, { kind: 'ref', id: e.field.id, type: e.field.type });
  return facts.filter((f) => [...refsOf(f)].every((id) => map.has(id))).map((f) => replaceRefs(f, map));
}
