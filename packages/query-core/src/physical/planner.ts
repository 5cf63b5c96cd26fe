import { JunctionError, type Connector, type Row, type Value } from '@junction/connectors';
import type { AggregateCall, Expr, Field, LogicalPlan, WindowCall } from '../plan/logical.js';
import { outputFields, readByKeys } from '../plan/fields.js';
import { fieldNames, printExpr } from '../plan/print.js';
import type { Operator } from '../exec/operator.js';
import type { RowFn } from '../exec/expr-fn.js';
import type { AggregateSpec } from '../exec/hash-aggregate/index.js';
import { HashAggregateOp } from '../exec/hash-aggregate/index.js';
import { RemoteScanOp } from '../exec/remote-scan.js';
import { FilterOp } from '../exec/filter.js';
import { ProjectOp } from '../exec/project.js';
import { LimitOp } from '../exec/limit.js';
import { TopNOp } from '../exec/top-n.js';
import { SortOp } from '../exec/sort/index.js';
import { DistinctOp } from '../exec/distinct.js';
import { SetOpOp } from '../exec/set-op.js';
import { ValuesOp } from '../exec/values.js';
import { NestedLoopJoinOp } from '../exec/nested-loop-join.js';
import { NullAwareAntiJoinOp } from '../exec/null-aware-anti-join.js';
import { MarkJoinOp, type MarkCompare, type MarkJoinSpec } from '../exec/mark-join.js';
import { HashJoinOp, type DependentSwitch } from '../exec/hash-join/index.js';
import { DependentJoinOp } from '../exec/dependent-join/index.js';
import { bindsKeyArray } from '../exec/dependent-join/fetch-by-keys.js';
import { canRestrict, MAX_ARRAY_KEYS_PER_STATEMENT, MAX_IN_LISTS_PER_STATEMENT } from '../exec/dependent-join/key-batches.js';
import type { HashJoinType, JoinSpec } from '../exec/hash-join/join-core.js';
import { makeKeyFn } from '../exec/hash-key.js';
import type { SortKeySpec } from '../exec/sort-keys.js';
import { WindowOp, type WindowSpec } from '../exec/window.js';
import { toRemoteQuery, type TableNaming } from './remote-query.js';
import type { RenderCache, RenderedRemote } from './render-cache.js';
import { conjoin, conjuncts as conjunctsOf, keyColumn } from '../plan/exprs.js';
import { notInKeys, splitJoinCondition } from './join-keys.js';

/** A side estimated at most this many rows is read whole rather than by key (dependent join). */
export const TINY_SIDE_ROWS = 1000;

/**
 * A hash join's build side restricts the probe statement at run time when its distinct keys
 * are at most `dependentSwitchKeys`, or at most this fraction of the probe's estimated rows:
 * a probe expected to return ten rows or more per key is cheaper asked by key (Q20: 2,100
 * part keys against 540,000 grouped lineitem rows), up to what one statement's IN lists hold.
 */
export const SWITCH_PROBE_RATIO = 10;

/**
 * The most build-side keys at which a hash join restricts its probe statement (see
 * SWITCH_PROBE_RATIO). A source binding the keys as one array parameter (`array`) takes far
 * more of them in one statement than IN lists hold.
 */
export function switchKeyLimit(switchKeys: number, probeEstimate: number | undefined, maxInList: number, array = false): number {
  const byProbe = probeEstimate === undefined ? 0 : Math.floor(probeEstimate / SWITCH_PROBE_RATIO);
  return Math.min(Math.max(switchKeys, byProbe), array ? MAX_ARRAY_KEYS_PER_STATEMENT : maxInList * MAX_IN_LISTS_PER_STATEMENT);
}

/** Field id → position in the rows an operator produces. */
export type Layout = ReadonlyMap<number, number>;

/** Turns bound expressions into functions over rows of a given layout (the expr/ layer's job). */
export interface ExprCompiler {
  expr(e: Expr, layout: Layout): RowFn;
  aggregate(call: AggregateCall, layout: Layout): AggregateSpec;
  /** an aggregate used as a window function (running or whole-partition) */
  windowAggregate(call: WindowCall, layout: Layout): AggregateSpec;
}

