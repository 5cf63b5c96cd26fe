import type { ColumnStats } from '@junction/connectors';
import type { Expr, LogicalPlan } from '../plan/logical.js';
import { children, outputFields } from '../plan/fields.js';
import { coversUniqueKey } from '../catalog/tables.js';
import { tableInfo, tableRowCount, type OptimizeInput } from './context.js';
import { conjuncts, isConstant, keyColumn } from './exprs.js';

/** Rows assumed for a table whose source keeps no statistics. */
export const DEFAULT_TABLE_ROWS = 1000;

/**
 * Rows Junction would read from its sources to run an optimized plan: what each statement sent
 * to a source returns (a bare scan: its whole table). What `auto` weighs against a backend.
 */
export function estimateRowsFetched(plan: LogicalPlan, ctx: OptimizeInput): number {
  if (plan.kind === 'Remote' || plan.kind === 'Scan') return estimateRows(plan, ctx);
  return children(plan).reduce((n, c) => n + estimateRowsFetched(c, ctx), 0);
}

/** a held row's bytes in Junction's hash tables and sort buffers, roughly: for choosing an engine only */
const heldRowBytes = (columns: number): number => 64 + 32 * columns;

/**
 * The memory Junction itself would hold to run a plan: each join's smaller input (its hash
 * table), each aggregate's groups, each sort's, window's and distinct's input; what a source runs
 * (Remote) holds nothing here. A rough figure against the memory budget: a plan far above it
 * spills, which is where a distributed engine pays off.
 */
export function estimateLocalMemory(plan: LogicalPlan, ctx: OptimizeInput): number {
  if (plan.kind === 'Remote' || plan.kind === 'Scan') return 0;
  let own = 0;
  switch (plan.kind) {
    case 'Join':
    case 'MarkJoin': {
      const l = estimateRows(plan.left, ctx);
      const r = estimateRows(plan.right, ctx);
      own = Math.min(l, r) * heldRowBytes(outputFields(l <= r ? plan.left : plan.right).length);
      break;
    }
    case 'Aggregate':
      own = estimateRows(plan, ctx) * heldRowBytes(outputFields(plan).length);
      break;
    case 'Sort':
    case 'Window':
    case 'Distinct':
      own = estimateRows(plan.input, ctx) * heldRowBytes(outputFields(plan.input).length);
      break;
  }
  return own + children(plan).reduce((n, c) => n + estimateLocalMemory(c, ctx), 0);
}

/**
 * Cardinality estimates from source statistics — row counts, and per column the distinct
 * count, NULL fraction, min/max and most common values where the source keeps them — with
 * System R's fixed selectivities where it does not: good enough to order joins and pick
 * build and driver sides, never used for correctness.
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
    case 'Aggregate': {
      if (plan.groupBy.length === 0) return 1;
      const input = estimateRows(plan.input, ctx);
      // groups: the product of the keys' distinct counts where all are known, never more than the rows
      let groups = 1;
      for (const g of plan.groupBy) {
        const d = distinctOf(g.expr, plan.input, ctx);
        if (d === undefined) return Math.max(1, input / 10);
        groups *= d;
      }
      return Math.max(1, Math.min(input, groups));
    }
    case 'SetOp': {
      const l = estimateRows(plan.left, ctx);
      const r = estimateRows(plan.right, ctx);
      return plan.op === 'union' ? l + r : plan.op === 'intersect' ? Math.min(l, r) : l;
    }
    case 'Join':
      return joinRows(plan, ctx);
    case 'MarkJoin':
      return estimateRows(plan.left, ctx);
  }
}

function scanRows(scan: Extract<LogicalPlan, { kind: 'Scan' }>, ctx: OptimizeInput): number {
  return scan.rowCount ?? tableRowCount(ctx, scan.table) ?? DEFAULT_TABLE_ROWS;
}

function joinRows(join: Extract<LogicalPlan, { kind: 'Join' }>, ctx: OptimizeInput): number {
  const l = estimateRows(join.left, ctx);
  const r = estimateRows(join.right, ctx);
  let rows = l * r;
  let keys = 0;
  // the distinct combinations of several key columns: their ndvs multiplied, but never more
  // than the bigger input has rows (partsupp ⋈ lineitem on partkey AND suppkey is one composite
  // key, not two independent ones)
  let keyNdv = 1;
  const equalities: { left: number; right: number }[] = [];
  const leftIds = new Set(outputFields(join.left).map((f) => f.id));
  for (const c of join.condition ? conjuncts(join.condition) : []) {
    if (c.kind === 'call' && c.fn === 'eq' && c.args[0].kind === 'ref' && c.args[1].kind === 'ref') {
      const [a, b] = [c.args[0].id, c.args[1].id];
      if (leftIds.has(a) !== leftIds.has(b)) equalities.push(leftIds.has(a) ? { left: a, right: b } : { left: b, right: a });
      // |L ⋈ R| = |L|·|R| / max(ndv): a unique key's ndv is its table's rows, another column's
      // its statistics' distinct count; else the bigger input stands in (a foreign key joins at
      // most once per key)
      const ndv = Math.max(
        uniqueRows(c.args[0].id, join, ctx) ?? distinctOf(c.args[0], join, ctx) ?? 0,
        uniqueRows(c.args[1].id, join, ctx) ?? distinctOf(c.args[1], join, ctx) ?? 0,
      );
      keyNdv *= Math.max(1, ndv > 0 ? ndv : keys > 0 ? 1 : Math.max(l, r));
      keys++;
    } else rows *= 0.5;
  }
  // several key columns that together are a unique key of one side's table (partsupp's
  // (partkey, suppkey)): each row of the other side meets at most one of its rows, so the
  // composite's distinct count is that table's rows, not the product of the columns' counts
  const composite =
    equalities.length > 1
      ? Math.max(
          uniqueKeyRows(equalities.map((e) => e.left), join.left, ctx) ?? 0,
          uniqueKeyRows(equalities.map((e) => e.right), join.right, ctx) ?? 0,
        )
      : 0;
  if (keys === 1) rows /= keyNdv;
  else if (composite > 0) rows /= composite;
  else if (keys > 1) rows /= Math.min(keyNdv, Math.max(l, r, 1));
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
    return coversUniqueKey(tableInfo(ctx, plan.table), new Set([plan.columns[i]])) ? scanRows(plan, ctx) : undefined;
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

/**
 * Rows of the base table whose primary key or a unique index is made of columns among `ids`
 * (all of one scan below `plan`): those columns then take a distinct value per table row.
 */
