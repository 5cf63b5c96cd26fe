import { t } from '@junction/connectors';
import type { ScalarFn, Value } from '@junction/connectors';
import { compileExpr } from '../../expr/compile.js';
import { SUBQUERY_ROWS } from '../../expr/errors.js';
import type * as C from 'sql-parser-cst';
import type { AggregateCall, Expr, Field, LogicalPlan } from '../../plan/logical.js';
import { commonSupertype } from '../../expr/types.js';
import { outputFields } from '../../plan/fields.js';
import { refsOf, replaceRefs } from '../../plan/exprs.js';
import { and, call, coerce, lit, nullable, ref } from './coerce.js';
import { bindExpr, comparison } from './expr.js';
import type { ExprEnv, SubquerySink } from './expr.js';
import type { CorrelationMode, QueryBinder } from './query.js';
import type { Scope } from './scope.js';

/**
 * A join a clause's subqueries need below (or above) the clause's operator. Above an
 * Aggregate, `rewrite` turns what the correlation reads of the outer query into the
 * Aggregate's outputs (its group keys).
 */
export type PendingJoin = (plan: LogicalPlan, rewrite?: (e: Expr) => Expr) => LogicalPlan;

/**
 * A mark join waiting for its input. Above an Aggregate, `rewrite` turns what it reads of the
 * outer query (the compared operand, the correlation's outer columns) into the Aggregate's outputs.
 */
export interface PendingMark {
  readonly id: number;
  /** the outer query's fields it reads (the compared operand, the correlation's outer side) */
  readonly reads: ReadonlySet<number>;
  /** the expression standing for it when it is not the field `id` itself */
  readonly value?: Expr;
  apply(plan: LogicalPlan, rewrite?: (e: Expr) => Expr): LogicalPlan;
}

/**
 * Subqueries in expressions, turned into joins wherever that is exact:
 *   [NOT] EXISTS / x [NOT] IN (SELECT …) as WHERE conjuncts → semi/anti joins (NULL-aware NOT IN);
 *   correlated aggregate scalar subqueries → left join on the correlation keys;
 *   one-row uncorrelated scalar subqueries → cross join; other uncorrelated ones stay an Expr.
 */
export class SubqueryBinder {
  /** match counts of scalar subqueries whose value raises when an outer row meets two rows (decorrelateRows) */
  readonly checked = new Set<number>();

  constructor(private readonly q: QueryBinder) {}