export interface PhysicalOptions {
  readonly sources: ReadonlyMap<string, { readonly connector: Connector }>;
  readonly params: readonly Value[];
  readonly compiler: ExprCompiler;
  /** estimated rows per logical node, for EXPLAIN */
  readonly estimate?: (plan: LogicalPlan) => number | undefined;
  /** source SQL kept across executions of a cached plan */
  readonly renderCache?: RenderCache;
  /** a hash join whose build side has at most this many distinct keys turns dependent at run time; 0 disables */
  readonly dependentSwitchKeys?: number;
  /** the statement's column names, by position: EXPLAIN names the root's fields as the user did */
  readonly outputNames?: readonly string[];
  /** a backend engine in `sources`, and how it names the tables of the sources it reads */
  readonly backend?: { readonly name: string; readonly tableName: TableNaming };
}

export interface PhysicalPlan {
  readonly root: Operator;
  readonly fields: readonly Field[];
}

interface Planned {
  readonly op: Operator;
  readonly layout: Layout;
  readonly fields: readonly Field[];
}

type RemoteNode = Extract<LogicalPlan, { kind: 'Remote' }>;

export function planPhysical(plan: LogicalPlan, options: PhysicalOptions): PhysicalPlan {
  // an alias the optimizer folded away (`sum(x) AS revenue` keeps sum's id) is still what ORDER BY said
  const statementNames = new Map<number, string>();
  if (options.outputNames) outputFields(plan).forEach((f, i) => statementNames.set(f.id, options.outputNames?.[i] ?? f.name));
  const p = new Planner(options, fieldNames(plan), statementNames).plan(plan);
  return { root: p.op, fields: p.fields };
}

class Planner {
  /** each Remote node's statement, for a hash join above that restricts it (innerTarget) */
  private readonly remotes = new Map<LogicalPlan, Planned>();

  constructor(
    private readonly o: PhysicalOptions,
    private readonly names: Map<number, string>,
    /** the statement's output columns by id, as its SELECT list named them */
    private readonly statementNames: ReadonlyMap<number, string>,
  ) {}

  /**
   * An expression as its node's input names the columns. One id can carry several names up the
   * tree (`revenue := sum` keeps sum's id), and the whole-plan map holds the deepest one, so a
   * Sort above that Project would read `sum DESC` for `ORDER BY revenue DESC`.
   */
  private text(e: Expr, input?: readonly Field[]): string {
    if (!input) return printExpr(e, this.names, { omitIds: true });
    const names = new Map(this.names);
    for (const f of input) names.set(f.id, f.name);
    return printExpr(e, names, { omitIds: true });
  }

  /**
   * A WHERE keeps a row only when every conjunct is TRUE, so, as PostgreSQL runs its quals, it
   * stops at the first that is not (FALSE or NULL): a later one that would raise (a scalar
   * subquery meeting two rows, a division by zero) is not evaluated for a row already rejected.
   */
  private filterPredicate(predicate: Expr, layout: Layout): RowFn {
    const parts = conjunctsOf(predicate);
    if (parts.length < 2) return this.o.compiler.expr(predicate, layout);
    const fns = parts.map((p) => this.o.compiler.expr(p, layout));
    return (row) => {
      for (const f of fns) if (f(row) !== true) return false;
      return true;
    };
  }

  private statementText(e: Expr): string {
    if (this.statementNames.size === 0) return this.text(e);
    return printExpr(e, new Map([...this.names, ...this.statementNames]), { omitIds: true });
  }

  private layoutOf(fields: readonly Field[]): Map<number, number> {
    return new Map(fields.map((f, i) => [f.id, i]));
  }

  private column(e: Expr, layout: Layout): number | RowFn {
    if (e.kind === 'ref') {
      const p = layout.get(e.id);
      if (p !== undefined) return p;
    }
    return this.o.compiler.expr(e, layout);
  }

