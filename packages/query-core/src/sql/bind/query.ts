import { JunctionError, t } from '@junction/connectors';
import type { JType } from '@junction/connectors';
import type * as C from 'sql-parser-cst';
import type { Expr, Field, LogicalPlan, NamedExpr, SortKey, WindowCall } from '../../plan/logical.js';
import { outputFields } from '../../plan/fields.js';
import { behindBarrier } from '../../plan/barrier.js';
import { commonSupertype } from '../../expr/types.js';
import { coversUniqueKey, findTable } from '../../catalog/tables.js';
import { parseSql } from '../parse.js';
import type { BindContext } from './context.js';
import { and, coerce, exprKey, factorOr, lit, nullable, ref, unify } from './coerce.js';
import { conjuncts, refsOf } from '../../plan/exprs.js';
import { bindExpr, identPart, nameParts, requireBool, sortKey } from './expr.js';
import type { ExprEnv } from './expr.js';
import { FromBinder } from './from.js';
import { AggCollector, WindowCollector, rewriteGrouped } from './grouping.js';
import { fieldMap, freeRefs } from './plan-utils.js';
import { Scope } from './scope.js';
import type { ColumnBinding } from './scope.js';
import { SubqueryBinder, isQuery, kwName, splitAnd } from './subquery.js';
import type { PendingJoin, PendingMark } from './subquery.js';

export interface OutputColumn {
  readonly name: string;
  readonly field: Field;
}

export interface BoundQuery {
  readonly plan: LogicalPlan;
  readonly columns: OutputColumn[];
}

/** How a subquery is being bound when it may reference the enclosing query. */
export interface CorrelationMode {
  readonly kind: 'exists' | 'in' | 'scalar';
  readonly outer: Scope;
  /** WHERE conjuncts that reference the outer query, pulled out to become join conditions */
  readonly pulled: Expr[];
  /** scalar mode: local key fields grouped by, paired with the outer expressions they equal */
  keys?: { readonly outer: Expr; readonly inner: Field }[];
  /** scalar mode: decorrelate in general even when the correlation is only equalities */
  readonly general?: boolean;
  /** scalar mode: no aggregate and no unique key, so it may yield several rows per outer row (checked at run time) */
  rows?: boolean;
  /**
   * Semi/anti joins of this subquery's WHERE whose condition reads the enclosing query's row
   * (NOT EXISTS two levels down): they cannot run inside this subquery, whose plan lacks that
   * row, so they are left out of it and applied once it is joined to the enclosing query.
   */
  deferred?: Extract<LogicalPlan, { kind: 'Join' }>[];
}

interface CteDef {
  readonly node: C.CommonTableExpr;
  readonly visible: Map<string, CteDef>[];
}

export class QueryBinder {
  private ctes: Map<string, CteDef>[] = [];
  private readonly from: FromBinder;
  private readonly subqueries: SubqueryBinder;

  constructor(readonly ctx: BindContext) {
    this.from = new FromBinder(this);
    this.subqueries = new SubqueryBinder(this);
  }

  /**
   * The subquery sink of a JOIN's ON: IN/EXISTS become mark joins collected in `marks` (the
   * caller joins each to the side it reads), uncorrelated scalars stay expressions; a
   * correlated scalar subquery is refused.
   */
  onClauseSubqueries(marks: PendingMark[]): { sink: ExprEnv['subqueries']; correlated: PendingJoin[] } {
    const correlated: PendingJoin[] = [];
    return { sink: this.subqueries.scalarSink(correlated, undefined, marks), correlated };
  }

  /** Binds a CTE reference by name, or returns undefined when no CTE of that name is visible. */
  bindCte(name: C.Identifier): { query: BoundQuery; columnNames?: string[] } | undefined {
    const part = identPart(name);
    for (let i = this.ctes.length - 1; i >= 0; i--) {
      const def = [...this.ctes[i].entries()].find(([k]) =>
        part.quoted ? k === part.name : k.toLowerCase() === part.name.toLowerCase(),
      )?.[1];
      if (!def) continue;
      const saved = this.ctes;
      this.ctes = def.visible;
      try {
        // a CTE referenced twice is bound twice: each reference gets its own field ids
        const query = this.bindQuery(def.node.expr.expr as C.Node);
        const columnNames = def.node.columns?.expr.items.map((c) => c.name);
        return { query, columnNames };
      } finally {
        this.ctes = saved;
      }
    }
    return undefined;
  }

  /** Binds a view body (stored SQL) in its own text, sharing ids and parameters; cycles fail. */
  bindView(schema: string, name: string, sql: string, at: C.Node): BoundQuery {
    const key = `${schema}.${name}`;
    if (this.ctx.viewStack.includes(key)) {
      throw this.ctx.error(
        'user',
        'view_cycle',
        `view ${key} refers to itself (through ${[...this.ctx.viewStack.slice(this.ctx.viewStack.indexOf(key)), key].join(' → ')})`,
        at,
      );
    }
    this.ctx.viewStack.push(key);
    try {
      const parsed = parseSql(sql);
      const binder = new QueryBinder(this.ctx.withSql(parsed));
      const body = binder.bindQuery(parsed.statement as C.Node);
      // every view, granted or not: any of them may be granted to someone who cannot read its sources
      return { ...body, plan: behindBarrier(body.plan, key) };
    } catch (e) {
      if (e instanceof JunctionError && e.code !== 'view_cycle' && e.kind !== 'forbidden') {
        throw new JunctionError(e.code, e.kind, `in view ${key}: ${e.message}`, {
          position: this.ctx.position(at),
          cause: e,
          details: e.details,
        });
      }
      if (e instanceof JunctionError && !e.position)
        throw new JunctionError(e.code, e.kind, e.message, { position: this.ctx.position(at), cause: e });
      throw e;
    } finally {
      this.ctx.viewStack.pop();
    }
  }

