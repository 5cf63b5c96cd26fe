import type { AggregateCall, Expr, Field, LogicalPlan, NamedExpr, NotPushed } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { capabilitiesOf, type OptimizerContext } from '../context.js';
import { describe, fieldIds, refExpr, refsOf, replaceRefs, subset } from '../exprs.js';
import { annotate, sourcesUnder } from '../pushdown/annotate.js';
import { canPushAggregate, canPushExpr, canPushGroupKey } from '../pushdown/can-push.js';
import { needsSubquery, shapeOf } from '../pushdown/shape.js';
import { distinctOf, estimateRows, uniqueRows } from '../stats.js';

type Aggregate = Extract<LogicalPlan, { kind: 'Aggregate' }>;
type Remote = Extract<LogicalPlan, { kind: 'Remote' }>;

/**
 * Aggregate(Remote) → Remote(Aggregate) when the source groups and aggregates exactly.
 *
 * Aggregate(inner Join(Remote s, other)) where every aggregate reads s only and merges
 * exactly from partial results (sum, count, min, max, bool_and, bool_or; not DISTINCT):
 * a partial aggregate grouped by s's grouping and join-key columns runs in s, and the final
 * aggregate above the join merges the partials (count → sum of counts). The join multiplies
 * each partial row exactly as it multiplied each of the rows it stands for, so the result is
 * the same. s may sit deeper in a tree of such joins (eager aggregation): the partial then
 * groups by every s column any join above it reads, so each join meets a partial row exactly
 * when it would meet each of its rows (TPC-H Q10: lineitem ⋈ orders summed per o_custkey in
 * their source, below the joins with customer and nation from two other sources). Across a left join too: the preserved side's partial rows are kept and
 * multiplied exactly as their rows; a partial on the NULL-supplying side meets a preserved
 * row exactly when its rows would, and where none would, its aggregates are NULL as theirs —
 * except a count, which is 0 (COALESCE), and count(*), which counts the NULL-extended row
 * (not split there). Without GROUP BY, no row at all still makes one row whose counts are 0. This is Q13's count of each customer's orders grouped in the orders'
 * source.
 */
export function absorbAggregateIntoRemote(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.kind !== 'Aggregate') return undefined;
  if (node.input.kind === 'Remote') return absorbWhole(node, node.input, ctx);
  if (node.input.kind === 'Join' && splits(node.input)) return splitAcrossJoin(node, node.input, ctx);
  // the binder's column list between the aggregate and the join only renames: look through it
  const input = node.input;
  if (
    input.kind === 'Project' &&
    input.input.kind === 'Join' &&
    splits(input.input) &&
    input.exprs.every((e) => e.expr.kind === 'ref')
  ) {
    const map = new Map<number, Expr>(input.exprs.map((e) => [e.field.id, e.expr]));
    const through: Aggregate = {
      ...node,
      input: input.input,
      groupBy: node.groupBy.map((g) => ({ field: g.field, expr: replaceRefs(g.expr, map) })),
      aggregates: node.aggregates.map((a) => ({
        ...a,
        args: a.args.map((x) => replaceRefs(x, map)),
        ...(a.filter ? { filter: replaceRefs(a.filter, map) } : {}),
      })),
    };
    return splitAcrossJoin(through, input.input, ctx);
  }
  return undefined;
}

function check(agg: Aggregate, remote: Remote, ctx: OptimizerContext): NotPushed[] {
  const caps = capabilitiesOf(ctx, remote.source);
  if (agg.groupBy.length > 0 && !caps.groupBy)
    return [{ what: 'GROUP BY', reason: 'GROUP BY not supported by source' }];
  if (needsSubquery(shapeOf(remote.plan), 'Aggregate') && !caps.subqueryInFrom)
    return [{ what: 'aggregation', reason: 'source cannot nest a subquery' }];
  for (const g of agg.groupBy) {
    const r = canPushGroupKey(g.expr, caps);
    if (!r.ok) return [{ what: `GROUP BY ${describe(g.expr, [remote])}`, reason: r.reason }];
  }
  for (const a of agg.aggregates) {
    const r = canPushAggregate(a, caps);
    if (!r.ok) return [{ what: `${a.fn}(${a.args.map((x) => describe(x, [remote])).join(', ')})`, reason: r.reason }];
  }
  return [];
}

function absorbWhole(node: Aggregate, remote: Remote, ctx: OptimizerContext): LogicalPlan | undefined {
  const notPushed = check(node, remote, ctx);
  if (notPushed.length > 0) return annotate(node, notPushed);
  const { notPushed: _drop, ...agg } = node;
  void _drop;
  return { kind: 'Remote', source: remote.source, plan: { ...agg, input: remote.plan }, fields: outputFields(node) };
}