  /**
   * Rows a side is expected to produce, looking through the nodes that keep its row count (the
   * estimator answers for joins, groupings and statements only): a probe side under a projection
   * had no estimate, so TPC-H Q2's dynamic filter took the 1,000-key floor and at SF 10 its
   * 4,744 part keys read 1.6M partsupp rows instead.
   */
  private rows(plan: LogicalPlan): number | undefined {
    while (plan.kind === 'Project' || plan.kind === 'Sort' || plan.kind === 'Window') plan = plan.input;
    return this.o.estimate?.(plan);
  }

  plan(plan: LogicalPlan): Planned {
    const est = this.o.estimate?.(plan);
    switch (plan.kind) {
      case 'Scan':
        // a bare scan (nothing pushed): read the table's columns through its source
        return this.remote({ kind: 'Remote', source: plan.table.source, plan, fields: plan.fields }, est);
      case 'Remote':
        return this.remote(plan, est);
      case 'Filter': {
        const input = this.plan(plan.input);
        const pred = this.filterPredicate(plan.predicate, input.layout);
        return { ...input, op: new FilterOp(input.op, pred, this.text(plan.predicate, input.fields), plan.notPushed) };
      }
      case 'Project': {
        const input = this.plan(plan.input);
        const cols = plan.exprs.map((x) => this.column(x.expr, input.layout));
        const fields = plan.exprs.map((x) => x.field);
        // a column passed through under the name its input gives it reads as just that name
        const inputName = (id: number) => input.fields.find((f) => f.id === id)?.name ?? this.names.get(id);
        const detail = plan.exprs.map((x) => (x.expr.kind === 'ref' && inputName(x.expr.id) === x.field.name ? x.field.name : `${x.field.name} := ${this.text(x.expr, input.fields)}`)).join(', ');
        return { op: new ProjectOp(input.op, cols, detail, plan.notPushed), layout: this.layoutOf(fields), fields };
      }
      case 'Join':
        return this.join(plan, est);
      case 'MarkJoin':
        return this.markJoin(plan, est);
      case 'Aggregate': {
        const input = this.plan(plan.input);
        const groupCols = plan.groupBy.map((g) => this.column(g.expr, input.layout));
        const groupTypes = plan.groupBy.map((g) => g.expr.type);
        const key = makeKeyFn(groupCols, groupTypes, true);
        const aggs = plan.aggregates.map((a) => this.o.compiler.aggregate(a, input.layout));
        const fields = outputFields(plan);
        const detail = [
          plan.groupBy.length ? `group by ${plan.groupBy.map((g) => this.text(g.expr, input.fields)).join(', ')}` : '',
          plan.aggregates.map((a) => `${a.field.name} := ${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${a.args.map((x) => this.text(x, input.fields)).join(', ')})`).join(', '),
        ]
          .filter(Boolean)
          .join('; ');
        return { op: new HashAggregateOp(input.op, groupCols, key, aggs, detail, plan.notPushed, est, groupTypes), layout: this.layoutOf(fields), fields };
      }
      case 'Sort': {
        const input = this.plan(plan.input);
        return { ...input, op: new SortOp(input.op, this.sortKeys(plan.keys, input.layout), this.sortText(plan.keys), plan.notPushed) };
      }
      case 'Limit': {
        if (plan.input.kind === 'Sort' && plan.limit !== undefined) {
          const sort = plan.input;
          const input = this.plan(sort.input);
          const op = new TopNOp(input.op, this.sortKeys(sort.keys, input.layout), plan.limit, plan.offset, this.sortText(sort.keys), plan.notPushed ?? sort.notPushed);
          return { ...input, op };
        }
        const input = this.plan(plan.input);
        return { ...input, op: new LimitOp(input.op, plan.limit, plan.offset, plan.notPushed) };
      }
      case 'Distinct': {
        const input = this.plan(plan.input);
        const key = makeKeyFn(
          input.fields.map((_, i) => i),
          input.fields.map((f) => f.type),
          true,
        );
        return { ...input, op: new DistinctOp(input.op, key) };
      }
      case 'SetOp': {
        const left = this.plan(plan.left);
        const right = this.plan(plan.right);
        const key = makeKeyFn(
          plan.fields.map((_, i) => i),
          plan.fields.map((f) => f.type),
          true,
        );
        return { op: new SetOpOp(plan.op, plan.all, left.op, right.op, key, plan.notPushed), layout: this.layoutOf(plan.fields), fields: plan.fields };
      }
      case 'Window': {
        const input = this.plan(plan.input);
        const specs: WindowSpec[] = plan.windows.map((w) => this.windowSpec(w, input.layout));
        const fields = outputFields(plan);
        const detail = plan.windows.map((w) => `${w.field.name} := ${w.fn}(${w.args.map((x) => this.text(x, input.fields)).join(', ')})`).join(', ');
        return { op: new WindowOp(input.op, specs, detail, plan.notPushed), layout: this.layoutOf(fields), fields };
      }
      case 'Values': {
        const empty = new Map<number, number>();
        const rows: Row[] = plan.rows.map((r) => r.map((e) => this.o.compiler.expr(e, empty)([])));
        return { op: new ValuesOp(rows), layout: this.layoutOf(plan.fields), fields: plan.fields };
      }
    }
  }