  bindQuery(node: C.Node, mode?: CorrelationMode): BoundQuery {
    switch (node.type) {
      case 'paren_expr':
        return this.bindQuery(node.expr as C.Node, mode);
      case 'compound_select_stmt':
        return this.bindCompound(node);
      case 'select_stmt':
        return this.bindSelectStmt(node, mode);
      default:
        // not `unsupported(…)`: its "X is not supported" suffix read as nonsense after this sentence
        throw this.ctx.error(
          'unsupported',
          'feature_not_supported',
          `${statementName(node.type)} cannot be run here: Junction answers queries only (SELECT, VALUES, WITH); change data in the source itself`,
          node,
        );
    }
  }

  private withCtes<T>(withClause: C.WithClause | undefined, body: () => T): T {
    if (!withClause) return body();
    if (withClause.recursiveKw) throw this.ctx.unsupported('WITH RECURSIVE', withClause.recursiveKw);
    const level = new Map<string, CteDef>();
    for (const cte of withClause.tables.items) {
      const inner = cte.expr.expr as C.Node;
      if (inner.type !== 'select_stmt' && inner.type !== 'compound_select_stmt' && inner.type !== 'paren_expr') {
        throw this.ctx.unsupported('data-modifying statements in WITH', cte);
      }
      // each CTE sees the ones before it, not itself or later ones
      const visible = [...this.ctes, new Map(level)];
      const name = cte.table.text.startsWith('"') ? cte.table.name : cte.table.name;
      if ([...level.keys()].some((k) => k.toLowerCase() === name.toLowerCase())) {
        throw this.ctx.error(
          'user',
          'duplicate_alias',
          `WITH query name "${name}" specified more than once`,
          cte.table,
        );
      }
      level.set(name, { node: cte, visible });
    }
    this.ctes.push(level);
    try {
      return body();
    } finally {
      this.ctes.pop();
    }
  }

  private bindSelectStmt(node: C.SelectStmt, mode?: CorrelationMode): BoundQuery {
    const clauses = node.clauses;
    const withClause = clauses.find((c): c is C.WithClause => c.type === 'with_clause');
    return this.withCtes(withClause, () => {
      const rest = clauses.filter((c) => c.type !== 'with_clause') as C.Node[];
      const first = rest[0];
      if (first?.type === 'paren_expr') {
        // (SELECT …) ORDER BY … LIMIT …
        const inner = this.bindQuery(first, mode);
        return this.applyOrderLimit(inner, rest.slice(1));
      }
      if (first?.type === 'values_clause') return this.applyOrderLimit(this.bindValues(first), rest.slice(1));
      return this.bindSelect(rest, mode);
    });
  }

  /** Rightmost SELECT of a set operation: the parser hangs the set's ORDER BY/LIMIT on it. */
  private bindCompound(node: C.CompoundSelectStmt): BoundQuery {
    // correlation is not pulled out of set operations: their branches bind as plain queries
    let right = node.right as C.Node;
    let trailing: C.Node[] = [];
    if (right.type === 'select_stmt' && right.clauses[0]?.type !== 'paren_expr') {
      trailing = right.clauses.filter((c) =>
        ['order_by_clause', 'limit_clause', 'offset_clause', 'fetch_clause'].includes(c.type),
      ) as C.Node[];
      if (trailing.length > 0) {
        right = { ...right, clauses: right.clauses.filter((c) => !trailing.includes(c as C.Node)) } as C.SelectStmt;
      }
    }
    const opWords = Array.isArray(node.operator)
      ? node.operator.map((k) => k.name.toUpperCase())
      : [node.operator.name.toUpperCase()];
    const op = opWords[0].toLowerCase() as 'union' | 'intersect' | 'except';
    const all = opWords[1] === 'ALL';
    const left = this.bindQuery(node.left as C.Node);
    const rightQ = this.bindQuery(right);
    if (left.columns.length !== rightQ.columns.length) {
      throw this.ctx.error(
        'user',
        'syntax_error',
        `each ${op.toUpperCase()} query must have the same number of columns (${left.columns.length} vs ${rightQ.columns.length})`,
        node,
      );
    }
    const types: JType[] = left.columns.map((l, i) => {
      const r = rightQ.columns[i];
      const s = commonSupertype(l.field.type, r.field.type);
      if (!s) {
        throw this.ctx.typeMismatch(
          `${op.toUpperCase()} types ${l.field.type.kind} and ${r.field.type.kind} cannot be matched (column ${i + 1})`,
          node,
        );
      }
      return s;
    });
    const l = this.castColumns(left, types);
    const r = this.castColumns(rightQ, types);
    const fields: Field[] = l.columns.map((c, i) => ({
      id: this.ctx.newId(),
      name: c.name,
      type: types[i],
      nullable: c.field.nullable || r.columns[i].field.nullable,
    }));
    const plan: LogicalPlan = { kind: 'SetOp', op, all, left: l.plan, right: r.plan, fields };
    return this.applyOrderLimit({ plan, columns: fields.map((f) => ({ name: f.name, field: f })) }, trailing);
  }

  /** Adds a Project casting columns whose type differs from the set operation's unified type. */
  private castColumns(q: BoundQuery, types: JType[]): BoundQuery {
    const exposed = outputFields(q.plan);
    const exact = exposed.length === q.columns.length && exposed.every((f, i) => f.id === q.columns[i].field.id);
    const exprs: NamedExpr[] = q.columns.map((c, i) => {
      const converted = coerce(this.ctx, ref(c.field), types[i]);
      if (converted.kind === 'ref') return { field: c.field, expr: converted };
      const field: Field = { id: this.ctx.newId(), name: c.name, type: types[i], nullable: c.field.nullable };
      return { field, expr: converted };
    });
    if (exact && exprs.every((e) => e.expr.kind === 'ref')) return q;
    return {
      plan: { kind: 'Project', input: q.plan, exprs },
      columns: exprs.map((e) => ({ name: e.field.name, field: e.field })),
    };
  }

