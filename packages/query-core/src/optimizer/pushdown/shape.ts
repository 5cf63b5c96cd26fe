import type { LogicalPlan } from '../../plan/logical.js';

/**
 * Which clauses of one SELECT a Remote subtree already uses. The absorb rules ask it whether
 * an operator fits on top of that SELECT or needs the subtree nested as a subquery in FROM
 * (which the source must declare: subqueryInFrom); physical/remote-query.ts nests exactly
 * where this says, so the optimizer never accepts a shape the converter cannot render.
 */
export interface SelectShape {
  readonly where: boolean;
  readonly aggregated: boolean;
  /** the select list holds computed expressions (not only columns) */
  readonly computed: boolean;
  readonly distinct: boolean;
  readonly ordered: boolean;
  readonly limited: boolean;
  /** the select list holds window functions (evaluated after WHERE, GROUP BY and HAVING) */
  readonly windowed: boolean;
}

export const EMPTY_SHAPE: SelectShape = {
  where: false,
  aggregated: false,
  computed: false,
  distinct: false,
  ordered: false,
  limited: false,
  windowed: false,
};

export type ShapeOp = 'Filter' | 'Project' | 'Aggregate' | 'Sort' | 'Limit' | 'Distinct' | 'Window';

/** SQL evaluates FROM, WHERE, GROUP BY, HAVING, SELECT, DISTINCT, ORDER BY, LIMIT in that order. */
export function needsSubquery(s: SelectShape, op: ShapeOp): boolean {
  switch (op) {
    case 'Filter':
      return s.limited || s.windowed;
    case 'Window':
      // windows see the rows before DISTINCT and LIMIT, and one window may read another's value
      return s.limited || s.distinct || s.windowed;
    case 'Project':
      return s.distinct;
    case 'Aggregate':
      return s.aggregated || s.limited || s.distinct || s.ordered || s.windowed;
    case 'Sort':
      return s.limited;
    case 'Limit':
      return false; // two limits combine into one
    case 'Distinct':
      // SELECT DISTINCT … ORDER BY needs the sort keys in the select list; nest instead
      return s.limited || s.ordered;
  }
}

export function applyOp(s: SelectShape, node: LogicalPlan): SelectShape {
  const op = node.kind as ShapeOp;
  const base = needsSubquery(s, op) ? EMPTY_SHAPE : s;
  switch (node.kind) {
    case 'Filter':
      return { ...base, where: true };
    case 'Project':
      return { ...base, computed: base.computed || node.exprs.some((e) => e.expr.kind !== 'ref') };
    case 'Aggregate':
      return { ...base, aggregated: true, computed: true };
    case 'Sort':
      return { ...base, ordered: true };
    case 'Limit':
      return { ...base, limited: true };
    case 'Distinct':
      return { ...base, distinct: true };
    case 'Window':
      return { ...base, windowed: true, computed: true };
    default:
      return EMPTY_SHAPE;
  }
}

/** How a join input relates to the join: its WHERE can go to the outer WHERE, into ON, or nowhere. */
export type SideRole = 'inner' | 'preserved' | 'null-supplying' | 'both';

export function sideRole(type: string, side: 'left' | 'right'): SideRole {
  switch (type) {
    case 'left':
      return side === 'left' ? 'preserved' : 'null-supplying';
    case 'right':
      return side === 'right' ? 'preserved' : 'null-supplying';
    case 'full':
      return 'both';
    default:
      return 'inner';
  }
}

export function sideNeedsSubquery(s: SelectShape, role: SideRole): boolean {
  if (s.aggregated || s.distinct || s.limited || s.windowed) return true;
  // computed columns of a null-supplying side must become NULL for unmatched rows, not be recomputed
  if (s.computed && (role === 'null-supplying' || role === 'both')) return true;
  return s.where && role === 'both';
}

export function shapeOf(plan: LogicalPlan): SelectShape {
  switch (plan.kind) {
    case 'Scan':
      return EMPTY_SHAPE;
    case 'Join': {
      const l = shapeOf(plan.left);
      if (plan.type === 'semi' || plan.type === 'anti') {
        // [NOT] EXISTS (…) is one more WHERE conjunct of the left side's SELECT
        return { ...(l.limited ? EMPTY_SHAPE : l), where: true };
      }
      const r = shapeOf(plan.right);
      const lw =
        !sideNeedsSubquery(l, sideRole(plan.type, 'left')) &&
        l.where &&
        sideRole(plan.type, 'left') !== 'null-supplying';
      const rw =
        !sideNeedsSubquery(r, sideRole(plan.type, 'right')) &&
        r.where &&
        sideRole(plan.type, 'right') !== 'null-supplying';
      return { ...EMPTY_SHAPE, where: lw || rw, computed: l.computed || r.computed };
    }
    case 'MarkJoin': {
      // one more computed select column of the left side's SELECT
      const l = shapeOf(plan.left);
      return { ...(needsSubquery(l, 'Project') ? EMPTY_SHAPE : l), computed: true };
    }
    case 'Filter':
    case 'Project':
    case 'Aggregate':
    case 'Sort':
    case 'Limit':
    case 'Distinct':
    case 'Window':
      return applyOp(shapeOf(plan.input), plan);
    default:
      return EMPTY_SHAPE;
  }
}

/** Whether the join's input needs nesting and so the source must declare subqueryInFrom. */
export function joinNeedsSubquery(type: string, left: LogicalPlan, right: LogicalPlan): boolean {
  if (type === 'semi' || type === 'anti') return semiJoinNesting(left, right).left || semiJoinNesting(left, right).right;
  return (
    sideNeedsSubquery(shapeOf(left), sideRole(type, 'left')) ||
    sideNeedsSubquery(shapeOf(right), sideRole(type, 'right'))
  );
}

/**
 * A semi/anti join renders as `left WHERE [NOT] EXISTS (right WHERE condition)`: the left
 * SELECT takes one more WHERE conjunct (nested when it is limited), and the right SELECT
 * one more WHERE conjunct below whatever it aggregates, de-duplicates or limits (nested then).
 */
export function semiJoinNesting(left: LogicalPlan, right: LogicalPlan): { left: boolean; right: boolean } {
  return { left: needsSubquery(shapeOf(left), 'Filter'), right: sideNeedsSubquery(shapeOf(right), 'inner') };
}

/**
 * A mark join renders as one more select column of the left SELECT, `EXISTS (right WHERE
 * condition)` or `x IN (…)`: the left is nested when its SELECT cannot take a column, the
 * right when it aggregates, de-duplicates or limits (the condition goes below those).
 */
export function markJoinNesting(left: LogicalPlan, right: LogicalPlan): { left: boolean; right: boolean } {
  return { left: needsSubquery(shapeOf(left), 'Project'), right: sideNeedsSubquery(shapeOf(right), 'inner') };
}