export function uniqueKeyRows(ids: readonly number[], plan: LogicalPlan, ctx: OptimizeInput): number | undefined {
  if (plan.kind === 'Scan') {
    const columns = new Set(ids.map((id) => plan.columns[plan.fields.findIndex((f) => f.id === id)]).filter((c) => c !== undefined));
    return coversUniqueKey(tableInfo(ctx, plan.table), columns) ? scanRows(plan, ctx) : undefined;
  }
  if (plan.kind === 'Remote') return uniqueKeyRows(ids, plan.plan, ctx);
  if (plan.kind === 'Aggregate') return undefined;
  for (const c of children(plan)) {
    const n = uniqueKeyRows(ids, c, ctx);
    if (n !== undefined) return n;
  }
  return undefined;
}

function selectivity(predicate: Expr, input: LogicalPlan, ctx: OptimizeInput): number {
  let s = 1;
  // a lower and an upper bound on one column select the rows between them, not the product of
  // both (PostgreSQL's clauselist_selectivity does the same): P(lo < x < hi) = P(x > lo) + P(x < hi) − P(x not NULL)
  const bounds = new Map<number, { lower?: number; upper?: number; notNull: number }>();
  for (const c of conjuncts(predicate)) {
    const r = rangeBound(c, input, ctx);
    if (!r) {
      s *= conjunctSelectivity(c, input, ctx);
      continue;
    }
    const b = bounds.get(r.id) ?? { notNull: r.notNull };
    bounds.set(r.id, b);
    if (b[r.side] === undefined) b[r.side] = r.selectivity;
    else s *= r.selectivity;
  }
  for (const b of bounds.values()) {
    if (b.lower !== undefined && b.upper !== undefined) s *= Math.max(MIN_SELECTIVITY, b.lower + b.upper - b.notNull);
    else s *= b.lower ?? b.upper ?? 1;
  }
  return s;
}

/** A range comparison of a column with statistics against a constant: which bound it sets, and its selectivity. */
function rangeBound(c: Expr, input: LogicalPlan, ctx: OptimizeInput): { id: number; side: 'lower' | 'upper'; selectivity: number; notNull: number } | undefined {
  if (c.kind !== 'call' || (c.fn !== 'lt' && c.fn !== 'le' && c.fn !== 'gt' && c.fn !== 'ge')) return undefined;
  const cmp = columnVsConstant(c.args[0], c.args[1]);
  const st = cmp && statsOf(cmp.column, input, ctx);
  const value = cmp && constantText(cmp.constant);
  if (!cmp || !st || value === undefined) return undefined;
  const op = cmp.flipped ? FLIP[c.fn] : c.fn;
  const selectivity = rangeSelectivity(st, op, value);
  if (selectivity === undefined) return undefined;
  return {
    id: keyColumn(cmp.column)!.id,
    side: op === 'gt' || op === 'ge' ? 'lower' : 'upper',
    selectivity: Math.max(MIN_SELECTIVITY, selectivity),
    notNull: 1 - (st.nullFraction ?? 0),
  };
}

