import type { Expr, LogicalPlan } from '../plan/logical.js';
import { children } from '../plan/fields.js';
import { tableInfo, tableRowCount, type OptimizeInput } from './context.js';
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
  let equi = false;
  for (const c of join.condition ? conjuncts(join.condition) : []) {
    if (c.kind === 'call' && c.fn === 'eq' && c.args[0].kind === 'ref' && c.args[1].kind === 'ref') {
      // |L ⋈ R| = |L|·|R| / max(ndv): a unique key's ndv is its table's rows; for other
      // columns the bigger input stands in (a foreign key joins at most once per key)
      const ndv = Math.max(uniqueRows(c.args[0].id, join, ctx) ?? 0, uniqueRows(c.args[1].id, join, ctx) ?? 0);
      rows /= Math.max(1, ndv > 0 ? ndv : equi ? 1 : Math.max(l, r));
      equi = true;
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

/** Rows of the base table when field `id` is its single-column primary key (so ndv = rows). */
export function uniqueRows(id: number, plan: LogicalPlan, ctx: OptimizeInput): number | undefined {
  if (plan.kind === 'Scan') {
    const i = plan.fields.findIndex((f) => f.id === id);
    if (i < 0) return undefined;
    const info = tableInfo(ctx, plan.table);
    const pk = info?.primaryKey;
    const unique =
      (pk?.length === 1 && pk[0] === plan.columns[i]) ||
      !!info?.indexes.some((x) => x.unique && x.columns.length === 1 && x.columns[0] === plan.columns[i]);
    return unique ? scanRows(plan, ctx) : undefined;
  }
  if (plan.kind === 'Remote') return uniqueRows(id, plan.plan, ctx);
  // keys passed through a projection keep their id; an aggregate's groups are no longer rows of the table
  if (plan.kind === 'Aggregate') return undefined;
  for (const c of children(plan)) {
    const n = uniqueRows(id, c, ctx);
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
  if (c.kind === 'in') return c.negated ? 0.9 : Math.min(0.5, 0.05 * c.list.length);
  if (c.kind !== 'call') return 0.5;
  const [a, b] = c.args;
  switch (c.fn) {
    case 'eq': {
      const column =
        a?.kind === 'ref' && b && isConstant(b) ? a : b?.kind === 'ref' && a && isConstant(a) ? b : undefined;
      if (column?.kind !== 'ref') return 0.1;
      // a unique key matches one row; otherwise no column statistics: a 1-in-100 value
      const unique = uniqueRows(column.id, input, ctx);
      return unique !== undefined ? 1 / Math.max(1, unique) : 0.01;
    }
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