  /** ORDER BY / LIMIT / OFFSET / FETCH over an already bound query (set operations, parenthesised queries). */
  private applyOrderLimit(q: BoundQuery, clauses: C.Node[]): BoundQuery {
    let plan = q.plan;
    const order = clauses.find((c): c is C.OrderByClause => c.type === 'order_by_clause');
    if (order) {
      const scope = new Scope(q.columns.map((c) => ({ name: c.name, field: c.field })));
      const env: ExprEnv = { ctx: this.ctx, scope, clause: 'ORDER BY' };
      const keys = order.specifications.items.map((s) =>
        sortKey(env, s as C.Node, (n) => {
          const ordinal = this.ordinal(n, q.columns.length);
          return ordinal !== undefined ? ref(q.columns[ordinal].field) : bindExpr(env, n);
        }),
      );
      const outIds = new Set(q.columns.map((c) => c.field.id));
      for (const k of keys) {
        for (const id of refsOf(k.expr))
          if (!outIds.has(id))
            throw this.ctx.unsupported('ORDER BY on a column not in the result of a set operation', order);
      }
      plan = { kind: 'Sort', input: plan, keys };
    }
    plan = this.applyLimit(plan, clauses);
    return { plan, columns: q.columns };
  }

  private ordinal(n: C.Node, count: number): number | undefined {
    if (n.type !== 'number_literal') return undefined;
    const i = Number(n.text);
    if (!Number.isInteger(i) || i < 1 || i > count) {
      throw this.ctx.error(
        'user',
        'invalid_column_reference',
        `position ${n.text} is not in select list (1..${count})`,
        n,
      );
    }
    return i - 1;
  }

  private constantCount(n: C.Node, what: string): number {
    const e = bindExpr({ ctx: this.ctx, scope: Scope.empty(), clause: what }, n);
    if (e.kind === 'literal' && (typeof e.value === 'number' || typeof e.value === 'bigint') && Number(e.value) >= 0)
      return Number(e.value);
    if (e.kind === 'literal' && e.value === null) return -1;
    if (e.kind === 'param') throw this.ctx.unsupported(`a parameter in ${what}`, n);
    throw this.ctx.error('user', 'invalid_row_count', `${what} must be a non-negative integer constant`, n);
  }

  private applyLimit(plan: LogicalPlan, clauses: C.Node[]): LogicalPlan {
    let limit: number | undefined;
    let offset = 0;
    let present = false;
    for (const c of clauses) {
      if (c.type === 'limit_clause') {
        present = true;
        if (c.count && c.count.type !== 'limit_all') {
          const n = this.constantCount(c.count as C.Node, 'LIMIT');
          limit = n < 0 ? undefined : n;
        }
        if (c.offset) offset = Math.max(0, this.constantCount(c.offset, 'OFFSET'));
      } else if (c.type === 'offset_clause') {
        present = true;
        offset = Math.max(0, this.constantCount(c.offset, 'OFFSET'));
      } else if (c.type === 'fetch_clause') {
        present = true;
        if (Array.isArray(c.withTiesKw)) throw this.ctx.unsupported('FETCH … WITH TIES', c);
        limit = c.count ? this.constantCount(c.count, 'FETCH FIRST') : 1;
      }
    }
    if (!present || (limit === undefined && offset === 0)) return plan;
    return { kind: 'Limit', input: plan, ...(limit !== undefined ? { limit } : {}), offset };
  }

  private bindValues(node: C.ValuesClause): BoundQuery {
    const env: ExprEnv = { ctx: this.ctx, scope: Scope.empty(), clause: 'VALUES' };
    const rows = node.values.items.map((row) => {
      const items = row.type === 'paren_expr' ? row.expr.items : row.row.expr.items;
      return items.map((i) => {
        if ((i as C.Node).type === 'default') throw this.ctx.unsupported('DEFAULT in VALUES', i as C.Node);
        return bindExpr(env, i as C.Node);
      });
    });
    return this.valuesQuery(rows, node);
  }

  valuesQuery(rows: Expr[][], node: C.Node): BoundQuery {
    const width = rows[0]?.length ?? 0;
    for (const r of rows)
      if (r.length !== width)
        throw this.ctx.error('user', 'syntax_error', 'VALUES lists must all be the same length', node);
    const columns: Expr[][] = [];
    const types: JType[] = [];
    for (let c = 0; c < width; c++) {
      const u = unify(
        this.ctx,
        rows.map((r) => r[c]),
        'VALUES',
        node,
      );
      columns.push(u.exprs);
      types.push(u.type);
    }
    const fields: Field[] = types.map((type, c) => ({
      id: this.ctx.newId(),
      name: `column${c + 1}`,
      type,
      nullable: columns[c].some((e) => nullable(e, () => true)),
    }));
    const plan: LogicalPlan = { kind: 'Values', rows: rows.map((_, r) => columns.map((col) => col[r])), fields };
    return { plan, columns: fields.map((f) => ({ name: f.name, field: f })) };
  }

  /* ------------------------------------------------------------------ SELECT */

