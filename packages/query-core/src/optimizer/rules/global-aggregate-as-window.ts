import type { AggFn } from '@junction/connectors';
import type { AggregateCall, Expr, Field, LogicalPlan, NamedExpr, WindowCall } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { mapOperands } from '../../plan/exprs.js';
import { windowReturnType } from '../../expr/types.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { sourcesUnder } from '../pushdown/annotate.js';
import { canPushWindow } from '../pushdown/can-push.js';
import { matchPlans, sameAggregate } from '../equivalent.js';
import { refExpr, sameType } from '../exprs.js';
import { estimateRows } from '../stats.js';

type Aggregate = Extract<LogicalPlan, { kind: 'Aggregate' }>;
type Project = Extract<LogicalPlan, { kind: 'Project' }>;

/** A one-row join input: an aggregate without GROUP BY, under the projections over it. */
interface Total {
  readonly aggregate: Aggregate;
  /** outermost first */
  readonly projects: readonly Project[];
  readonly fields: readonly Field[];
}

/**
 * Above this many estimated groups the source computing the total again is likely cheaper
 * than the window holding every group (in memory, or on disk past the budget) before its
 * first row comes out.
 */
const MAX_GROUPS = 100_000;

/** Aggregates whose value over all rows is the same aggregate over per-group values. */
const OVER_GROUPS: Partial<Record<AggFn, AggFn>> = {
  min: 'min',
  max: 'max',
  bool_and: 'bool_and',
  bool_or: 'bool_or',
  sum: 'sum',
  count: 'sum',
  count_star: 'sum',
};

