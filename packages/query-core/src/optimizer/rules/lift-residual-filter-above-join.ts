import type { LogicalPlan } from '../../plan/logical.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { canPushExpr } from '../pushdown/can-push.js';

type Join = Extract<LogicalPlan, { kind: 'Join' }>;

/**
 * Join(Filter(Remote s), Remote s) where the Filter is what the source could not evaluate
 * (absorb-filter-into-remote already annotated it) → Filter(Join(Remote s, Remote s)), so the
 * join still runs inside s and only the residual predicate stays in Junction. Only from a
 * side whose rows the join does not null-extend, and only when s could take the join.
 */
export function liftResidualFilterAboveJoin(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Join') return undefined;
  for (const side of ['left', 'right'] as const) {
    const child = node[side];
    const other = side === 'left' ? node.right : node.left;
    if (child.kind !== 'Filter' || !child.notPushed || child.input.kind !== 'Remote') continue;
    const otherRemote =
      other.kind === 'Remote'
        ? other
        : other.kind === 'Filter' && other.notPushed && other.input.kind === 'Remote'
          ? other.input
          : undefined;
    if (!otherRemote || otherRemote.source !== child.input.source) continue;
    const liftable =
      node.type === 'inner' ||
      node.type === 'cross' ||
      (node.type === 'left' && side === 'left') ||
      (node.type === 'right' && side === 'right');
    if (!liftable) continue;
    const caps = capabilitiesOf(ctx, child.input.source);
    const type = node.type === 'inner' && !node.condition ? 'cross' : node.type;
    if (!caps.joins[type]) continue;
    if (node.condition && !canPushExpr(node.condition, caps).ok) continue;
    const join: Join = { ...node, [side]: child.input };
    return { ...child, input: join };
  }
  return undefined;
}
