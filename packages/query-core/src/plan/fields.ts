import type { Field, LogicalPlan } from './logical.js';

/** The fields a node produces, in row order. */
export function outputFields(plan: LogicalPlan): readonly Field[] {
  switch (plan.kind) {
    case 'Scan':
    case 'Remote':
    case 'SetOp':
    case 'Values':
      return plan.fields;
    case 'Filter':
    case 'Sort':
    case 'Limit':
    case 'Distinct':
      return outputFields(plan.input);
    case 'Project':
      return plan.exprs.map((e) => e.field);
    case 'Join': {
      const left = outputFields(plan.left);
      if (plan.type === 'semi' || plan.type === 'anti') return left;
      const right = outputFields(plan.right);
      // outer joins make the other side's fields nullable
      const l = plan.type === 'right' || plan.type === 'full' ? left.map((f) => ({ ...f, nullable: true })) : left;
      const r = plan.type === 'left' || plan.type === 'full' ? right.map((f) => ({ ...f, nullable: true })) : right;
      return [...l, ...r];
    }
    case 'MarkJoin':
      return [...outputFields(plan.left), plan.mark];
    case 'Aggregate':
      return [...plan.groupBy.map((g) => g.field), ...plan.aggregates.map((a) => a.field)];
    case 'Window':
      return [...outputFields(plan.input), ...plan.windows.map((w) => w.field)];
  }
}

/** Direct children, left to right. */
export function children(plan: LogicalPlan): LogicalPlan[] {
  switch (plan.kind) {
    case 'Scan':
    case 'Values':
    case 'Remote':
      return [];
    case 'Join':
    case 'MarkJoin':
    case 'SetOp':
      return [plan.left, plan.right];
    default:
      return [plan.input];
  }
}

/**
 * What a source reads to answer `side` when asked for rows by the join keys `keys`: a Remote
 * whose aggregate groups by one of them gets the IN lists in its WHERE, before grouping
 * (restrictToKeys), so its input, not its few groups, is what asking by key saves (TPC-H Q11's
 * partial sum per s_nationkey: 25 groups standing for all of partsupp).
 */
export function readByKeys(side: LogicalPlan, keys: ReadonlySet<number>): LogicalPlan {
  const plan = side.kind === 'Remote' ? side.plan : side;
  return plan.kind === 'Aggregate' && plan.groupBy.some((g) => keys.has(g.field.id)) ? plan.input : side;
}
