import type { LogicalPlan, NotPushed } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { describe } from '../exprs.js';
import { annotate } from '../pushdown/annotate.js';
import { canPushSortKey } from '../pushdown/can-push.js';
import { needsSubquery, shapeOf } from '../pushdown/shape.js';

/** Sort(Remote) → Remote(Sort) when every key orders exactly as Junction does (NULLs included). */
export function absorbSortIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Sort' || node.input.kind !== 'Remote') return undefined;
  const remote = node.input;
  const caps = capabilitiesOf(ctx, remote.source);
  const notPushed: NotPushed[] = [];
  if (needsSubquery(shapeOf(remote.plan), 'Sort') && !caps.subqueryInFrom)
    notPushed.push({ what: 'ORDER BY', reason: 'source cannot nest a subquery' });
  else {
    for (const k of node.keys) {
      const check = canPushSortKey(k, caps);
      if (!check.ok) {
        notPushed.push({ what: `ORDER BY ${describe(k.expr, [remote])}`, reason: check.reason });
        break;
      }
    }
  }
  if (notPushed.length > 0) return annotate(node, notPushed);
  const { notPushed: _drop, ...sort } = node;
  void _drop;
  return { ...remote, plan: { ...sort, input: remote.plan } };
}
