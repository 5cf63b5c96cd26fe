import type { Expr, LogicalPlan, NotPushed } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { conjoin, conjuncts, describe, refsOf } from '../exprs.js';
import { barrierBelow } from '../../plan/barrier.js';
import { barrierReason, isLeakproof } from '../leakproof.js';
import { annotate, fieldSources, spansSources } from '../pushdown/annotate.js';
import { canPushExpr } from '../pushdown/can-push.js';
import { needsSubquery, shapeOf } from '../pushdown/shape.js';

/**
 * Filter(Remote) → Remote(Filter) for the conjuncts the source evaluates exactly; the rest
 * stay in a Filter above, annotated with why (DataFusion's inexact/unsupported filters).
 * Into a Remote holding a view's security barrier only leakproof conjuncts go.
 */
export function absorbFilterIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Filter') return undefined;
  if (node.input.kind !== 'Remote') return annotateSpanning(node, ctx);
  const remote = node.input;
  const caps = capabilitiesOf(ctx, remote.source);
  const shape = shapeOf(remote.plan);
  const nest = needsSubquery(shape, 'Filter');
  const blocker =
    nest && !caps.subqueryInFrom
      ? 'source cannot nest a subquery'
      : !nest && shape.aggregated && !caps.having
        ? 'HAVING not supported by source'
        : undefined;
  const push: Expr[] = [];
  const keep: Expr[] = [];
  const notPushed: NotPushed[] = [];
  // one statement lets the source order its predicates as it likes, the view's own among them
  const view = barrierBelow(remote.plan);
  for (const c of conjuncts(node.predicate)) {
    const check = blocker
      ? { ok: false as const, reason: blocker }
      : view !== undefined && !isLeakproof(c)
        ? { ok: false as const, reason: barrierReason(view) }
        : canPushExpr(c, caps);
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

/** A filter left above a federated join: say which conjuncts read several sources. */
function annotateSpanning(node: Extract<LogicalPlan, { kind: 'Filter' }>, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.notPushed || node.input.kind !== 'Join') return undefined;
  const sources = fieldSources(node.input);
  const notPushed: NotPushed[] = [];
  for (const c of conjuncts(node.predicate)) {
    const used = new Set([...refsOf(c)].map((id) => sources.get(id)).filter((s): s is string => s !== undefined));
    if (used.size > 1)
      notPushed.push({ what: describe(c, [node.input]), reason: spansSources(used, ctx) });
  }
  return notPushed.length > 0 ? annotate(node, notPushed) : undefined;
}
