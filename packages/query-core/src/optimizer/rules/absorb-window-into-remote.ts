import type { LogicalPlan, NotPushed } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { describe } from '../exprs.js';
import { annotate } from '../pushdown/annotate.js';
import { canPushWindow } from '../pushdown/can-push.js';
import { needsSubquery, shapeOf } from '../pushdown/shape.js';

/**
 * Window(Remote) → Remote(Window) when the source runs every window function of the node
 * with Junction's meaning (top-N per group, running totals…); otherwise the reasons are
 * recorded and Junction computes the windows over the source's rows.
 */
export function absorbWindowIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Window' || node.input.kind !== 'Remote') return undefined;
  const remote = node.input;
  const caps = capabilitiesOf(ctx, remote.source);
  const notPushed: NotPushed[] = [];
  for (const w of node.windows) {
    const check = canPushWindow(w, caps);
    if (!check.ok) notPushed.push({ what: `${w.field.name} := ${w.fn}(${w.args.map((a) => describe(a, [remote])).join(', ')}) OVER (…)`, reason: check.reason });
  }
  if (notPushed.length === 0 && needsSubquery(shapeOf(remote.plan), 'Window') && !caps.subqueryInFrom)
    notPushed.push({ what: 'window functions', reason: 'source cannot nest a subquery' });
  if (notPushed.length > 0) return annotate(node, notPushed);
  const { notPushed: _drop, ...window } = node;
  void _drop;
  return { ...remote, plan: { ...window, input: remote.plan }, fields: [...remote.fields, ...node.windows.map((w) => w.field)] };
}