  private bindSelect(clauses: C.Node[], mode?: CorrelationMode): BoundQuery {
    const ctx = this.ctx;
    const get = <K extends C.Node['type']>(type: K) =>
      clauses.find((c) => c.type === type) as Extract<C.Node, { type: K }> | undefined;
    const select = get('select_clause');
    if (!select) throw ctx.error('user', 'syntax_error', 'query has no SELECT list', clauses[0]);
    for (const c of clauses) {
      if (
        [
          'window_clause',
          'qualify_clause',
          'into_table_clause',
          'for_clause',
          'lock_in_share_mode_clause',
          'table_clause',
        ].includes(c.type)
      ) {
        throw ctx.unsupported(
          c.type
            .replace(/_clause$/, '')
            .replace(/_/g, ' ')
            .toUpperCase(),
          c,
        );
      }
    }
    let distinct = false;
    for (const m of select.modifiers) {
      if (m.type === 'select_distinct') distinct = true;
      else if (m.type !== 'select_all')
        throw ctx.unsupported(m.type === 'select_distinct_on' ? 'DISTINCT ON' : 'this SELECT modifier', m);
    }

    // FROM
    const baseScope = mode ? Scope.empty(mode.outer) : Scope.empty();
    const fromClause = get('from_clause');
    let plan: LogicalPlan;
    let scope: Scope;
    if (fromClause) {
      if (fromClause.expr.type === 'dual_table') {
        plan = { kind: 'Values', rows: [[]], fields: [] };
        scope = baseScope;
      } else {
        const bound = this.from.bind(fromClause.expr as C.Node, baseScope);
        plan = bound.plan;
        scope = baseScope.withColumns(bound.columns);
      }
    } else {
      plan = { kind: 'Values', rows: [[]], fields: [] };
      scope = baseScope;
    }
    const localIds = new Set(outputFields(plan).map((f) => f.id));

    // WHERE: subquery conditions become semi/anti joins, the rest one Filter above the joins
    const where = get('where_clause');
    if (where) {
      const pending: PendingJoin[] = [];
      const constant = { joins: pending, ids: new Set<number>() };
      const predicates: Expr[] = [];
      const semiJoins: ((p: LogicalPlan) => LogicalPlan)[] = [];
      const bound: Expr[] = [];
      for (const part of splitAnd(where.expr as C.Node)) {
        const join = this.subqueries.condition(part, scope);
        if (join) {
          semiJoins.push(join);
          continue;
        }
        const env: ExprEnv = { ctx, scope, clause: 'WHERE', subqueries: this.subqueries.scalarSink(pending, constant) };
        bound.push(...conjuncts(factorOr(requireBool(env, bindExpr(env, part), part))));
      }
      for (const j of pending) plan = j(plan);
      // what the subqueries' joins produce is local too: only the rest reads the outer query
      for (const f of outputFields(plan)) localIds.add(f.id);
      // a scalar subquery that may meet two rows is read last, after the other conjuncts and the
      // semi joins: a row they reject never raises its "more than one row", as in PostgreSQL
      // (which runs such a subquery after cheaper quals; its error depends on that order too)
      const checked = (c: Expr) => [...refsOf(c)].some((id) => this.subqueries.checked.has(id));
      const late: Expr[] = [];
      for (const c of bound) {
        if (mode && [...refsOf(c)].some((id) => !localIds.has(id))) mode.pulled.push(c);
        else (checked(c) ? late : predicates).push(c);
      }
      const pred = and(predicates);
      if (pred) plan = { kind: 'Filter', input: plan, predicate: pred };
      for (const j of semiJoins) {
        const joined = j(plan);
        if (!mode) plan = joined;
        else if (readsOutside(joined)) {
          const flat = this.flattenOuterReads(joined, mode);
          if (flat !== joined) plan = flat;
          else (mode.deferred ??= []).push(joined as Extract<LogicalPlan, { kind: 'Join' }>);
        } else plan = joined;
      }
      const checks = and(late);
      if (checks) plan = { kind: 'Filter', input: plan, predicate: checks };
    }
    scope = this.refreshNullability(scope, plan);

    // SELECT list, HAVING and ORDER BY are bound against the FROM scope, collecting aggregates and windows
    const aggs = new AggCollector(ctx);
    const wins = new WindowCollector(ctx);
    const selectPending: PendingJoin[] = [];
    // IN/EXISTS values of SELECT, HAVING and ORDER BY, and those inside aggregate arguments
    const selectMarks: PendingMark[] = [];
    const belowMarks: PendingMark[] = [];
    const selEnv: ExprEnv = {
      ctx,
      scope,
      clause: 'SELECT',
      aggregates: aggs,
      windows: wins,
      subqueries: this.subqueries.scalarSink(selectPending, undefined, selectMarks, belowMarks),
    };
    const items = this.selectItems(select, selEnv);

    const groupBy = get('group_by_clause');
    const having = get('having_clause');
    // HAVING's one-row subqueries join in above the Aggregate (they do not depend on its rows)
    const havingConstant = { joins: [] as PendingJoin[], ids: new Set<number>() };
    const havingEnv: ExprEnv = {
      ...selEnv,
      clause: 'HAVING',
      windows: undefined,
      subqueries: this.subqueries.scalarSink(selectPending, havingConstant, selectMarks, belowMarks),
    };
    const havingExpr = having
      ? requireBool(havingEnv, bindExpr(havingEnv, having.expr as C.Node), having.expr as C.Node)
      : undefined;

    const orderBy = get('order_by_clause');
    const orderKeys: (SortKey | { output: number; desc: boolean; nullsFirst: boolean })[] = [];
    if (orderBy) {
      for (const spec of orderBy.specifications.items) {
        const s = spec as C.Node;
        const exprNode = s.type === 'sort_specification' ? s.expr : s;
        // direction and NULLS placement only; the key expression is resolved below
        const k = sortKey({ ...selEnv, clause: 'ORDER BY' }, s, () => lit(null, t.null));
        const ordinal = exprNode.type === 'number_literal' ? this.ordinal(exprNode, items.length) : undefined;
        const outputByName = ordinal === undefined ? this.outputByName(exprNode, items) : undefined;
        if (ordinal !== undefined) orderKeys.push({ output: ordinal, desc: k.desc, nullsFirst: k.nullsFirst });
        else if (outputByName !== undefined)
          orderKeys.push({ output: outputByName, desc: k.desc, nullsFirst: k.nullsFirst });
        else
          orderKeys.push({
            expr: bindExpr({ ...selEnv, clause: 'ORDER BY' }, exprNode),
            desc: k.desc,
            nullsFirst: k.nullsFirst,
          });
      }
    }

    // GROUP BY
    const grouped = !!groupBy || aggs.calls.length > 0 || !!havingExpr;
    // decorrelated scalar subqueries of the SELECT list/ORDER BY join in below the projection
    if (!grouped) {
      for (const j of selectPending) plan = j(plan);
      for (const m of selectMarks) plan = m.apply(plan);
    }
    let rewrite: (e: Expr) => Expr = (e) => e;
    if (grouped) {
      for (const m of belowMarks) plan = m.apply(plan);
      const groupExprs: { expr: Expr; node: C.Node; name?: string }[] = [];
      if (groupBy) {
        if (groupBy.distinctKw || groupBy.withRollupKw) throw ctx.unsupported('GROUP BY DISTINCT/WITH ROLLUP', groupBy);
        const gEnv: ExprEnv = { ctx, scope, clause: 'GROUP BY' };
        for (const g of groupBy.columns.items) {
          const gn = g as C.Node;
          if (
            gn.type === 'group_by_rollup' ||
            gn.type === 'group_by_cube' ||
            gn.type === 'group_by_grouping_sets' ||
            gn.type === 'group_by_all'
          ) {
            throw ctx.unsupported('ROLLUP/CUBE/GROUPING SETS', gn);
          }
          const ordinal = gn.type === 'number_literal' ? this.ordinal(gn, items.length) : undefined;
          if (ordinal !== undefined) {
            const item = items[ordinal];
            if (containsAny(item.expr, aggs.ids()) || containsAny(item.expr, wins.ids())) {
              throw ctx.error('user', 'grouping_error', 'aggregate functions are not allowed in GROUP BY', gn);
            }
            groupExprs.push({ expr: item.expr, node: gn, name: item.name });
            continue;
          }
          // a bare name is an input column first, an output alias second (PostgreSQL's rule)
          const parts = nameParts(gn);
          if (parts && parts.length === 1 && !scope.lookup(ctx, parts, gn)) {
            const byAlias = items.findIndex((i) => i.name.toLowerCase() === parts[0].name.toLowerCase());
            if (byAlias >= 0) {
              groupExprs.push({ expr: items[byAlias].expr, node: gn, name: items[byAlias].name });
              continue;
            }
          }
          groupExprs.push({ expr: bindExpr(gEnv, gn), node: gn });
        }
      }
      const groupNamed: NamedExpr[] = [];
      const groupKeys = new Map<string, Field>();
      const inputFields = fieldMap(outputFields(plan));
      for (const g of groupExprs) {
        const key = exprKey(g.expr);
        if (groupKeys.has(key)) continue;
        let field: Field;
        if (g.expr.kind === 'ref' && inputFields.has(g.expr.id)) field = inputFields.get(g.expr.id)!;
        else {
          field = {
            id: ctx.newId(),
            name: g.name ?? deriveName(g.node, g.expr, inputFields),
            type: g.expr.type,
            nullable: nullable(g.expr, (id) => inputFields.get(id)?.nullable ?? true),
          };
        }
        groupKeys.set(key, field);
        groupNamed.push({ field, expr: g.expr });
      }
      this.addFunctionallyDependent(groupNamed, groupKeys, inputFields, [
        ...items.map((i) => i.expr),
        ...(havingExpr ? [havingExpr] : []),
        ...orderKeys.flatMap((k) => ('expr' in k ? [k.expr] : [])),
        ...wins.calls.flatMap((w) => [...w.args, ...w.partitionBy, ...w.orderBy.map((k) => k.expr)]),
      ]);
      if (mode?.kind === 'scalar' && mode.pulled.length > 0) {
        if (groupBy) throw ctx.unsupported('a correlated scalar subquery with GROUP BY', groupBy);
        // equalities only: group by the inner keys and left join on them; else the sink decorrelates in general
        mode.keys = this.correlationKeys(mode, localIds, groupNamed, groupKeys, inputFields);
      }
      const aggregateIds = aggs.ids();
      const groupIds = new Set(groupNamed.map((g) => g.field.id));
      const lateIds = new Set([...wins.ids(), ...havingConstant.ids, ...selectMarks.map((m) => m.id)]);
      rewrite = (e) => rewriteGrouped(ctx, e, groupKeys, groupIds, aggregateIds, lateIds);
      const below = new Set(outputFields(plan).map((f) => f.id));
      // a correlated scalar subquery inside an aggregate's argument would be needed below the Aggregate
      if (selectPending.length > 0 && aggs.calls.some((a) => [...a.args, ...(a.filter ? [a.filter] : [])].some((e) => [...refsOf(e)].some((id) => !below.has(id)))))
        throw ctx.unsupported('a correlated scalar subquery inside an aggregate function', select);
      plan = { kind: 'Aggregate', input: plan, groupBy: groupNamed, aggregates: aggs.calls };
      for (const j of havingConstant.joins) plan = j(plan);
      for (const m of selectMarks) plan = m.apply(plan, rewrite);
      // correlated scalar subqueries of the SELECT list and HAVING read the groups: joined above the Aggregate on its outputs
      const grouped = new Set(outputFields(plan).map((f) => f.id));
      for (const j of selectPending) plan = j(plan, rewrite);
      for (const f of outputFields(plan)) if (!grouped.has(f.id)) lateIds.add(f.id);
      if (havingExpr) plan = { kind: 'Filter', input: plan, predicate: factorOr(rewrite(havingExpr)) };
    } else if (mode?.kind === 'scalar' && mode.pulled.length > 0) {
      const limited = clauses.some((c) => ['limit_clause', 'offset_clause', 'fetch_clause'].includes(c.type));
      const keys = limited || wins.calls.length > 0 ? undefined : this.uniqueLookupKeys(mode, localIds, plan);
      if (keys) mode.keys = keys;
      else if (limited || distinct || wins.calls.length > 0) {
        // which row LIMIT keeps, or how many DISTINCT leaves, is decided per outer row: no join says that
        throw ctx.unsupported(
          'a correlated scalar subquery without an aggregate but with LIMIT, OFFSET, FETCH, DISTINCT or window functions',
          select,
        );
      } else mode.rows = true;
    }

    // window functions run after grouping, over its output
    if (wins.calls.length > 0) {
      const windows: WindowCall[] = wins.calls.map((w) => ({
        ...w,
        args: w.args.map(rewrite),
        partitionBy: w.partitionBy.map(rewrite),
        orderBy: w.orderBy.map((k) => ({ ...k, expr: rewrite(k.expr) })),
      }));
      plan = { kind: 'Window', input: plan, windows };
    }

    // projection: select items, then ORDER BY expressions not in the list as hidden columns
    const available = fieldMap(outputFields(plan));
    const isNullable = (id: number) => available.get(id)?.nullable ?? true;
    const used = new Set<number>();
    const named: NamedExpr[] = items.map((item) => {
      const expr = rewrite(item.expr);
      if (expr.kind === 'ref' && !used.has(expr.id) && available.has(expr.id)) {
        used.add(expr.id);
        const src = available.get(expr.id)!;
        return { field: { id: src.id, name: item.name, type: src.type, nullable: src.nullable }, expr };
      }
      return {
        field: { id: ctx.newId(), name: item.name, type: expr.type, nullable: nullable(expr, isNullable) },
        expr,
      };
    });
    const visibleCount = named.length;
    const keys: SortKey[] = orderKeys.map((k) => {
      if ('output' in k) return { expr: ref(named[k.output].field), desc: k.desc, nullsFirst: k.nullsFirst };
      const expr = rewrite(k.expr);
      const same = named.findIndex((n) => exprKey(n.expr) === exprKey(expr));
      if (same >= 0 && same < visibleCount)
        return { expr: ref(named[same].field), desc: k.desc, nullsFirst: k.nullsFirst };
      if (distinct)
        throw ctx.error(
          'user',
          'invalid_column_reference',
          'for SELECT DISTINCT, ORDER BY expressions must appear in select list',
          orderBy,
        );
      const existing = named.findIndex((n) => exprKey(n.expr) === exprKey(expr));
      if (existing >= 0) return { expr: ref(named[existing].field), desc: k.desc, nullsFirst: k.nullsFirst };
      const field: Field =
        expr.kind === 'ref' && !used.has(expr.id) && available.has(expr.id)
          ? available.get(expr.id)!
          : { id: ctx.newId(), name: '?sort?', type: expr.type, nullable: nullable(expr, isNullable) };
      used.add(field.id);
      named.push({ field, expr });
      return { expr: ref(field), desc: k.desc, nullsFirst: k.nullsFirst };
    });

    // correlated EXISTS/IN subqueries export the local columns their pulled conditions use
    const exporting = !!mode && (mode.pulled.length > 0 || (mode.keys?.length ?? 0) > 0 || (mode.deferred?.length ?? 0) > 0);
    if (mode && exporting) {
      if (
        mode.kind !== 'scalar' &&
        (grouped ||
          distinct ||
          wins.calls.length > 0 ||
          clauses.some((c) => ['limit_clause', 'offset_clause', 'fetch_clause'].includes(c.type)))
      ) {
        throw ctx.unsupported(
          'a correlated subquery with GROUP BY, aggregates, DISTINCT, LIMIT or window functions',
          select,
        );
      }
      const need = new Set<number>();
      for (const p of [...mode.pulled, ...(mode.deferred ?? []).map((d) => d.condition!)])
        for (const id of refsOf(p)) if (available.has(id)) need.add(id);
      for (const k of mode.keys ?? []) need.add(k.inner.id);
      for (const id of need) {
        if (!named.some((n) => n.field.id === id))
          named.push({ field: available.get(id)!, expr: { kind: 'ref', id, type: available.get(id)!.type } });
      }
    }

    plan = { kind: 'Project', input: plan, exprs: named };
    if (distinct) plan = { kind: 'Distinct', input: plan };
    if (keys.length > 0) plan = { kind: 'Sort', input: plan, keys };
    plan = this.applyLimit(plan, clauses);
    const columns = named.slice(0, visibleCount).map((n) => ({ name: n.field.name, field: n.field }));
    if (named.length > visibleCount && !exporting) {
      plan = { kind: 'Project', input: plan, exprs: columns.map((c) => ({ field: c.field, expr: ref(c.field) })) };
    }

    const free = freeRefs(plan);
    if (free.size > 0 && !mode) {
      throw ctx.error('internal', 'internal_error', `unbound field ids ${[...free].join(', ')} after binding`);
    }
    // the correlation pulled out of WHERE is not in the plan: a reference left inside it is one
    // the joins cannot carry (outside WHERE, or from a subquery two levels down)
    if (mode && free.size > 0)
      throw ctx.unsupported('a subquery reading an enclosing query outside its own WHERE clause, or from two levels down', select);
    return { plan, columns };
  }