  /** WHERE conjuncts `x [NOT] IN (SELECT …)` and `[NOT] EXISTS (SELECT …)` → semi/anti joins. */
  condition(node: C.Node, scope: Scope): ((p: LogicalPlan) => LogicalPlan) | undefined {
    const ctx = this.q.ctx;
    let n = node;
    while (n.type === 'paren_expr' && !isQuery(n.expr as C.Node)) n = n.expr as C.Node;
    let negated = false;
    if (
      n.type === 'prefix_op_expr' &&
      kwName(n.operator) === 'NOT' &&
      unwrap(n.expr).type === 'prefix_op_expr' &&
      kwName((unwrap(n.expr) as C.PrefixOpExpr).operator) === 'EXISTS'
    ) {
      negated = true;
      n = unwrap(n.expr);
    }
    if (n.type === 'prefix_op_expr' && kwName(n.operator) === 'EXISTS') {
      const sub = (n.expr as C.ParenExpr).expr as C.Node;
      const mode: CorrelationMode = { kind: 'exists', outer: scope, pulled: [] };
      const q = this.q.bindQuery(sub, mode);
      if (mode.deferred) {
        const deferred = mode.deferred;
        return (plan) => this.filterByMatches(plan, q.plan, and(mode.pulled), deferred, negated, n);
      }
      return (plan) => ({
        kind: 'Join',
        type: negated ? 'anti' : 'semi',
        left: plan,
        right: q.plan,
        ...(mode.pulled.length ? { condition: and(mode.pulled)! } : {}),
      });
    }
    if (n.type === 'binary_expr') {
      let op = kwName(n.operator);
      let right = n.right as C.Node;
      // x = ANY (SELECT …) is IN; x <> ALL (SELECT …) is NOT IN
      if (right.type === 'quantifier_expr' && isQuery(right.expr.expr as C.Node)) {
        const q = right.quantifierKw.name.toUpperCase();
        if (op === '=' && (q === 'ANY' || q === 'SOME')) op = 'IN';
        else if ((op === '<>' || op === '!=') && q === 'ALL') op = 'NOT IN';
        // other quantified comparisons are values: a mark join (expr.ts)
        else return undefined;
        right = right.expr as C.Node;
      }
      if ((op === 'IN' || op === 'NOT IN') && right.type === 'paren_expr' && isQuery(right.expr as C.Node)) {
        const env: ExprEnv = { ctx, scope, clause: 'WHERE' };
        const x = bindExpr(env, n.left);
        const mode: CorrelationMode = { kind: 'in', outer: scope, pulled: [] };
        const q = this.q.bindQuery(right.expr as C.Node, mode);
        if (q.columns.length !== 1)
          throw ctx.error(
            'user',
            'syntax_error',
            `subquery has too ${q.columns.length > 1 ? 'many' : 'few'} columns`,
            right,
          );
        const y = ref(q.columns[0].field);
        const cmp = comparison(env, 'eq', x, y, n);
        const outerNullable = (id: number) => scope.columns.find((c) => c.field.id === id)?.field.nullable ?? true;
        let cond = cmp;
        if (op === 'NOT IN') {
          // x NOT IN (…) is NULL, so filters the row out, when x or any subquery value is NULL
          const xNull = nullable(x, outerNullable);
          const yNull = q.columns[0].field.nullable;
          const alts: Expr[] = [cmp];
          if (xNull) alts.push(call('is_null', [(cmp as Extract<Expr, { kind: 'call' }>).args[0]]));
          if (yNull) alts.push(call('is_null', [(cmp as Extract<Expr, { kind: 'call' }>).args[1]]));
          cond = alts.reduce((a, b) => call('or', [a, b]));
        }
        const condition = and([cond, ...mode.pulled])!;
        if (mode.deferred) {
          const deferred = mode.deferred;
          return (plan) => this.filterByMatches(plan, q.plan, condition, deferred, op === 'NOT IN', n);
        }
        return (plan) => ({
          kind: 'Join',
          type: op === 'NOT IN' ? 'anti' : 'semi',
          left: plan,
          right: q.plan,
          condition,
        });
      }
    }
    return undefined;
  }

  /**
   * EXISTS (SELECT …) / x op ANY (SELECT y …) as a value: a MarkJoin whose mark stands for it.
   * The subquery's correlation (WHERE conjuncts reading the outer row) becomes the join's
   * condition; its equalities are the keys the operator groups by.
   */
  mark(env: ExprEnv, node: C.Node, queryNode: C.Node, cmp?: { x: Expr; fn: ScalarFn }): PendingMark {
    const ctx = this.q.ctx;
    const mode: CorrelationMode = { kind: cmp ? 'in' : 'exists', outer: env.scope, pulled: [] };
    const q = this.q.bindQuery(queryNode, mode);
    if (mode.deferred) {
      if (cmp) throw ctx.unsupported('IN or a quantified comparison as a value (not a WHERE conjunct) over a subquery whose NOT EXISTS reads this query', node);
      return this.markByMatches(q.plan, and(mode.pulled), mode.deferred, node);
    }
    let compare: Extract<Expr, { kind: 'call' }> | undefined;
    if (cmp) {
      if (q.columns.length !== 1)
        throw ctx.error('user', 'syntax_error', `subquery has too ${q.columns.length > 1 ? 'many' : 'few'} columns`, queryNode);
      compare = comparison(env, cmp.fn, cmp.x, ref(q.columns[0].field), node) as Extract<Expr, { kind: 'call' }>;
    }
    const isNullable = (id: number) => env.scope.columns.find((c) => c.field.id === id)?.field.nullable ?? true;
    // EXISTS is never NULL; IN is NULL only when a NULL can reach the comparison
    const markNullable = !!cmp && (nullable(cmp.x, isNullable) || q.columns[0].field.nullable);
    const mark: Field = { id: ctx.newId(), name: cmp ? 'any' : 'exists', type: t.bool, nullable: markNullable };
    const condition = and(mode.pulled);
    const innerIds = new Set(outputFields(q.plan).map((f) => f.id));
    const reads = new Set<number>();
    for (const e of [...(condition ? [condition] : []), ...(compare ? [compare.args[0]] : [])])
      for (const id of refsOf(e)) if (!innerIds.has(id)) reads.add(id);
    return {
      id: mark.id,
      reads,
      apply: (plan, rewrite) => ({
        kind: 'MarkJoin',
        left: plan,
        right: q.plan,
        // above an Aggregate the outer columns the correlation reads are its group keys
        ...(condition ? { condition: rewrite ? rewriteOuter(condition, innerIds, rewrite) : condition } : {}),
        ...(compare
          ? { compare: rewrite ? { ...compare, args: [rewrite(compare.args[0]), compare.args[1]] } : compare }
          : {}),
        mark,
      }),
    };
  }