const FLIP = { lt: 'gt', le: 'ge', gt: 'lt', ge: 'le' } as const;

/** Below this a selectivity is noise: an estimate of zero rows would drive every choice. */
const MIN_SELECTIVITY = 1e-5;

function conjunctSelectivity(c: Expr, input: LogicalPlan, ctx: OptimizeInput): number {
  return Math.min(1, Math.max(MIN_SELECTIVITY, rawSelectivity(c, input, ctx)));
}

function rawSelectivity(c: Expr, input: LogicalPlan, ctx: OptimizeInput): number {
  if (c.kind === 'in') {
    const st = statsOf(c.expr, input, ctx);
    const s = st ? c.list.reduce((acc, x) => acc + eqSelectivity(st, constantText(x)), 0) : Math.min(0.5, 0.05 * c.list.length);
    return c.negated ? Math.max(0, 1 - s - (st?.nullFraction ?? 0)) : s;
  }
  if (c.kind !== 'call') return 0.5;
  const [a, b] = c.args;
  switch (c.fn) {
    case 'and':
      return selectivity(c, input, ctx);
    case 'or': {
      // independent terms: P(a ∪ b) = P(a) + P(b) − P(a)·P(b)
      const x = conjunctSelectivity(a, input, ctx);
      const y = conjunctSelectivity(b, input, ctx);
      return x + y - x * y;
    }
    case 'eq': {
      const cmp = columnVsConstant(a, b);
      if (!cmp) return 0.1;
      // a unique key matches one row
      const column = keyColumn(cmp.column);
      const unique = column ? uniqueRows(column.id, input, ctx) : undefined;
      if (unique !== undefined) return 1 / Math.max(1, unique);
      const st = statsOf(cmp.column, input, ctx);
      // no column statistics: a 1-in-100 value
      return st ? eqSelectivity(st, constantText(cmp.constant)) : 0.01;
    }
    case 'ne': {
      const cmp = columnVsConstant(a, b);
      const st = cmp && statsOf(cmp.column, input, ctx);
      return st ? Math.max(0, 1 - eqSelectivity(st, constantText(cmp.constant)) - (st.nullFraction ?? 0)) : 0.9;
    }
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      const cmp = columnVsConstant(a, b);
      const st = cmp && statsOf(cmp.column, input, ctx);
      const value = cmp && constantText(cmp.constant);
      if (!cmp || !st || value === undefined) return 0.33;
      // `5 < x` is `x > 5`
      const op = cmp.flipped ? FLIP[c.fn] : c.fn;
      return rangeSelectivity(st, op, value) ?? 0.33;
    }
    case 'like':
    case 'ilike': {
      const st = statsOf(a, input, ctx);
      const pattern = constantText(b);
      return (st && pattern !== undefined && likeSelectivity(st, pattern, c.fn === 'ilike')) || 0.25;
    }
    case 'not':
      return 1 - conjunctSelectivity(a, input, ctx) * 0.5;
    case 'is_null':
      return statsOf(a, input, ctx)?.nullFraction ?? 0.05;
    case 'is_not_null': {
      const n = statsOf(a, input, ctx)?.nullFraction;
      return n === undefined ? 0.95 : 1 - n;
    }
    default:
      return 0.5;
  }
}

function columnVsConstant(a: Expr | undefined, b: Expr | undefined): { column: Expr; constant: Expr; flipped: boolean } | undefined {
  if (a && b && isConstant(b) && keyColumn(a)) return { column: a, constant: b, flipped: false };
  if (a && b && isConstant(a) && keyColumn(b)) return { column: b, constant: a, flipped: true };
  return undefined;
}

