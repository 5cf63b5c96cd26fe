import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { mapOperands, widensExactly } from '../../plan/exprs.js';
import { replaceRefs, sameType } from '../exprs.js';

/**
 * Project(Project(x)) → one Project over x, and a Project that passes its input through
 * unchanged (same ids, same order) disappears: every Project is an operator the executor
 * runs per batch, and the binder's select list over the join order's reordering Project is
 * two of them.
 */
export function mergeProjections(node: LogicalPlan): LogicalPlan | undefined {
  if (node.kind !== 'Project') return undefined;
  const input = outputFields(node.input);
  const identity =
    node.exprs.length === input.length &&
    node.exprs.every((e, i) => e.expr.kind === 'ref' && e.expr.id === input[i].id && e.field.id === input[i].id);
  // a view's barrier stays even when it computes nothing: it is where the view's rows are final
  if (identity && !node.notPushed && node.securityBarrier === undefined) return node.input;
  if (node.input.kind !== 'Project' || node.input.notPushed || node.notPushed) return undefined;
  const inner = node.input;
  if (inner.exprs.some((e) => e.expr.kind === 'subquery')) return undefined;
  const map = new Map<number, Expr>(inner.exprs.map((e) => [e.field.id, e.expr]));
  // nothing filters between the two, so the merged node stands where the barrier stood
  const barrier = node.securityBarrier ?? inner.securityBarrier;
  return {
    kind: 'Project',
    input: inner.input,
    exprs: node.exprs.map((e) => ({ field: e.field, expr: dropRoundTripCasts(replaceRefs(e.expr, map)) })),
    ...(barrier !== undefined ? { securityBarrier: barrier } : {}),
  };
}

/**
 * CAST(CAST(x AS wider) AS x's type) → x, when the inner cast loses nothing (an integer to a
 * decimal, say): merging a count's projection into the grouping's that sums its per-source
 * parts leaves that round trip, a decimal conversion per row for nothing.
 */
function dropRoundTripCasts(e: Expr): Expr {
  const inner = mapOperands(e, dropRoundTripCasts);
  if (inner.kind !== 'cast' || inner.expr.kind !== 'cast') return inner;
  const x = inner.expr.expr;
  return widensExactly(x.type, inner.expr.type) && sameType(x.type, inner.type) ? x : inner;
}
