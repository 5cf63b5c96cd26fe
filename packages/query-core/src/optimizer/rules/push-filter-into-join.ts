import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { conjoin, conjuncts, fieldIds, refsOf, subset } from '../exprs.js';

type Join = Extract<LogicalPlan, { kind: 'Join' }>;

/**
 * Moves predicates as close to the tables as the join type allows:
 * - Filter above a join: its conjuncts are split; one-side conjuncts go down where that side's
 *   rows are not null-extended, two-side conjuncts of an inner/cross join become join
 *   conditions (a cross join with a condition is an inner join).
 * - A join's own ON conjuncts that read one side only go into that side when that does not
 *   change which rows are preserved.
 */
export function pushFilterIntoJoin(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind === 'Filter' && node.input.kind === 'Join') return fromFilter(node.predicate, node.input);
  if (node.kind === 'Join' && node.condition) return fromCondition(node);
  return undefined;
}

/** Join types under which a one-side conjunct of a WHERE above the join, or of its ON, may go into that side. */
export const FILTER_TO_LEFT: ReadonlySet<string> = new Set(['inner', 'cross', 'left', 'semi', 'anti']);
export const FILTER_TO_RIGHT: ReadonlySet<string> = new Set(['inner', 'cross', 'right']);
export const ON_TO_LEFT: ReadonlySet<string> = new Set(['inner', 'cross', 'right', 'semi']);
export const ON_TO_RIGHT: ReadonlySet<string> = new Set(['inner', 'cross', 'left', 'semi', 'anti']);

function fromFilter(predicate: Expr, join: Join): LogicalPlan | undefined {
  const left = fieldIds(join.left);
  const right = fieldIds(join.right);
  const toLeft: Expr[] = [];
  const toRight: Expr[] = [];
  const toOn: Expr[] = [];
  const keep: Expr[] = [];
  for (const c of conjuncts(predicate)) {
    const refs = refsOf(c);
    if (refs.size === 0) keep.push(c);
    else if (subset(refs, left) && FILTER_TO_LEFT.has(join.type)) toLeft.push(c);
    else if (subset(refs, right) && FILTER_TO_RIGHT.has(join.type)) toRight.push(c);
    else if ((join.type === 'inner' || join.type === 'cross') && subset(refs, new Set([...left, ...right])))
      toOn.push(c);
    else keep.push(c);
  }
  if (toLeft.length + toRight.length + toOn.length === 0) return undefined;
  const condition = conjoin([...(join.condition ? conjuncts(join.condition) : []), ...toOn]);
  const out: Join = {
    ...join,
    type: join.type === 'cross' && condition ? 'inner' : join.type,
    left: addFilter(join.left, toLeft),
    right: addFilter(join.right, toRight),
    ...(condition ? { condition } : {}),
  };
  const rest = conjoin(keep);
  return rest ? { kind: 'Filter', input: out, predicate: rest } : out;
}

function fromCondition(join: Join): LogicalPlan | undefined {
  const left = fieldIds(join.left);
  const right = fieldIds(join.right);
  const toLeft: Expr[] = [];
  const toRight: Expr[] = [];
  const keep: Expr[] = [];
  for (const c of conjuncts(join.condition!)) {
    const refs = refsOf(c);
    if (refs.size > 0 && subset(refs, left) && ON_TO_LEFT.has(join.type)) toLeft.push(c);
    else if (refs.size > 0 && subset(refs, right) && ON_TO_RIGHT.has(join.type)) toRight.push(c);
    else keep.push(c);
  }
  if (toLeft.length + toRight.length === 0) return undefined;
  const condition = conjoin(keep);
  const { condition: _drop, ...rest } = join;
  void _drop;
  return {
    ...rest,
    type: join.type === 'inner' && !condition ? 'cross' : join.type,
    left: addFilter(join.left, toLeft),
    right: addFilter(join.right, toRight),
    ...(condition ? { condition } : {}),
  };
}

export function addFilter(plan: LogicalPlan, parts: readonly Expr[]): LogicalPlan {
  if (parts.length === 0) return plan;
  if (plan.kind === 'Filter') return { ...plan, predicate: conjoin([...conjuncts(plan.predicate), ...parts])! };
  return { kind: 'Filter', input: plan, predicate: conjoin(parts)! };
}