  /**
   * A correlated aggregate subquery whose correlation is not only equalities (x.k < o.k), by
   * general decorrelation: number the outer rows, left join them to the subquery's input on
   * the correlation, aggregate per outer row, and compute the subquery's select list there.
   * Every aggregate counts only rows the join really matched (FILTER on a marker column the
   * NULL-extended rows lack), so count(*) over no rows is 0, not 1 (the "COUNT bug"), and
   * an outer row with no match still gets its one row.
   */
  private decorrelate(plan: LogicalPlan, pulled: readonly Expr[], node: C.Node): PendingJoin {
    const ctx = this.q.ctx;
    if (plan.kind !== 'Project') throw ctx.unsupported('this correlated scalar subquery (LIMIT or ORDER BY around its aggregate)', node);
    const having = plan.input.kind === 'Filter' ? plan.input.predicate : undefined;
    const aggregate = plan.input.kind === 'Filter' ? plan.input.input : plan.input;
    if (aggregate.kind !== 'Aggregate' || aggregate.groupBy.length > 0)
      throw ctx.unsupported('this correlated scalar subquery (LIMIT or ORDER BY around its aggregate)', node);
    // each outer row has exactly one group here: a HAVING that rejects it makes the value NULL
    const values = plan.exprs.map((e) =>
      having ? { field: e.field, expr: { kind: 'case', whens: [{ when: having, then: e.expr }], type: e.expr.type } as Expr } : e,
    );
    const inner = aggregate.input;
    const innerIds = new Set(outputFields(inner).map((f) => f.id));
    const { present, marked } = markPresent(ctx, inner);
    const aggregates = aggregate.aggregates.map((a) => ({ ...a, filter: a.filter ? and([ref(present), a.filter])! : ref(present) }));
    const condition = and([...pulled])!;
    return (outer, rewrite) => {
      if (rewrite) throw ctx.unsupported('a correlated scalar subquery in an aggregate query whose correlation is not only equalities', node);
      const { grouped, fields } = perOuterRow(ctx, node, outer, marked, condition, innerIds, aggregates);
      return { kind: 'Project', input: grouped, exprs: [...fields.map((f) => ({ field: f, expr: ref(f) })), ...values] };
    };
  }

  /**
   * A subquery tested for a match whose own NOT EXISTS (or NOT IN) reads this query's row
   * (`deferred`, left out of its plan), by general decorrelation: number this query's rows,
   * left join them to the subquery's rows on its correlation, apply the deferred joins to the
   * pairs (where that row is now at hand) as marks, and count per row the pairs no mark rules
   * out. Every row keeps its group (count 0 when it has no pair, or none left).
   */
  private countMatches(
    outer: LogicalPlan,
    inner: LogicalPlan,
    condition: Expr | undefined,
    deferred: readonly Extract<LogicalPlan, { kind: 'Join' }>[],
    node: C.Node,
    matches: Field = { id: this.q.ctx.newId(), name: '?matches?', type: t.int64, nullable: false },
  ) {
    const ctx = this.q.ctx;
    const { present, marked } = markPresent(ctx, inner);
    const fields = outputFields(outer);
    const { row, numbered } = numberRows(ctx, outer);
    let joined: LogicalPlan = { kind: 'Join', type: 'left', left: numbered, right: marked, ...(condition ? { condition } : {}) };
    // an anti join would drop a row's last pair, and the row with it: each pair gets a mark instead
    const ruledOut: Expr[] = [];
    for (const d of deferred) {
      if (d.type !== 'anti') throw ctx.unsupported('EXISTS reading a query two levels up inside a scalar subquery', node);
      const mark: Field = { id: ctx.newId(), name: 'exists', type: t.bool, nullable: false };
      joined = { kind: 'MarkJoin', left: joined, right: d.right, condition: d.condition!, mark };
      ruledOut.push(ref(mark));
    }
    const available = new Set([...outputFields(joined), ...deferred.flatMap((d) => outputFields(d.right))].map((f) => f.id));
    for (const c of [...(condition ? [condition] : []), ...deferred.map((d) => d.condition!)])
      for (const id of refsOf(c))
        if (!available.has(id)) throw ctx.unsupported('a subquery reading a query three or more levels out', node);
    const grouped: LogicalPlan = {
      kind: 'Aggregate',
      input: joined,
      groupBy: [row, ...fields].map((f) => ({ field: f, expr: ref(f) })),
      aggregates: [{ field: matches, fn: 'count', args: [ref(present)], distinct: false, filter: and(ruledOut.map((m) => call('not', [m])))! }],
    };
    return { grouped, fields, matches };
  }