  /**
   * PostgreSQL accepts ungrouped columns of a table whose primary key is grouped (they are
   * functionally dependent on it); grouping by them too changes no group and makes them available.
   */
  private addFunctionallyDependent(
    groupNamed: NamedExpr[],
    groupKeys: Map<string, Field>,
    inputFields: Map<number, Field>,
    used: Expr[],
  ): void {
    const grouped = new Set(groupNamed.filter((g) => g.expr.kind === 'ref').map((g) => g.field.id));
    if (grouped.size === 0) return;
    const refs = new Set<number>();
    for (const e of used) refsOf(e, refs);
    for (const id of refs) {
      if (grouped.has(id) || !inputFields.has(id)) continue;
      const pk = this.ctx.primaryKeys.get(id);
      if (!pk || !pk.every((p) => grouped.has(p))) continue;
      const field = inputFields.get(id)!;
      const expr: Expr = { kind: 'ref', id, type: field.type };
      groupKeys.set(exprKey(expr), field);
      groupNamed.push({ field, expr });
    }
  }

  /**
   * A semi join of this subquery whose condition reads a query further out (EXISTS inside
   * EXISTS, correlated two levels up) cannot be planned here: that row is not in this plan.
   * When this subquery is itself only tested for a match (EXISTS, IN, ANY/ALL), the set of
   * rows it yields may repeat: EXISTS (A WHERE p AND EXISTS (B WHERE q)) is EXISTS over A ⋈ B
   * on p and q. The join becomes an inner join on what it reads of its two sides, and the
   * conjuncts reading further out move up with this subquery's own correlation.
   */
  private flattenOuterReads(plan: LogicalPlan, mode: CorrelationMode): LogicalPlan {
    if (plan.kind !== 'Join' || plan.type !== 'semi' || !plan.condition || (mode.kind !== 'exists' && mode.kind !== 'in')) return plan;
    const sides = new Set([...outputFields(plan.left), ...outputFields(plan.right)].map((f) => f.id));
    const outer: Expr[] = [];
    const own: Expr[] = [];
    for (const c of conjuncts(plan.condition)) ([...refsOf(c)].every((id) => sides.has(id)) ? own : outer).push(c);
    if (outer.length === 0) return plan;
    mode.pulled.push(...outer);
    const condition = and(own);
    return condition
      ? { kind: 'Join', type: 'inner', left: plan.left, right: plan.right, condition }
      : { kind: 'Join', type: 'cross', left: plan.left, right: plan.right };
  }

