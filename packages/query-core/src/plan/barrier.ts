import type { LogicalPlan } from './logical.js';
import { outputFields } from './fields.js';

/**
 * A view body's plan with its root marked as the view's security barrier: the root Project
 * itself when the body ends in one, else an identity Project over it (same ids), so every
 * view has exactly one node that says where its own rows are final.
 */
export function behindBarrier(plan: LogicalPlan, view: string): LogicalPlan {
  if (plan.kind === 'Project' && plan.securityBarrier === undefined) return { ...plan, securityBarrier: view };
  const exprs = outputFields(plan).map((f) => ({ field: f, expr: { kind: 'ref' as const, id: f.id, type: f.type } }));
  return { kind: 'Project', input: plan, exprs, securityBarrier: view };
}

/** The view whose security barrier lies at or below `plan` (inside Remote subtrees too), if any. */
export function barrierBelow(plan: LogicalPlan): string | undefined {
  switch (plan.kind) {
    case 'Project':
      return plan.securityBarrier ?? barrierBelow(plan.input);
    case 'Scan':
    case 'Values':
      return undefined;
    case 'Remote':
      return barrierBelow(plan.plan);
    case 'Join':
    case 'MarkJoin':
    case 'SetOp':
      return barrierBelow(plan.left) ?? barrierBelow(plan.right);
    default:
      return barrierBelow(plan.input);
  }
}