  /** [NOT] EXISTS / [NOT] IN as a WHERE conjunct over a subquery with deferred joins (see countMatches). */
  private filterByMatches(
    outer: LogicalPlan,
    inner: LogicalPlan,
    condition: Expr | undefined,
    deferred: readonly Extract<LogicalPlan, { kind: 'Join' }>[],
    negated: boolean,
    node: C.Node,
  ): LogicalPlan {
    const { grouped, fields, matches } = this.countMatches(outer, inner, condition, deferred, node);
    const zero = lit(0n, t.int64);
    const predicate = call(negated ? 'eq' : 'gt', [ref(matches), zero]);
    return { kind: 'Project', input: { kind: 'Filter', input: grouped, predicate }, exprs: fields.map((f) => ({ field: f, expr: ref(f) })) };
  }

  /** EXISTS as a value over a subquery with deferred joins: true when a pair is left (never NULL). */
  private markByMatches(inner: LogicalPlan, condition: Expr | undefined, deferred: readonly Extract<LogicalPlan, { kind: 'Join' }>[], node: C.Node): PendingMark {
    const ctx = this.q.ctx;
    // the count itself is carried up, and the mark is `count > 0` where it is read: a column
    // computed from it would hide from the optimizer that a predicate over it already holds
    const matches: Field = { id: ctx.newId(), name: '?matches?', type: t.int64, nullable: false };
    const innerIds = new Set([...outputFields(inner), ...deferred.flatMap((d) => outputFields(d.right))].map((f) => f.id));
    const reads = new Set<number>();
    for (const c of [...(condition ? [condition] : []), ...deferred.map((d) => d.condition!)])
      for (const id of refsOf(c)) if (!innerIds.has(id)) reads.add(id);
    return {
      id: matches.id,
      reads,
      value: call('gt', [ref(matches), lit(0n, t.int64)]),
      apply: (plan, rewrite) => {
        if (rewrite) throw ctx.unsupported('EXISTS over a subquery whose NOT EXISTS reads this query, in a query with GROUP BY or aggregates', node);
        const { grouped, fields } = this.countMatches(plan, inner, condition, deferred, node, matches);
        return { kind: 'Project', input: grouped, exprs: [...fields, matches].map((f) => ({ field: f, expr: ref(f) })) };
      },
    };
  }