  /**
   * A scalar subquery without an aggregate yields at most one row per outer row when its
   * correlation is equalities that cover a primary key or unique index of the one table it
   * reads (only its own WHERE above it): it is then a left join on those columns, the same
   * key lookup a source runs for it, and an outer row without a match gets NULL as in
   * PostgreSQL. Equality with NULL matches nothing, so a unique index's NULLs do not count.
   */
  private uniqueLookupKeys(mode: CorrelationMode, localIds: Set<number>, plan: LogicalPlan): { outer: Expr; inner: Field }[] | undefined {
    if (mode.general) return undefined;
    let scan = plan;
    while (scan.kind === 'Filter') scan = scan.input;
    if (scan.kind !== 'Scan') return undefined;
    const keys: { outer: Expr; inner: Field }[] = [];
    const columns = new Set<string>();
    for (const p of mode.pulled) {
      if (p.kind !== 'call' || p.fn !== 'eq') return undefined;
      const [a, b] = p.args;
      const inner = a.kind === 'ref' && localIds.has(a.id) ? a : b.kind === 'ref' && localIds.has(b.id) ? b : undefined;
      const outer = inner === a ? b : a;
      if (!inner || [...refsOf(outer)].some((id) => localIds.has(id))) return undefined;
      const i = scan.fields.findIndex((f) => f.id === inner.id);
      if (i < 0) return undefined;
      keys.push({ outer, inner: scan.fields[i] });
      columns.add(scan.columns[i]);
    }
    const info = findTable(this.ctx.catalog.getSource(scan.table.source)?.catalog, scan.table);
    return coversUniqueKey(info, columns) ? keys : undefined;
  }