const MERGE: Partial<Record<AggregateCall['fn'], AggregateCall['fn']>> = {
  sum: 'sum',
  count: 'sum',
  count_star: 'sum',
  min: 'min',
  max: 'max',
  bool_and: 'bool_and',
  bool_or: 'bool_or',
};

type Join = Extract<LogicalPlan, { kind: 'Join' }>;

/** A Remote reached from the aggregate's join through inner and left joins only. */
interface Leaf {
  readonly remote: Remote;
  /** the join sides taken from the top join down to the remote */
  readonly path: readonly ('left' | 'right')[];
  /** below some left join's NULL-supplying side: its rows may be missing, their aggregates NULL */
  readonly nullSupplied: boolean;
  /** columns read by the join conditions on the path (the only joins that can read the remote's) */
  readonly conditionRefs: ReadonlySet<number>;
}

/**
 * The remotes a partial aggregate may go into, through a tree of joins (TPC-H Q10's
 * lineitem ⋈ orders sits below customer and then nation, each from another source). A join
 * that can run whole in one source is not entered: it is absorbed there first.
 */
function leavesOf(join: Join, ctx: OptimizerContext): Leaf[] {
  const out: Leaf[] = [];
  const walk = (p: LogicalPlan, path: ('left' | 'right')[], nullSupplied: boolean, refs: Set<number>): void => {
    if (p.kind === 'Remote') {
      if (p.plan.kind !== 'Aggregate') out.push({ remote: p, path, nullSupplied, conditionRefs: refs });
      return;
    }
    if (p.kind !== 'Join' || !splits(p) || joinFitsOneSource(p, ctx)) return;
    const below = new Set(refs);
    if (p.condition) refsOf(p.condition, below);
    walk(p.left, [...path, 'left'], nullSupplied, below);
    walk(p.right, [...path, 'right'], nullSupplied || p.type === 'left', below);
  };
  walk(join, [], false, new Set());
  return out;
}

/** `plan` with the subtree at `path` (join sides, from the top) replaced by `by`. */
function replaceAt(plan: LogicalPlan, path: readonly ('left' | 'right')[], by: LogicalPlan): LogicalPlan {
  if (path.length === 0) return by;
  if (plan.kind !== 'Join') return plan;
  const [side, ...rest] = path;
  return { ...plan, [side]: replaceAt(plan[side], rest, by) };
}