  /**
   * A correlated scalar subquery without an aggregate whose correlation does not pin one row
   * (no unique key): it may yield several rows for an outer row, which PostgreSQL rejects only
   * when it happens. Number the outer rows, left join them to the subquery's rows on the
   * correlation, and per outer row count the real matches and keep the value: a count above
   * one raises PostgreSQL's error, none gives NULL. Grouping by the row number keeps one row
   * per outer row, so the check cannot be pushed below the join onto rows no outer row meets.
   */
  private decorrelateRows(plan: LogicalPlan, out: Field, pulled: readonly Expr[], node: C.Node): { join: PendingJoin; value: Expr } {
    const ctx = this.q.ctx;
    // ORDER BY alone does not change which rows there are
    let inner = plan;
    while (inner.kind === 'Sort') inner = inner.input;
    const innerIds = new Set(outputFields(inner).map((f) => f.id));
    const { present, marked } = markPresent(ctx, inner);
    const matches: Field = { id: ctx.newId(), name: '?matches?', type: t.int64, nullable: false };
    const any: Field = { ...out, id: ctx.newId(), nullable: true };
    // at most one match reaches the value: min (bool_or for booleans, which have no min) is that match
    const aggregates: AggregateCall[] = [
      { field: matches, fn: 'count', args: [ref(present)], distinct: false },
      { field: any, fn: out.type.kind === 'bool' ? 'bool_or' : 'min', args: [ref(out)], distinct: false },
    ];
    this.checked.add(matches.id);
    // not a column: the check runs where the value is read, after the conjuncts before it
    const value: Expr = {
      kind: 'case',
      whens: [{ when: call('gt', [ref(matches), lit(1n, t.int64)]), then: { kind: 'raise', ...SUBQUERY_ROWS, type: out.type } }],
      else: ref(any),
      type: out.type,
    };
    const condition = and([...pulled])!;
    const join: PendingJoin = (outer, rewrite) => {
      if (rewrite) throw ctx.unsupported('a correlated scalar subquery that may return several rows, in a query with GROUP BY or aggregates', node);
      const { grouped, fields } = perOuterRow(ctx, node, outer, marked, condition, innerIds, aggregates);
      return { kind: 'Project', input: grouped, exprs: [...fields, matches, any].map((f) => ({ field: f, expr: ref(f) })) };
    };
    return { join, value };
  }

  /**
   * Scalar subqueries. Correlated ones (aggregate, equality correlation) become a left join on
   * the correlation keys, added to `correlated`. Uncorrelated ungrouped aggregates always yield
   * exactly one row, so when `constant` is given they become a cross join the optimizer can
   * plan like any other; other uncorrelated ones stay an Expr 'subquery' (evaluated once).
   */
  scalarSink(
    correlated: PendingJoin[],
    constant?: { joins: PendingJoin[]; ids: Set<number> },
    marks?: PendingMark[],
    /** marks inside an aggregate's arguments: joined in below the Aggregate */
    below?: PendingMark[],
  ): SubquerySink {
    const plainSink = (): SubquerySink => this.scalarSink(correlated, undefined, below);
    return {
      get plain(): SubquerySink | undefined {
        return constant || below ? plainSink() : undefined;
      },
      mark: (env, node, queryNode, compare) => {
        const m = this.mark(env, node, queryNode, compare);
        if (marks) marks.push(m);
        else correlated.push((plan) => m.apply(plan));
        return m.value ?? { kind: 'ref', id: m.id, type: t.bool };
      },
      scalar: (node, queryNode, s) => {
        try {
          return this.scalar(node, queryNode, s, correlated, constant, false);
        } catch (e) {
          // a HAVING that holds over no rows: the general decorrelation tells the cases apart
          if (e instanceof AmbiguousHaving) return this.scalar(node, queryNode, s, correlated, constant, true);
          throw e;
        }
      },
    };
  }