  private correlationKeys(
    mode: CorrelationMode,
    localIds: Set<number>,
    groupNamed: NamedExpr[],
    groupKeys: Map<string, Field>,
    inputFields: Map<number, Field>,
  ): { outer: Expr; inner: Field }[] | undefined {
    if (mode.general) return undefined;
    const pairs: { inner: Expr; outer: Expr }[] = [];
    for (const p of mode.pulled) {
      if (p.kind !== 'call' || p.fn !== 'eq') return undefined;
      const [a, b] = p.args;
      const aLocal = [...refsOf(a)].every((id) => localIds.has(id));
      const bLocal = [...refsOf(b)].every((id) => localIds.has(id));
      const aOuter = [...refsOf(a)].every((id) => !localIds.has(id));
      const bOuter = [...refsOf(b)].every((id) => !localIds.has(id));
      if (aLocal && bOuter) pairs.push({ inner: a, outer: b });
      else if (bLocal && aOuter) pairs.push({ inner: b, outer: a });
      else return undefined;
    }
    const keys: { outer: Expr; inner: Field }[] = [];
    for (const { inner, outer } of pairs) {
      const key = exprKey(inner);
      let field = groupKeys.get(key);
      if (!field) {
        field =
          inner.kind === 'ref' && inputFields.has(inner.id)
            ? inputFields.get(inner.id)!
            : { id: this.ctx.newId(), name: '?key?', type: inner.type, nullable: true };
        groupKeys.set(key, field);
        groupNamed.push({ field, expr: inner });
      }
      keys.push({ outer, inner: field });
    }
    // the pulled equalities become the join condition built from `keys`
    mode.pulled.length = 0;
    return keys;
  }