  private sortKeys(keys: readonly { expr: Expr; desc: boolean; nullsFirst: boolean }[], layout: Layout): SortKeySpec[] {
    return keys.map((k) => ({ column: this.column(k.expr, layout), type: k.expr.type, desc: k.desc, nullsFirst: k.nullsFirst }));
  }

  /** Sort keys read as ORDER BY wrote them: the statement's names win over the input's. */
  private sortText(keys: readonly { expr: Expr; desc: boolean; nullsFirst: boolean }[]): string {
    return keys.map((k) => `${this.statementText(k.expr)}${k.desc ? ' DESC' : ''}${k.nullsFirst !== k.desc ? (k.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ');
  }

  private windowSpec(w: WindowCall, layout: Layout): WindowSpec {
    const partition = w.partitionBy.map((e) => this.column(e, layout));
    const partitionKey = makeKeyFn(partition, w.partitionBy.map((e) => e.type), true);
    const order = this.sortKeys(w.orderBy, layout);
    const args = w.args.map((a) => this.column(a, layout));
    const isAgg = !['row_number', 'rank', 'dense_rank', 'lag', 'lead', 'first_value', 'last_value', 'ntile'].includes(w.fn);
    if (w.frame !== undefined) {
      throw new JunctionError('window_frame_unsupported', 'unsupported', `Window frames other than the default (${w.frame}) are not supported yet.`);
    }
    return {
      fn: w.fn,
      partition,
      partitionKey: w.partitionBy.length ? partitionKey : undefined,
      order,
      args,
      aggregate: isAgg ? this.o.compiler.windowAggregate(w, layout) : undefined,
    };
  }

  private remote(node: RemoteNode, est: number | undefined): Planned {
    const src = this.o.sources.get(node.source);
    if (!src) throw new JunctionError('source_not_found', 'user', `Source "${node.source}" is not registered.`, { details: { source: node.source } });
    const naming = this.o.backend && node.source === this.o.backend.name ? this.o.backend.tableName : undefined;
    const make = (params: readonly Value[]): RenderedRemote => {
      const query = toRemoteQuery(node, params, naming);
      return { query, rendered: src.connector.render(query) };
    };
    const { query, rendered } = this.o.renderCache ? this.o.renderCache.get(node, this.o.params, make) : make(this.o.params);
    const op = new RemoteScanOp(node.source, src.connector, query, rendered, est);
    const planned = { op, layout: this.layoutOf(node.fields), fields: node.fields };
    this.remotes.set(node, planned);
    return planned;
  }

  /** Both inputs planned, where each field lands in their concatenated rows, and the condition split into keys and the rest. */
  private twoInputs(plan: { readonly left: LogicalPlan; readonly right: LogicalPlan; readonly condition?: Expr }) {
    const left = this.plan(plan.left);
    const right = this.plan(plan.right);
    const combined = new Map<number, number>();
    left.fields.forEach((f, i) => combined.set(f.id, i));
    right.fields.forEach((f, i) => combined.set(f.id, left.fields.length + i));
    const leftIds = new Set(left.fields.map((f) => f.id));
    const rightIds = new Set(right.fields.map((f) => f.id));
    const { keys, residual } = splitJoinCondition(plan.condition, leftIds, rightIds);
    return { left, right, combined, leftIds, rightIds, keys, residualExpr: conjoin(residual) };
  }

  private join(plan: Extract<LogicalPlan, { kind: 'Join' }>, est: number | undefined): Planned {
    const { left, right, combined, leftIds, rightIds, keys, residualExpr } = this.twoInputs(plan);
    const fields = outputFields(plan);
    const layout = this.layoutOf(fields);
    const detail = plan.condition ? `on ${this.text(plan.condition)}` : '';
    const lw = left.fields.length;
    const rw = right.fields.length;

    const notIn = plan.type === 'anti' ? notInKeys(plan.condition, leftIds, rightIds) : undefined;
    if (notIn) {
      const leftKey = makeKeyFn([this.column(notIn.left, left.layout)], [notIn.left.type], false);
      const rightKey = makeKeyFn([this.column(notIn.right, right.layout)], [notIn.right.type], false);
      return { op: new NullAwareAntiJoinOp(left.op, right.op, leftKey, rightKey, detail, plan.notPushed, est), layout, fields };
    }

    // a nested-loop strategy means the optimizer saw no same-typed key columns; hashing canonicalises mixed types, so keys still win
    if (plan.type === 'cross' || keys.length === 0) {
      const cond = plan.condition ? this.o.compiler.expr(plan.condition, combined) : undefined;
      const type = plan.type === 'cross' ? 'inner' : plan.type;
      return { op: new NestedLoopJoinOp(left.op, right.op, type, cond, lw, rw, detail, plan.notPushed), layout, fields };
    }

    const type = plan.type as HashJoinType;
    const leftCols = keys.map((k) => this.column(k.left, left.layout));
    const rightCols = keys.map((k) => this.column(k.right, right.layout));
    // each side canonicalises by its own types (char(n) trims, decimals normalise), so int32 5, int64 5 and 5.00 meet
    const leftTypes = keys.map((k) => k.left.type);
    const rightTypes = keys.map((k) => k.right.type);
    const spec = (buildSide: 'left' | 'right'): JoinSpec => ({
      type,
      buildSide,
      leftKey: makeKeyFn(leftCols, leftTypes, false),
      rightKey: makeKeyFn(rightCols, rightTypes, false),
      residual: residualExpr ? this.o.compiler.expr(residualExpr, combined) : undefined,
      leftWidth: lw,
      rightWidth: rw,
    });

    let strategy = plan.strategy;
    let pinned = false;
    if (strategy?.kind === 'dependent') {
      const driver = strategy.driver;
      const otherPlan = driver === 'left' ? plan.right : plan.left;
      const otherKeys = keys.map((k) => (driver === 'left' ? k.right : k.left));
      // what the source reads: a grouped one filters its input by the keys before grouping
      const otherEst = this.rows(readByKeys(otherPlan, keyIds(otherKeys)));
      // asking a tiny source by key saves nothing and serialises two statements: read it whole, at the same time as the driver
      if (otherEst !== undefined && otherEst <= TINY_SIDE_ROWS) strategy = { kind: 'hash', buildSide: driver === 'left' ? 'right' : 'left' };
      // when the other statement already pins the key to a constant (key inference copied c = $1 across the join), IN lists add nothing
      else if (pinsKey(otherPlan, otherKeys)) {
        strategy = { kind: 'hash', buildSide: driver };
        pinned = true;
      }
    }
    if (strategy?.kind === 'dependent') {
      const driverSide = strategy.driver;
      const other = driverSide === 'left' ? right : left;
      const dep = this.dependentTarget(other, keys.map((k) => (driverSide === 'left' ? k.right : k.left)));
      // a semi join's left rows without a match are dropped: restricting them to the right's keys is exact
      const preservedOther = driverSide === 'left' ? type === 'right' || type === 'full' : type === 'left' || type === 'full' || type === 'anti';
      if (dep && !preservedOther) {
        const driverCols = driverSide === 'left' ? leftCols : rightCols;
        const op = new DependentJoinOp(
          driverSide === 'left' ? left.op : right.op,
          dep.scan,
          spec(driverSide),
          {
            driverColumn: driverCols[dep.keyIndex],
            driverType: (driverSide === 'left' ? leftTypes : rightTypes)[dep.keyIndex],
            remoteColumn: dep.column,
            maxInList: Math.min(strategy.maxInList, dep.scan.connector.capabilities().maxInList || strategy.maxInList),
            maxParallel: strategy.maxParallel,
            extraKeys: dep.others.map((o) => ({
              driverColumn: driverCols[o.keyIndex],
              driverType: (driverSide === 'left' ? leftTypes : rightTypes)[o.keyIndex],
              remoteColumn: o.column,
            })),
          },
          detail,
          plan.notPushed,
          est,
        );
        return { op, layout, fields };
      }
    }

    const buildSide = strategy?.kind === 'hash' ? strategy.buildSide : strategy?.kind === 'dependent' ? strategy.driver : 'right';
    const probe = buildSide === 'right' ? left : right;
    const probeKeys = keys.map((k) => (buildSide === 'right' ? k.left : k.right));
    const buildCols = buildSide === 'right' ? rightCols : leftCols;
    let dependentSwitch: DependentSwitch | undefined;
    const switchKeys = this.o.dependentSwitchKeys ?? 0;
    const probePreserved = buildSide === 'right' ? type === 'left' || type === 'full' || type === 'anti' : type === 'right' || type === 'full';
    const probePlan = buildSide === 'right' ? plan.left : plan.right;
    const probeEst = this.rows(probePlan);
    const probeRead = this.rows(readByKeys(probePlan, keyIds(probeKeys)));
    pinned ||= pinsKey(probePlan, probeKeys);
    // a tiny probe statement is better started at once, alongside the build side, than restricted later
    if (switchKeys > 0 && !pinned && !probePreserved && !(probeRead !== undefined && probeRead <= TINY_SIDE_ROWS)) {
      const remote = this.dependentTarget(probe, probeKeys);
      const dep = remote ?? this.innerTarget(probePlan, probeKeys);
      // columns dropped right above the statement (pushdown off) leave it the probe side all the same
      const direct = remote !== undefined || (dep !== undefined && columnsOfRemote(probePlan));
      const maxInList = (dep && dep.scan.connector.capabilities().maxInList) || 1000;
      const limit = dep && switchKeyLimit(switchKeys, probeEst, maxInList, bindsKeyArray(dep.scan, dep.column));
      // a dynamic filter holds the whole probe side back until the build side is read, where it
      // would otherwise start at once: only worth it when the build side is expected to pass
      const buildEst = this.rows(buildSide === 'right' ? plan.right : plan.left);
      if (dep && limit !== undefined && (direct || (buildEst !== undefined && buildEst <= limit))) {
        dependentSwitch = {
          scan: dep.scan,
          probeColumn: dep.column,
          buildColumn: buildCols[dep.keyIndex],
          buildType: (buildSide === 'right' ? rightTypes : leftTypes)[dep.keyIndex],
          maxKeys: limit,
          maxInList,
          maxParallel: 4,
        };
      }
    }
    return { op: new HashJoinOp(left.op, right.op, spec(buildSide), detail, dependentSwitch, plan.notPushed, est), layout, fields };
  }

  private markJoin(plan: Extract<LogicalPlan, { kind: 'MarkJoin' }>, est: number | undefined): Planned {
    const { left, right, combined, leftIds, rightIds, keys, residualExpr } = this.twoInputs(plan);
    const fields = outputFields(plan);
    let spec: MarkJoinSpec = {
      ...(keys.length > 0
        ? {
            leftKey: makeKeyFn(keys.map((k) => this.column(k.left, left.layout)), keys.map((k) => k.left.type), false),
            rightKey: makeKeyFn(keys.map((k) => this.column(k.right, right.layout)), keys.map((k) => k.right.type), false),
          }
        : {}),
      ...(residualExpr ? { residual: this.o.compiler.expr(residualExpr, combined) } : {}),
      ...(plan.compare ? { compare: this.markCompare(plan.compare, left, right, leftIds, rightIds, combined) } : {}),
    };
    // a big subquery on a source that takes IN lists may be fetched by the outer rows' correlation keys
    const switchKeys = this.o.dependentSwitchKeys ?? 0;
    const rightEst = this.rows(plan.right);
    if (keys.length > 0 && switchKeys > 0 && !(rightEst !== undefined && rightEst <= TINY_SIDE_ROWS)) {
      const dep = this.dependentTarget(right, keys.map((k) => k.right));
      if (dep) {
        const maxInList = dep.scan.connector.capabilities().maxInList || 1000;
        const k = keys[dep.keyIndex];
        spec = {
          ...spec,
          byKeys: {
            scan: dep.scan,
            column: dep.column,
            leftColumn: this.column(k.left, left.layout),
            leftType: k.left.type,
            maxKeys: switchKeyLimit(switchKeys, rightEst, maxInList, bindsKeyArray(dep.scan, dep.column)),
            maxInList,
            maxParallel: 4,
          },
        };
      }
    }
    const what = plan.compare ? `${plan.mark.name} := ANY ${this.text(plan.compare)}` : `${plan.mark.name} := EXISTS`;
    const detail = `${what}${plan.condition ? ` where ${this.text(plan.condition)}` : ''}`;
    return { op: new MarkJoinOp(left.op, right.op, spec, detail, plan.notPushed, est), layout: this.layoutOf(fields), fields };
  }

  /** x = y with each side over one input is a hash lookup; any other comparison runs on the joined row. */
  private markCompare(compare: Expr, left: Planned, right: Planned, leftIds: ReadonlySet<number>, rightIds: ReadonlySet<number>, combined: Layout): MarkCompare {
    const [key] = splitJoinCondition(compare, leftIds, rightIds).keys;
    if (key && compare.kind === 'call' && compare.fn === 'eq') {
      return {
        kind: 'equal',
        left: makeKeyFn([this.column(key.left, left.layout)], [key.left.type], false),
        right: makeKeyFn([this.column(key.right, right.layout)], [key.right.type], false),
      };
    }
    return { kind: 'row', fn: this.o.compiler.expr(compare, combined) };
  }

  /**
   * A statement inside a hash join's probe side that its build keys may restrict (a dynamic
   * filter): one that outputs a probe key unchanged (see keyCarrier), so the rows a key set
   * removes there are rows the join would drop.
   */
  private innerTarget(probe: LogicalPlan, probeKeys: readonly Expr[]): ReturnType<Planner['dependentTarget']> {
    for (let i = 0; i < probeKeys.length; i++) {
      const k = keyColumn(probeKeys[i]);
      const found = k && keyCarrier(probe, k.id);
      const planned = found && this.remotes.get(found.remote);
      if (!k || !found || !planned) continue;
      const dep = this.dependentTarget(planned, [{ ...k, id: found.id }]);
      if (dep) return { ...dep, keyIndex: i, others: [] };
    }
    return undefined;
  }

  /** The remote statement a dependent fetch can restrict, the key column it restricts, and further restrictable key columns. */
  private dependentTarget(
    side: Planned,
    sideKeys: readonly Expr[],
  ): { scan: RemoteScanOp; column: number; keyIndex: number; others: { column: number; keyIndex: number }[] } | undefined {
    if (!(side.op instanceof RemoteScanOp)) return undefined;
    const caps = side.op.connector.capabilities();
    if (!caps.in || !canRestrict(side.op.query, caps.subqueryInFrom)) return undefined;
    const usable: { column: number; keyIndex: number }[] = [];
    for (let i = 0; i < sideKeys.length; i++) {
      const k = keyColumn(sideKeys[i]);
      if (!k) continue;
      const column = side.layout.get(k.id);
      if (column === undefined) continue;
      const t = side.op.query.select[column].expr.type;
      // the IN values are compared by the source: only where its equality is Junction's
      if (t.kind === 'string' && !caps.exactStringEquality) continue;
      if (t.kind === 'float32' || t.kind === 'float64') continue;
      // implied equalities can name one remote column twice (p_partkey = l_partkey AND
      // ps_partkey = l_partkey): a second IN on it restricts nothing and doubles the source's work
      if (usable.some((u) => u.column === column)) continue;
      usable.push({ column, keyIndex: i });
    }
    if (usable.length === 0) return undefined;
    return { scan: side.op, ...usable[0], others: usable.slice(1) };
  }
}

/** A projection that only picks columns of a statement (project-columns-in-junction.ts). */
function columnsOfRemote(plan: LogicalPlan): boolean {
  return plan.kind === 'Project' && plan.input.kind === 'Remote' && plan.exprs.every((e) => e.expr.kind === 'ref');
}

function keyIds(keys: readonly Expr[]): Set<number> {
  return new Set(keys.map(keyColumn).flatMap((k) => (k ? [k.id] : [])));
}

/**
 * The Remote node inside `plan` whose output column `id` reaches the top unchanged, and that
 * column's id there: through filters, sorts, DISTINCT, projections and groupings that pass it
 * as it is, and the output side of inner, cross, semi and anti joins. Restricting that
 * statement to some values of the column removes exactly the top rows holding other values.
 */
export function keyCarrier(plan: LogicalPlan, id: number): { readonly remote: LogicalPlan; readonly id: number } | undefined {
  switch (plan.kind) {
    case 'Remote':
      return plan.fields.some((f) => f.id === id) ? { remote: plan, id } : undefined;
    case 'Filter':
    case 'Sort':
    case 'Distinct':
      return keyCarrier(plan.input, id);
    case 'Project':
    case 'Aggregate': {
      const x = (plan.kind === 'Project' ? plan.exprs : plan.groupBy).find((e) => e.field.id === id);
      return x?.expr.kind === 'ref' ? keyCarrier(plan.input, x.expr.id) : undefined;
    }
    case 'Join':
      if (plan.type === 'inner' || plan.type === 'cross') return keyCarrier(plan.left, id) ?? keyCarrier(plan.right, id);
      return plan.type === 'semi' || plan.type === 'anti' ? keyCarrier(plan.left, id) : undefined;
    default:
      return undefined;
  }
}

/** Whether a filter inside `plan` fixes one of `keys` to a literal or parameter. */
function pinsKey(plan: LogicalPlan, keys: readonly Expr[]): boolean {
  const ids = new Set(keys.map(keyColumn).flatMap((k) => (k ? [k.id] : [])));
  if (ids.size === 0) return false;
  const constant = (e: Expr): boolean => e.kind === 'literal' || e.kind === 'param';
  const visit = (p: LogicalPlan): boolean => {
    if (p.kind === 'Filter') {
      for (const c of conjunctsOf(p.predicate)) {
        if (c.kind === 'call' && c.fn === 'eq') {
          const [a, b] = c.args;
          if ((a.kind === 'ref' && ids.has(a.id) && constant(b)) || (b.kind === 'ref' && ids.has(b.id) && constant(a))) return true;
        }
      }
    }
    if (p.kind === 'Remote') return visit(p.plan);
    if (p.kind === 'Scan' || p.kind === 'Values') return false;
    if (p.kind === 'Join') return (p.type === 'inner' || p.type === 'cross') && (visit(p.left) || visit(p.right));
    if (p.kind === 'SetOp' || p.kind === 'Aggregate' || p.kind === 'Window') return false;
    if (p.kind === 'MarkJoin') return visit(p.left);
    return visit(p.input);
  };
  return visit(plan);
}