function splitAcrossJoin(node: Aggregate, join: Join, ctx: OptimizerContext): LogicalPlan | undefined {
  if (node.aggregates.length === 0) return undefined;
  if (node.aggregates.some((a) => a.distinct || a.filter || !MERGE[a.fn])) return undefined;
  // a join that can run inside one source is left whole: absorb-join-into-remote sends it
  // there and the aggregate follows it, so the source joins first (its filters cut the rows)
  // and aggregates once, instead of aggregating a whole table below the join
  if (joinFitsOneSource(join, ctx)) return undefined;
  if (node.groupBy.some((g) => g.expr.kind !== 'ref')) return undefined;
  const argRefs = new Set<number>();
  for (const a of node.aggregates) for (const x of a.args) refsOf(x, argRefs);
  // the biggest input first: that is where a partial aggregate saves the most rows
  const leaves = leavesOf(join, ctx)
    .map((leaf) => ({ leaf, rows: estimateRows(leaf.remote, ctx) }))
    .sort((a, b) => b.rows - a.rows)
    .map((x) => x.leaf);
  for (const { remote, path, nullSupplied, conditionRefs } of leaves) {
    if (nullSupplied && node.aggregates.some((a) => a.fn === 'count_star')) continue;
    const ids = fieldIds(remote);
    if (!subset(argRefs, ids)) continue;
    // the partial groups by s's grouping columns and every s column a join above it reads:
    // each join then meets a partial row exactly when it would meet each row it stands for
    const keyIds = new Set<number>();
    for (const g of node.groupBy) if (g.expr.kind === 'ref' && ids.has(g.expr.id)) keyIds.add(g.expr.id);
    for (const id of conditionRefs) if (ids.has(id)) keyIds.add(id);
    // grouping by a unique key groups nothing: every row would stay a row
    if ([...keyIds].some((id) => uniqueRows(id, remote, ctx) !== undefined)) continue;
    const fields = remote.fields.filter((f) => keyIds.has(f.id));
    if (!reduces(fields, remote, ctx)) continue;
    const groupBy: NamedExpr[] = fields.map((f) => ({ field: f, expr: refExpr(f) }));
    const partials: AggregateCall[] = node.aggregates.map((a) => ({
      fn: a.fn,
      args: a.args,
      distinct: false,
      field: partialField(a, ctx),
    }));
    const partial: Aggregate = { kind: 'Aggregate', input: remote.plan, groupBy, aggregates: partials };
    if (check(partial, remote, ctx).length > 0) continue;
    const pushed: Remote = {
      kind: 'Remote',
      source: remote.source,
      plan: partial,
      fields: [...groupBy.map((g) => g.field), ...partials.map((p) => p.field)],
    };
    // PostgreSQL's sum over the int64 partials is numeric: merge into a fresh decimal field and
    // cast back to the original type in a Project, so the node's output keeps its ids and types
    const outputs = new Map<number, Expr>();
    const finals: AggregateCall[] = node.aggregates.map((a, i) => {
      const fn = MERGE[a.fn]!;
      const args: Expr[] = [refExpr(partials[i].field)];
      const widened = fn === 'sum' && partials[i].field.type.kind === 'int64' && a.field.type.kind !== 'decimal';
      // a count with no partial row to merge is 0, not the NULL of a sum over nothing: on a
      // NULL-supplying side, and in an aggregate without GROUP BY over no rows at all
      const zero = (a.fn === 'count' || a.fn === 'count_star') && (nullSupplied || node.groupBy.length === 0);
      if (!widened && !zero) return { field: a.field, fn, args, distinct: false };
      const merged: Field = { ...a.field, id: ctx.newFieldId(), ...(widened ? { type: { kind: 'decimal' } } : {}), nullable: true };
      let value: Expr = refExpr(merged);
      if (widened) value = { kind: 'cast', expr: value, type: a.field.type };
      if (zero) value = { kind: 'call', fn: 'coalesce', args: [value, { kind: 'literal', value: 0n, type: a.field.type }], type: a.field.type };
      outputs.set(a.field.id, value);
      return { field: merged, fn, args, distinct: false };
    });
    const { notPushed: _drop, ...rest } = node;
    void _drop;
    const final: Aggregate = { ...rest, input: replaceAt(join, path, pushed), aggregates: finals };
    if (outputs.size === 0) return final;
    return {
      kind: 'Project',
      input: final,
      exprs: outputFields(node).map((f) => ({ field: f, expr: outputs.get(f.id) ?? refExpr(f) })),
    };
  }
  return undefined;
}

/**
 * Whether grouping the remote's rows by `keys` is expected to leave at most nine tenths of
 * them. A partial aggregate that keeps nearly every row costs the source a grouping that holds
 * back every row until the last is read, and saves no transfer: TPC-H Q11's partsupp ⋈
 * supplier grouped by nation and part has one row per group. n rows drawn over D possible key
 * values hold D·(1 − (1 − 1/D)^n) distinct ones (Cardenas). Unknown statistics keep the split.
 *
 * The bound is loose because the estimate leans high where the row estimate is low: Q10's
 * orders ⋈ lineitem by customer is estimated at 0.77 of its rows and keeps 0.34 (38,900 of
 * 114,963); split, Q10 took about half the time (2.1 → 1.2 s in EXPLAIN ANALYZE at SF 1).
 */
function reduces(keys: readonly Field[], remote: Remote, ctx: OptimizerContext): boolean {
  const rows = estimateRows(remote, ctx);
  let values = 1;
  for (const k of keys) {
    const d = distinctOf(refExpr(k), remote, ctx);
    if (d === undefined) return true;
    values *= Math.max(1, d);
  }
  const groups = values * -Math.expm1(rows * Math.log1p(-1 / values));
  return !(groups > 0.9 * rows);
}

function joinFitsOneSource(join: Join, ctx: OptimizerContext): boolean {
  const sources = sourcesUnder(join, ctx);
  if (sources.size !== 1) return false;
  const caps = capabilitiesOf(ctx, [...sources][0]);
  if (!caps.joins.inner) return false;
  return join.condition === undefined || canPushExpr(join.condition, caps).ok;
}

function partialField(a: AggregateCall, ctx: OptimizerContext): Field {
  const type = a.fn === 'count' || a.fn === 'count_star' ? { kind: 'int64' as const } : a.field.type;
  return { id: ctx.newFieldId(), name: `partial_${a.field.name}`, type, nullable: a.field.nullable };
}

/** Joins an aggregate may be split across: inner, and left (see absorbAggregateIntoRemote). */
function splits(join: Join): boolean {
  return join.type === 'inner' || join.type === 'left';
}