  private outputByName(node: C.Node, items: SelectItem[]): number | undefined {
    if (node.type !== 'identifier') return undefined;
    const part = identPart(node);
    // every output column by its name, aliased or not (SQL92's rule, as PostgreSQL applies it):
    // two of them with different values make the name ambiguous
    const matches = items
      .map((it, i) => ({ it, i }))
      .filter(({ it }) => {
        const name = it.alias ?? it.name;
        return part.quoted ? name === part.name : name.toLowerCase() === part.name.toLowerCase();
      });
    if (new Set(matches.map((m) => exprKey(m.it.expr))).size > 1)
      throw this.ctx.error('user', 'ambiguous_column', `ORDER BY "${part.name}" is ambiguous`, node);
    return matches[0]?.i;
  }

  private selectItems(select: C.SelectClause, env: ExprEnv): SelectItem[] {
    const items: SelectItem[] = [];
    // a column is named as its relation exposes it (derived-table column aliases rename fields)
    const inputFields = new Map<number, Field>();
    for (const c of [...env.scope.columns].sort((a, b) => Number(!!b.hidden) - Number(!!a.hidden)))
      inputFields.set(c.field.id, { ...c.field, name: c.name });
    for (const col of select.columns?.items ?? []) {
      const node = col as C.Node;
      if (node.type === 'all_columns') {
        const cols = starColumns(env.scope.columns);
        if (cols.length === 0 && env.scope.columns.length === 0)
          throw this.ctx.error('user', 'syntax_error', 'SELECT * with no tables specified is not valid', node);
        for (const c of cols) items.push({ name: c.name, expr: ref(c.field) });
        continue;
      }
      if (node.type === 'member_expr' && node.property.type === 'all_columns') {
        const parts = nameParts(node.object);
        if (!parts) throw this.ctx.unsupported('this * expression', node);
        const rel = parts[parts.length - 1];
        const cols = env.scope.columns.filter(
          (c) =>
            c.relation !== undefined &&
            (rel.quoted ? c.relation === rel.name : c.relation.toLowerCase() === rel.name.toLowerCase()),
        );
        if (cols.length === 0)
          throw this.ctx.error('user', 'undefined_table', `missing FROM-clause entry for table "${rel.name}"`, node);
        for (const c of cols) items.push({ name: c.name, expr: ref(c.field) });
        continue;
      }
      if (node.type === 'except_columns' || node.type === 'replace_columns' || node.type === 'empty')
        throw this.ctx.unsupported('this select item', node);
      if (node.type === 'alias') {
        const expr = bindExpr(env, node.expr as C.Node);
        items.push({ name: node.alias.name, alias: node.alias.name, expr: finishUnknown(this.ctx, expr) });
        continue;
      }
      const expr = bindExpr(env, node);
      items.push({ name: deriveName(node, expr, inputFields), expr: finishUnknown(this.ctx, expr) });
    }
    return items;
  }

  private refreshNullability(scope: Scope, plan: LogicalPlan): Scope {
    const fields = fieldMap(outputFields(plan));
    return scope.withColumns(
      scope.columns.map((c) =>
        fields.has(c.field.id) ? { ...c, field: { ...c.field, nullable: fields.get(c.field.id)!.nullable } } : c,
      ),
    );
  }

  /* ------------------------------------------------------------------ subqueries */
}

interface SelectItem {
  readonly name: string;
  readonly alias?: string;
  readonly expr: Expr;
}

/** A semi/anti join whose condition reads a row neither of its sides has (a query further out). */
function readsOutside(plan: LogicalPlan): boolean {
  if (plan.kind !== 'Join' || (plan.type !== 'semi' && plan.type !== 'anti') || !plan.condition) return false;
  const sides = new Set([...outputFields(plan.left), ...outputFields(plan.right)].map((f) => f.id));
  return [...refsOf(plan.condition)].some((id) => !sides.has(id));
}

/** A select item that is still an unknown literal ('abc') is text, as in PostgreSQL. */
function finishUnknown(ctx: BindContext, e: Expr): Expr {
  if (e.kind === 'literal' && ctx.unknownLiterals.has(e)) return lit(e.value, t.string);
  if (e.kind === 'param' && e.type.kind === 'unknown') return coerce(ctx, e, t.string);
  return e;
}

function starColumns(columns: ColumnBinding[]): ColumnBinding[] {
  return columns.filter((c) => !c.hidden);
}

function containsAny(e: Expr, ids: Set<number>): boolean {
  for (const id of refsOf(e)) if (ids.has(id)) return true;
  return false;
}

function deriveName(node: C.Node, expr: Expr, fields: Map<number, Field>): string {
  if (expr.kind === 'ref' && (node.type === 'identifier' || node.type === 'member_expr'))
    return fields.get(expr.id)?.name ?? nameParts(node)?.at(-1)?.name ?? '?column?';
  switch (node.type) {
    case 'identifier':
      return node.name;
    case 'member_expr':
      return nameParts(node)?.at(-1)?.name ?? '?column?';
    case 'func_call': {
      const parts = nameParts(node.name);
      return parts ? parts[parts.length - 1].name.toLowerCase() : '?column?';
    }
    case 'cast_expr':
      return deriveName(node.args.expr.expr as C.Node, expr.kind === 'cast' ? expr.expr : expr, fields);
    case 'cast_operator_expr':
      return deriveName(node.left, expr.kind === 'cast' ? expr.expr : expr, fields);
    case 'case_expr':
      return 'case';
    case 'extract_expr':
      return 'extract';
    case 'paren_expr':
      return isQuery(node.expr as C.Node) ? '?column?' : deriveName(node.expr as C.Node, expr, fields);
    case 'prefix_op_expr':
      // PostgreSQL names an EXISTS column "exists"
      return kwName(node.operator) === 'EXISTS' ? 'exists' : '?column?';
    default:
      return '?column?';
  }
}

/** `delete_stmt` → DELETE, `create_table_stmt` → CREATE TABLE */
function statementName(type: string): string {
  return type.replace(/_stmt$/, '').replace(/_/g, ' ').toUpperCase();
}