  /** One scalar subquery; `general` forces general decorrelation (see decorrelate). */
  private scalar(
    node: C.Node,
    queryNode: C.Node,
    s: Scope,
    correlated: PendingJoin[],
    constant: { joins: PendingJoin[]; ids: Set<number> } | undefined,
    general: boolean,
  ): Expr {
    const mode: CorrelationMode = { kind: 'scalar', outer: s, pulled: [], ...(general ? { general } : {}) };
    const q = this.q.bindQuery(queryNode, mode);
    if (mode.deferred) throw this.q.ctx.unsupported('a scalar subquery whose NOT EXISTS or NOT IN reads this query', node);
    if (q.columns.length !== 1) throw this.q.ctx.error('user', 'syntax_error', 'subquery must return only one column', node);
    const out = q.columns[0].field;
    if (!mode.keys || mode.keys.length === 0) {
      if (mode.pulled.length > 0 && mode.rows) {
        const rows = this.decorrelateRows(q.plan, out, mode.pulled, node);
        correlated.push(rows.join);
        return rows.value;
      }
      if (mode.pulled.length > 0) {
        correlated.push(this.decorrelate(q.plan, mode.pulled, node));
        return ref(out);
      }
      if (constant && isSingleRowAggregate(q.plan)) {
        constant.joins.push((plan) => ({ kind: 'Join', type: 'cross', left: plan, right: q.plan }));
        constant.ids.add(out.id);
        return ref(out);
      }
      return { kind: 'subquery', plan: q.plan, type: out.type };
    }
    const keys = mode.keys;
    // an outer row without a group gets the subquery's value over no rows (count 0,
    // coalesce(max(x), -1) -1), but the left join yields NULL there (throws before joining)
    const empty = emptyGroupValue(q.plan, out.id, node, this.q.ctx);
    const condition = and(
      keys.map((k) =>
        call('eq', [
          coerce(this.q.ctx, k.outer, commonSupertype(k.outer.type, k.inner.type) ?? k.inner.type),
          coerce(this.q.ctx, ref(k.inner), commonSupertype(k.outer.type, k.inner.type) ?? k.inner.type),
        ]),
      ),
    )!;
    const innerIds = new Set(outputFields(q.plan).map((f) => f.id));
    correlated.push((plan, rewrite) => ({
      kind: 'Join',
      type: 'left',
      left: plan,
      right: q.plan,
      condition: rewrite ? rewriteOuter(condition, innerIds, rewrite) : condition,
    }));
    const value: Expr = ref(out);
    if (empty === null) return value;
    if (findCountOutput(q.plan, out.id)) return call('coalesce', [value, lit(0n, t.int64)], t.int64);
    return {
      kind: 'case',
      whens: [{ when: call('is_not_null', [ref(keys[0].inner)]), then: value }],
      else: lit(empty, out.type),
      type: out.type,
    };
  }
}

/** The keys decorrelation cannot answer for outer rows without a group; thrown before anything is joined. */
class AmbiguousHaving extends Error {}

/**
 * What a decorrelated scalar subquery (Project over [HAVING Filter over] an Aggregate)
 * yields for an outer row that has no group: its select expression with every aggregate
 * taken over no rows (count 0, the others NULL), or NULL when HAVING rejects that. null when
 * the answer is NULL, which the left join gives already.
 */
/** The subquery's rows with a column that is true on each: NULL on an outer row a left join found no match for. */
function markPresent(ctx: QueryBinder['ctx'], inner: LogicalPlan): { present: Field; marked: LogicalPlan } {
  const present: Field = { id: ctx.newId(), name: '?matched?', type: t.bool, nullable: false };
  const exprs = [...outputFields(inner).map((f) => ({ field: f, expr: ref(f) })), { field: present, expr: lit(true, t.bool) }];
  return { present, marked: { kind: 'Project', input: inner, exprs } };
}

/**
 * The outer rows numbered, so that each one is a group of its own whatever its values
 * (duplicates and NULLs included): row_number() over no order.
 */
function numberRows(ctx: QueryBinder['ctx'], outer: LogicalPlan): { row: Field; numbered: LogicalPlan } {
  const row: Field = { id: ctx.newId(), name: '?row?', type: t.int64, nullable: false };
  return { row, numbered: { kind: 'Window', input: outer, windows: [{ field: row, fn: 'row_number', args: [], partitionBy: [], orderBy: [] }] } };
}

/**
 * A correlated subquery's rows aggregated per outer row: the outer rows numbered, left-joined
 * with the subquery's on the correlation, grouped by the row number (the outer columns ride
 * along as keys). The correlation may read only this query and the subquery.
 */
function perOuterRow(
  ctx: QueryBinder['ctx'],
  node: C.Node,
  outer: LogicalPlan,
  inner: LogicalPlan,
  condition: Expr,
  innerIds: ReadonlySet<number>,
  aggregates: readonly AggregateCall[],
): { grouped: LogicalPlan; fields: readonly Field[] } {
  const fields = outputFields(outer);
  const outerIds = new Set(fields.map((f) => f.id));
  for (const id of refsOf(condition))
    if (!innerIds.has(id) && !outerIds.has(id)) throw ctx.unsupported('a subquery correlated with a query more than one level out', node);
  const { row, numbered } = numberRows(ctx, outer);
  const joined: LogicalPlan = { kind: 'Join', type: 'left', left: numbered, right: inner, condition };
  return { grouped: { kind: 'Aggregate', input: joined, groupBy: [row, ...fields].map((f) => ({ field: f, expr: ref(f) })), aggregates }, fields };
}

