import type { Expr, LogicalPlan, NotPushed } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { conjoin, conjuncts, describe } from '../exprs.js';
import { annotate } from '../pushdown/annotate.js';
import { canPushExpr } from '../pushdown/can-push.js';
import { needsSubquery, shapeOf } from '../pushdown/shape.js';

/**
 * Filter(Remote) → Remote(Filter) for the conjuncts the source evaluates exactly; the rest
 * stay in a Filter above, annotated with why (DataFusion's inexact/unsupported filters).
 */
export function absorbFilterIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Filter' || node.input.kind !== 'Remote') return undefined;
  const remote = node.input;
  const caps = capabilitiesOf(ctx, remote.source);
  const shape = shapeOf(remote.plan);
  const nest = needsSubquery(shape, 'Filter');
  const blocker = nest && !caps.subqueryInFrom ? 'source cannot nest a subquery' : !nest && shape.aggregated && !caps.having ? 'HAVING not supported by source' : undefined;
  const push: Expr[] = [];
  const keep: Expr[] = [];
  const notPushed: NotPushed[] = [];
  for (const c of conjuncts(node.predicate)) {
    const check = blocker ? { ok: false as const, reason: blocker } : canPushExpr(c, caps);
    if (check.ok) push.push(c);
    else {
      keep.push(c);
      notPushed.push({ what: describe(c, [remote]), reason: check.reason });
    }
  }
  if (push.length === 0) return annotate(node, notPushed);
  const inner: LogicalPlan = { kind: 'Filter', input: remote.plan, predicate: conjoin(push)! };
  const absorbed: LogicalPlan = { ...remote, plan: inner };
  if (keep.length === 0) return absorbed;
  return { kind: 'Filter', input: absorbed, predicate: conjoin(keep)!, notPushed };
}