/** A literal's value as the source's statistics spell it (parameters are unknown when a plan is made). */
function constantText(e: Expr): string | undefined {
  if (e.kind !== 'literal' || e.value === null) return undefined;
  const v = e.value;
  if (typeof v === 'string') return e.type.kind === 'string' && e.type.fixed ? v.replace(/ +$/, '') : v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** The fraction of rows equal to `value`: its own frequency when it is a common value, else an even share of the rest. */
function eqSelectivity(st: ColumnStats, value: string | undefined): number {
  const mcv = st.mostCommon ?? [];
  if (value !== undefined) {
    const hit = mcv.find((m) => m.value === value || (isNumeric(m.value) && isNumeric(value) && Number(m.value) === Number(value)));
    if (hit) return hit.frequency;
  }
  const common = mcv.reduce((acc, m) => acc + m.frequency, 0);
  const rest = Math.max(0, 1 - common - (st.nullFraction ?? 0));
  if (st.distinct === undefined) return value === undefined || mcv.length === 0 ? 0.01 : rest * 0.01;
  const others = st.distinct - mcv.length;
  // every value is a common one and this is not among them: (almost) no row matches
  return others > 0 ? rest / others : MIN_SELECTIVITY;
}

/** Linear interpolation between min and max, for numbers and ISO dates. */
function rangeSelectivity(st: ColumnStats, op: 'lt' | 'le' | 'gt' | 'ge', value: string): number | undefined {
  if (st.min === undefined || st.max === undefined) return undefined;
  const [lo, hi, v] = [ordinal(st.min), ordinal(st.max), ordinal(value)];
  if (lo === undefined || hi === undefined || v === undefined) return undefined;
  const notNull = 1 - (st.nullFraction ?? 0);
  if (hi <= lo) return ((op === 'lt' || op === 'le') === v >= lo ? 1 : 0) * notNull;
  const below = Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
  return (op === 'lt' || op === 'le' ? below : 1 - below) * notNull;
}

/** A LIKE pattern's selectivity from the common values, when they cover nearly every row. */
function likeSelectivity(st: ColumnStats, pattern: string, insensitive: boolean): number | undefined {
  const mcv = st.mostCommon ?? [];
  const covered = mcv.reduce((acc, m) => acc + m.frequency, 0) + (st.nullFraction ?? 0);
  if (mcv.length === 0 || covered < 0.9) return undefined;
  const re = new RegExp(
    '^' + [...pattern].map((ch) => (ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('') + '$',
    insensitive ? 'is' : 's',
  );
  return mcv.filter((m) => re.test(m.value)).reduce((acc, m) => acc + m.frequency, 0);
}

function isNumeric(s: string): boolean {
  return s.trim() !== '' && Number.isFinite(Number(s));
}

function ordinal(s: string): number | undefined {
  if (isNumeric(s)) return Number(s);
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) {
    const t = Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/** The source's statistics of the column an expression reads (through a widening cast), found below `plan`. */
export function statsOf(e: Expr, plan: LogicalPlan, ctx: OptimizeInput): ColumnStats | undefined {
  const column = keyColumn(e);
  return column ? columnStatsById(column.id, plan, ctx) : undefined;
}

function columnStatsById(id: number, plan: LogicalPlan, ctx: OptimizeInput): ColumnStats | undefined {
  if (plan.kind === 'Scan') {
    const i = plan.fields.findIndex((f) => f.id === id);
    if (i < 0) return undefined;
    return tableInfo(ctx, plan.table)?.columns.find((c) => c.name === plan.columns[i])?.stats;
  }
  if (plan.kind === 'Remote') return columnStatsById(id, plan.plan, ctx);
  for (const c of children(plan)) {
    const s = columnStatsById(id, c, ctx);
    if (s) return s;
  }
  return undefined;
}

/** Distinct values of a column below `plan`: its statistics, or its table's rows when it is a unique key. */
export function distinctOf(e: Expr, plan: LogicalPlan, ctx: OptimizeInput): number | undefined {
  const column = keyColumn(e);
  if (!column) return undefined;
  return uniqueRows(column.id, plan, ctx) ?? columnStatsById(column.id, plan, ctx)?.distinct;
}

/**
 * Distinct values a column takes in `plan`'s output: its table's distinct count, but never
 * more than the rows of any subtree it passes through on the way up (a filtered part has at
 * most as many part keys as it has rows, and so does a join above it).
 */
export function distinctInOutput(e: Expr, plan: LogicalPlan, ctx: OptimizeInput): number | undefined {
  const column = keyColumn(e);
  if (!column) return undefined;
  const walk = (p: LogicalPlan): number | undefined => {
    if (p.kind === 'Scan') return p.fields.some((f) => f.id === column.id) ? distinctOf(column, p, ctx) : undefined;
    if (p.kind === 'Aggregate' && !p.groupBy.some((g) => g.field.id === column.id)) return undefined;
    const below = p.kind === 'Remote' ? [p.plan] : children(p);
    for (const c of below) {
      const n = walk(c);
      if (n !== undefined) return Math.min(n, estimateRows(p, ctx));
    }
    return undefined;
  };
  return walk(plan);
}
