import type { Expr, LogicalPlan } from '../plan/logical.js';
import { children } from '../plan/fields.js';
import { tableRowCount, type OptimizeInput } from './context.js';
import { conjuncts, isConstant } from './exprs.js';

/** Rows assumed for a table whose source keeps no statistics. */
export const DEFAULT_TABLE_ROWS = 1000;

/**
 * Cardinality estimates from source statistics (row counts only) and fixed selectivities,
 * in the spirit of System R: good enough to order joins and pick build sides, never used
 * for correctness.
 */
export function estimateRows(plan: LogicalPlan, ctx: OptimizeInput): number {
  switch (plan.kind) {
    case 'Scan':
      return scanRows(plan, ctx);
    case 'Remote':
      return estimateRows(plan.plan, ctx);
    case 'Values':
      return plan.rows.length;
    case 'Filter':
      return Math.max(1, estimateRows(plan.input, ctx) * selectivity(plan.predicate, plan.input, ctx));
    case 'Project':
    case 'Sort':
    case 'Window':
      return estimateRows(plan.input, ctx);
    case 'Distinct':
      return Math.max(1, estimateRows(plan.input, ctx) / 2);
    case 'Limit': {
      const n = Math.max(0, estimateRows(plan.input, ctx) - plan.offset);
      return plan.limit === undefined ? n : Math.min(n, plan.limit);
    }
    case 'Aggregate':
      return plan.groupBy.length === 0 ? 1 : Math.max(1, estimateRows(plan.input, ctx) / 10);
    case 'SetOp': {
      const l = estimateRows(plan.left, ctx);
      const r = estimateRows(plan.right, ctx);
      return plan.op === 'union' ? l + r : plan.op === 'intersect' ? Math.min(l, r) : l;
    }
    case 'Join':
      return joinRows(plan, ctx);
  }
}

function scanRows(scan: Extract<LogicalPlan, { kind: 'Scan' }>, ctx: OptimizeInput): number {
  return scan.rowCount ?? tableRowCount(ctx, scan.table) ?? DEFAULT_TABLE_ROWS;
}

function joinRows(join: Extract<LogicalPlan, { kind: 'Join' }>, ctx: OptimizeInput): number {
  const l = estimateRows(join.left, ctx);
  const r = estimateRows(join.right, ctx);
  let rows = l * r;
  for (const c of join.condition ? conjuncts(join.condition) : []) {
    if (c.kind === 'call' && c.fn === 'eq' && c.args[0].kind === 'ref' && c.args[1].kind === 'ref') {
      // distinct keys ≈ rows of the table the key column comes from (keys are mostly unique)
      const ndv = Math.max(baseRows(c.args[0].id, join, ctx) ?? Math.max(l, r), baseRows(c.args[1].id, join, ctx) ?? Math.max(l, r));
      rows /= Math.max(1, ndv);
    } else rows *= 0.5;
  }
  switch (join.type) {
    case 'semi':
    case 'anti':
      return Math.max(1, Math.min(l, rows));
    case 'left':
      return Math.max(l, rows);
    case 'right':
      return Math.max(r, rows);
    case 'full':
      return Math.max(l + r, rows);
    default:
      return Math.max(1, rows);
  }
}

/** Rows of the base table that produces field `id`, if it comes straight from a scan. */
export function baseRows(id: number, plan: LogicalPlan, ctx: OptimizeInput): number | undefined {
  if (plan.kind === 'Scan') return plan.fields.some((f) => f.id === id) ? scanRows(plan, ctx) : undefined;
  if (plan.kind === 'Remote') return baseRows(id, plan.plan, ctx);
  for (const c of children(plan)) {
    const n = baseRows(id, c, ctx);
    if (n !== undefined) return n;
  }
  return undefined;
}

function selectivity(predicate: Expr, input: LogicalPlan, ctx: OptimizeInput): number {
  let s = 1;
  for (const c of conjuncts(predicate)) s *= conjunctSelectivity(c, input, ctx);
  return s;
}

function conjunctSelectivity(c: Expr, input: LogicalPlan, ctx: OptimizeInput): number {
  void input;
  void ctx;
  if (c.kind === 'in') return c.negated ? 0.9 : Math.min(0.5, 0.05 * c.list.length);
  if (c.kind !== 'call') return 0.5;
  const [a, b] = c.args;
  switch (c.fn) {
    case 'eq':
      // no column statistics beyond row counts: a 1-in-20 value, the classic default
      return (a && isConstant(a)) || (b && isConstant(b)) ? 0.05 : 0.1;
    case 'ne':
      return 0.9;
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge':
      return 0.33;
    case 'like':
    case 'ilike':
      return 0.25;
    case 'not':
      return 1 - conjunctSelectivity(a, input, ctx) * 0.5;
    case 'or':
      return Math.min(1, conjunctSelectivity(a, input, ctx) + conjunctSelectivity(b, input, ctx));
    case 'is_null':
      return 0.05;
    default:
      return 0.5;
  }
}
