import type { LogicalPlan, NotPushed } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { describe } from '../exprs.js';
import { annotate } from '../pushdown/annotate.js';
import { canPushExpr } from '../pushdown/can-push.js';
import { needsSubquery, shapeOf } from '../pushdown/shape.js';

/** Project(Remote) → Remote(Project) when the source computes every expression exactly. */
export function absorbProjectIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Project' || node.input.kind !== 'Remote') return undefined;
  const remote = node.input;
  const caps = capabilitiesOf(ctx, remote.source);
  const notPushed: NotPushed[] = [];
  if (needsSubquery(shapeOf(remote.plan), 'Project') && !caps.subqueryInFrom) {
    notPushed.push({ what: 'projection', reason: 'source cannot nest a subquery' });
  } else {
    for (const e of node.exprs) {
      const check = canPushExpr(e.expr, caps);
      if (!check.ok) notPushed.push({ what: `${e.field.name} := ${describe(e.expr, [remote])}`, reason: check.reason });
    }
  }
  if (notPushed.length > 0) return annotate(node, notPushed);
  const { notPushed: _drop, ...project } = node;
  void _drop;
  return {
    kind: 'Remote',
    source: remote.source,
    plan: { ...project, input: remote.plan },
    fields: node.exprs.map((e) => e.field),
  };
}