/** Aggregates Junction and every source compute as window functions with the same meaning. */
const AS_WINDOW = new Set<AggFn>(['count', 'count_star', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or']);

/**
 * Inner join of grouped rows with a one-row aggregate over the same input → the aggregate as a
 * window over the groups, so that input is read and grouped once instead of twice.
 *
 * TPC-H Q11 compares each part's sum with `(SELECT sum(…) * 0.0001 FROM` the same join`)`; the
 * total is the sum of the groups' sums (`sum(sum) OVER ()`). Q15 compares each supplier's
 * revenue with `(SELECT max(total_revenue) FROM revenue0)`, the same view read again; that is
 * `max(total_revenue) OVER ()` over the view's rows. Federated, each copy was its own source
 * statement over the same tables, and the two competed for the source's cores.
 *
 * The grouped rows may sit below inner joins, filters, sorts and projections of the other
 * side (the window is computed before any of them drops or repeats a row). When they are
 * empty so is the join, whatever the one-row side holds, and so is the rewrite's result.
 * Sums are rewritten only where adding up per-group values is exact (decimals and integers,
 * not floats).
 */
export function globalAggregateAsWindow(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Join' || (node.type !== 'inner' && node.type !== 'cross')) return undefined;
  const right = totalOf(node.right);
  const left = totalOf(node.left);
  const rows = (right && place(node.left, right, ctx)) ?? (left && place(node.right, left, ctx));
  if (!rows) return undefined;
  const joined: LogicalPlan = node.condition ? { kind: 'Filter', input: rows, predicate: node.condition } : rows;
  return { kind: 'Project', input: joined, exprs: outputFields(node).map(passThrough) };
}

function totalOf(plan: LogicalPlan): Total | undefined {
  const projects: Project[] = [];
  let p = plan;
  while (p.kind === 'Project') {
    projects.push(p);
    p = p.input;
  }
  if (p.kind !== 'Aggregate' || p.groupBy.length > 0) return undefined;
  return { aggregate: p, projects, fields: outputFields(plan) };
}

/** `rows` with the total's fields computed where its grouped rows are, and passed up from there. */
function place(rows: LogicalPlan, total: Total, ctx: OptimizerContext): LogicalPlan | undefined {
  const here = windowOver(rows, total, ctx);
  if (here) return here;
  switch (rows.kind) {
    case 'Filter':
    case 'Sort': {
      const input = place(rows.input, total, ctx);
      return input && { ...rows, input };
    }
    case 'Project': {
      const input = place(rows.input, total, ctx);
      return input && { ...rows, input, exprs: [...rows.exprs, ...total.fields.map(passThrough)] };
    }
    case 'Join': {
      if (rows.type !== 'inner' && rows.type !== 'cross') return undefined;
      const left = place(rows.left, total, ctx);
      if (left) return { ...rows, left };
      const right = place(rows.right, total, ctx);
      return right && { ...rows, right };
    }
    default:
      return undefined;
  }
}

/** The groups with the total's fields beside each row, when the total reads what they read. */
function windowOver(groups: LogicalPlan, total: Total, ctx: OptimizerContext): LogicalPlan | undefined {
  const grouping = groups.kind === 'Project' ? groups.input : groups;
  if (grouping.kind !== 'Aggregate' || grouping.groupBy.length === 0) return undefined;
  const calls = sameRows(groups, total) ?? (groups.kind === 'Aggregate' ? overGroups(groups, total, ctx) : undefined);
  if (!calls || (estimateRows(groups, ctx) > MAX_GROUPS && !sourceComputesWindows(groups, calls.windows, ctx))) return undefined;
  const kept = outputFields(groups);
  let plan: LogicalPlan = { kind: 'Window', input: groups, windows: calls.windows };
  if (calls.finish.length > 0)
    plan = { kind: 'Project', input: plan, exprs: [...kept.map(passThrough), ...calls.finish] };
  for (const project of [...total.projects].reverse()) {
    plan = { kind: 'Project', input: plan, exprs: [...kept.map(passThrough), ...project.exprs] };
  }
  return plan;
}

/**
 * The groups come from one source that can compute the windows too: the window then runs
 * there (absorb-window-into-remote) and Junction holds no group. TPC-H Q15 at SF 10 has 100,000
 * suppliers' revenues; capped, PostgreSQL grouped the quarter's lineitem rows twice (1.66×).
 */
function sourceComputesWindows(groups: LogicalPlan, windows: readonly WindowCall[], ctx: OptimizerContext): boolean {
  if (!ctx.options.pushdown) return false;
  const sources = sourcesUnder(groups, ctx);
  if (sources.size !== 1) return false;
  const caps = capabilitiesOf(ctx, [...sources][0]);
  return windows.every((w) => canPushWindow(w, caps).ok);
}

interface Calls {
  readonly windows: WindowCall[];
  /** total fields computed from a window field of another type */
  readonly finish: NamedExpr[];
}

/** The total aggregates the same rows as `groups` gives: the same calls, as windows over them. */
function sameRows(groups: LogicalPlan, total: Total): Calls | undefined {
  const ids = matchPlans(groups, total.aggregate.input);
  if (!ids || !total.aggregate.aggregates.every((b) => AS_WINDOW.has(b.fn) && !b.distinct && !b.filter))
    return undefined;
  const windows = total.aggregate.aggregates.map((b) =>
    window(
      b.field,
      b.fn,
      b.args.map((a) => renumber(a, ids)),
    ),
  );
  return { windows, finish: [] };
}

/**
 * The total aggregates the rows `groups` groups: each of its calls is one of the groups' calls,
 * combined over the groups (a count is the sum of the counts).
 */
function overGroups(groups: Aggregate, total: Total, ctx: OptimizerContext): Calls | undefined {
  const ids = matchPlans(groups.input, total.aggregate.input);
  if (!ids) return undefined;
  const windows: WindowCall[] = [];
  const finish: NamedExpr[] = [];
  for (const b of total.aggregate.aggregates) {
    const a = groups.aggregates.find((x) => !x.distinct && sameAggregate(x, b, ids));
    const fn = OVER_GROUPS[b.fn];
    if (!a || !fn || !exactOverGroups(a)) return undefined;
    const args = [refExpr(a.field)];
    const type = windowReturnType(fn, [a.field.type]);
    if (sameType(type, b.field.type)) {
      windows.push(window(b.field, fn, args));
      continue;
    }
    // sum over int64 counts or int sums is numeric in PostgreSQL; the total keeps its int64
    const w: Field = { id: ctx.newFieldId(), name: b.field.name, type, nullable: b.field.nullable };
    windows.push(window(w, fn, args));
    finish.push({ field: b.field, expr: { kind: 'cast', expr: refExpr(w), type: b.field.type } });
  }
  return { windows, finish };
}

function exactOverGroups(a: AggregateCall): boolean {
  if (a.fn !== 'sum') return true;
  const k = a.field.type.kind;
  return k === 'decimal' || k === 'int64';
}

function window(field: Field, fn: AggFn, args: readonly Expr[]): WindowCall {
  return { field, fn, args, partitionBy: [], orderBy: [] };
}

function renumber(e: Expr, ids: ReadonlyMap<number, number>): Expr {
  return e.kind === 'ref' ? { ...e, id: ids.get(e.id) ?? e.id } : mapOperands(e, (x) => renumber(x, ids));
}

function passThrough(f: Field): NamedExpr {
  return { field: f, expr: refExpr(f) };
}
