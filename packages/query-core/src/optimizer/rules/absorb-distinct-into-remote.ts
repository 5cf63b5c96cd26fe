import type { LogicalPlan } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { canPushDistinct } from '../pushdown/can-push.js';
import { needsSubquery, shapeOf } from '../pushdown/shape.js';

/** Distinct(Remote) → Remote(Distinct) when the source compares every column for equality exactly. */
export function absorbDistinctIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Distinct' || node.input.kind !== 'Remote') return undefined;
  const remote = node.input;
  const caps = capabilitiesOf(ctx, remote.source);
  if (!canPushDistinct(remote.fields, caps).ok) return undefined;
  if (needsSubquery(shapeOf(remote.plan), 'Distinct') && !caps.subqueryInFrom) return undefined;
  return { ...remote, plan: { kind: 'Distinct', input: remote.plan } };
}