function emptyGroupValue(plan: LogicalPlan, id: number, node: C.Node, ctx: QueryBinder['ctx']): Value {
  let p = plan;
  while (p.kind === 'Limit' || p.kind === 'Sort') p = p.input;
  if (p.kind !== 'Project') return null;
  const item = p.exprs.find((e) => e.field.id === id);
  if (!item) return null;
  let having: Expr | undefined;
  let q: LogicalPlan = p.input;
  if (q.kind === 'Filter') {
    having = q.predicate;
    q = q.input;
  }
  if (q.kind !== 'Aggregate') return null;
  const overNothing = new Map<number, Expr>(
    q.aggregates.map((a) => [a.field.id, a.fn === 'count' || a.fn === 'count_star' ? lit(0n, t.int64) : lit(null, a.field.type)]),
  );
  const evaluate = (e: Expr): Value => {
    const constant = replaceRefs(e, overNothing);
    if (refsOf(constant).size > 0) throw ctx.unsupported('this correlated scalar subquery (its value reads a column outside its aggregates)', node);
    return compileExpr(constant, new Map())([], []);
  };
  if (having) {
    // a group HAVING rejects and an outer row without a group both meet the left join's NULL:
    // right only when HAVING rejects the empty group too
    if (evaluate(having) === true) throw new AmbiguousHaving();
    return null;
  }
  return evaluate(item.expr);
}

/** `e` with every reference outside `inner` rewritten by `rewrite`. */
function rewriteOuter(e: Expr, inner: ReadonlySet<number>, rewrite: (e: Expr) => Expr): Expr {
  const by = new Map<number, Expr>();
  // the bound ref itself, so an error (an ungrouped column) points where the query wrote it
  for (const id of refsOf(e)) if (!inner.has(id)) by.set(id, rewrite(refNode(e, id)));
  return replaceRefs(e, by);
}

function refNode(e: Expr, id: number): Expr {
  let found: Expr | undefined;
  const visit = (x: Expr): void => {
    if (found) return;
    if (x.kind === 'ref' && x.id === id) found = x;
    else if (x.kind === 'call') x.args.forEach(visit);
    else if (x.kind === 'cast') visit(x.expr);
    else if (x.kind === 'in') [x.expr, ...x.list].forEach(visit);
    else if (x.kind === 'case') [...(x.operand ? [x.operand] : []), ...x.whens.flatMap((w) => [w.when, w.then]), ...(x.else ? [x.else] : [])].forEach(visit);
  };
  visit(e);
  return found!;
}

/** Project over an Aggregate without GROUP BY (and no HAVING): exactly one row. */
function isSingleRowAggregate(plan: LogicalPlan): boolean {
  return plan.kind === 'Project' && plan.input.kind === 'Aggregate' && plan.input.groupBy.length === 0;
}

function findCountOutput(plan: LogicalPlan, id: number): boolean {
  // the scalar subquery's value is a Project over an Aggregate; is it exactly a count?
  let p = plan;
  while (p.kind === 'Limit' || p.kind === 'Sort') p = p.input;
  if (p.kind !== 'Project') return false;
  const item = p.exprs.find((e) => e.field.id === id);
  if (!item || item.expr.kind !== 'ref') return false;
  const refId = item.expr.id;
  let q: LogicalPlan = p.input;
  while (q.kind === 'Filter' || q.kind === 'Window') q = q.input;
  if (q.kind !== 'Aggregate') return false;
  const agg = q.aggregates.find((a) => a.field.id === refId);
  return !!agg && (agg.fn === 'count' || agg.fn === 'count_star');
}

export function kwName(op: unknown): string {
  if (typeof op === 'string') return op.toUpperCase();
  if (Array.isArray(op)) return op.map((k) => (k as C.Keyword).name.toUpperCase()).join(' ');
  return (op as C.Keyword).name.toUpperCase();
}

export function isQuery(n: C.Node): boolean {
  return n.type === 'select_stmt' || n.type === 'compound_select_stmt';
}

export function unwrap(n: C.Node): C.Node {
  while (n.type === 'paren_expr' && !isQuery(n.expr as C.Node)) n = n.expr as C.Node;
  return n;
}

export function splitAnd(node: C.Node): C.Node[] {
  const n = unwrap(node);
  if (n.type === 'binary_expr' && kwName(n.operator) === 'AND') return [...splitAnd(n.left), ...splitAnd(n.right)];
  return [node];
}
