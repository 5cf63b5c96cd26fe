import {
  JunctionError,
  type RemoteExpr,
  type RemoteFrom,
  type RemoteOrderKey,
  type JType,
  type RemoteQuery,
  type Value,
} from '@junction/connectors';
import type { Expr, LogicalPlan, TableRef } from '../plan/logical.js';
import { outputFields } from '../plan/fields.js';
import {
  EMPTY_SHAPE,
  applyOp,
  needsSubquery,
  sideNeedsSubquery,
  sideRole,
  type SelectShape,
  type ShapeOp,
} from '../optimizer/pushdown/shape.js';

type RemoteNode = Extract<LogicalPlan, { kind: 'Remote' }>;

/** A source's table as another engine names it. */
export type TableNaming = (table: TableRef) => { readonly catalog?: string; readonly schema: string; readonly table: string };

/**
 * Converts a Remote node's subtree into the one SELECT the connector renders. Field ids
 * become alias-qualified columns; an operator that SQL would evaluate too early in the same
 * SELECT (a filter above a limit, an aggregate above an aggregate…) nests what is below it
 * as a subquery in FROM, exactly where optimizer/pushdown/shape.ts says. Parameters are
 * inlined from `params` as literal values, which dialects render as bound parameters.
 * The select list has exactly the Remote node's fields, in order. `tableName` says how the
 * engine running the statement names a table when that is not its source (a backend reading it
 * through a catalog of its own).
 */
export function toRemoteQuery(remote: RemoteNode, params: readonly Value[] = [], tableName?: TableNaming): RemoteQuery {
  const b = new Builder(params, tableName);
  const s = b.convert(remote.plan);
  return b.finish(
    s,
    remote.fields.map((f) => ({ id: f.id, name: f.name })),
  );
}

interface OutCol {
  readonly id: number;
  readonly name: string;
  readonly expr: RemoteExpr;
}

interface State {
  from: RemoteFrom;
  /** how each visible field id reads in this SELECT */
  scope: Map<number, RemoteExpr>;
  output: OutCol[];
  where: RemoteExpr[];
  groupBy?: RemoteExpr[];
  having: RemoteExpr[];
  aggregated: boolean;
  distinct: boolean;
  orderBy?: RemoteOrderKey[];
  limit?: number;
  offset?: number;
  shape: SelectShape;
}

const AND = (parts: RemoteExpr[]): RemoteExpr | undefined =>
  parts.length === 0
    ? undefined
    : parts.reduce((a, c) => ({ kind: 'call', fn: 'and', args: [a, c], type: { kind: 'bool' } }));

class Builder {
  private readonly aliases = new Set<string>();
  constructor(
    private readonly params: readonly Value[],
    private readonly tableName?: TableNaming,
  ) {}

  private alias(base: string): string {
    let name = sanitize(base, 't');
    for (let i = 2; this.aliases.has(name); i++) name = `${sanitize(base, 't')}_${i}`;
    this.aliases.add(name);
    return name;
  }

  convert(plan: LogicalPlan): State {
    switch (plan.kind) {
      case 'Scan': {
        const alias = this.alias(plan.alias);
        const scope = new Map<number, RemoteExpr>();
        const output = plan.fields.map((f, i) => {
          const expr: RemoteExpr = { kind: 'column', table: alias, column: plan.columns[i], type: f.type };
          scope.set(f.id, expr);
          return { id: f.id, name: f.name, expr };
        });
        const t = this.tableName ? this.tableName(plan.table) : plan.table;
        const from: RemoteFrom = {
          kind: 'table',
          alias,
          ...(t.catalog !== undefined ? { catalog: t.catalog } : {}),
          schema: t.schema,
          table: t.table,
        };
        return { from, scope, output, where: [], having: [], aggregated: false, distinct: false, shape: EMPTY_SHAPE };
      }
      case 'Filter': {
        const s = this.prepare(this.convert(plan.input), 'Filter');
        const pred = this.expr(plan.predicate, s.scope);
        if (s.aggregated) s.having.push(pred);
        else s.where.push(pred);
        s.shape = applyOp(s.shape, plan);
        return s;
      }
      case 'Project': {
        const s = this.prepare(this.convert(plan.input), 'Project');
        const output = plan.exprs.map((e) => ({
          id: e.field.id,
          name: e.field.name,
          expr: this.expr(e.expr, s.scope),
        }));
        for (const o of output) s.scope.set(o.id, o.expr);
        s.output = output;
        s.shape = applyOp(s.shape, plan);
        return s;
      }
      case 'Aggregate': {
        const s = this.prepare(this.convert(plan.input), 'Aggregate');
        const scope = new Map<number, RemoteExpr>();
        const groups = plan.groupBy.map((g) => ({
          id: g.field.id,
          name: g.field.name,
          expr: this.expr(g.expr, s.scope),
        }));
        const aggs = plan.aggregates.map((a) => {
          if (a.filter) throw internal(`aggregate ${a.fn} with FILTER cannot be sent to a source`);
          const expr: RemoteExpr = {
            kind: 'agg',
            fn: a.fn,
            distinct: a.distinct,
            args: a.args.map((x) => this.expr(x, s.scope)),
            type: a.field.type,
          };
          return { id: a.field.id, name: a.field.name, expr };
        });
        for (const o of [...groups, ...aggs]) scope.set(o.id, o.expr);
        s.groupBy = groups.map((g) => g.expr);
        s.aggregated = true;
        s.scope = scope;
        s.output = [...groups, ...aggs];
        s.shape = applyOp(s.shape, plan);
        return s;
      }
      case 'Sort': {
        const s = this.prepare(this.convert(plan.input), 'Sort');
        s.orderBy = plan.keys.map((k) => ({
          expr: this.expr(k.expr, s.scope),
          desc: k.desc,
          nullsFirst: k.nullsFirst,
        }));
        s.shape = applyOp(s.shape, plan);
        return s;
      }
      case 'Limit': {
        const s = this.convert(plan.input);
        if (s.limit !== undefined || s.offset !== undefined) {
          // LIMIT a OFFSET b, then LIMIT c OFFSET d  =  LIMIT min(a - d, c) OFFSET b + d
          const innerLimit = s.limit === undefined ? undefined : Math.max(0, s.limit - plan.offset);
          s.offset = (s.offset ?? 0) + plan.offset;
          s.limit =
            innerLimit === undefined
              ? plan.limit
              : plan.limit === undefined
                ? innerLimit
                : Math.min(innerLimit, plan.limit);
        } else {
          s.limit = plan.limit;
          s.offset = plan.offset;
        }
        if (s.limit === undefined) delete s.limit;
        if (s.offset === 0) delete s.offset;
        s.shape = applyOp(s.shape, plan);
        return s;
      }
      case 'Distinct': {
        const s = this.prepare(this.convert(plan.input), 'Distinct');
        s.distinct = true;
        s.shape = applyOp(s.shape, plan);
        return s;
      }
      case 'MarkJoin':
        return this.markJoin(plan);
      case 'Join': {
        if (plan.type === 'semi' || plan.type === 'anti') return this.semiJoin(plan);
        let l = this.convert(plan.left);
        let r = this.convert(plan.right);
        const lr = sideRole(plan.type, 'left');
        const rr = sideRole(plan.type, 'right');
        if (sideNeedsSubquery(l.shape, lr)) l = this.nest(l);
        if (sideNeedsSubquery(r.shape, rr)) r = this.nest(r);
        const scope = new Map([...l.scope, ...r.scope]);
        const on: RemoteExpr[] = plan.condition ? [this.expr(plan.condition, scope)] : [];
        const where: RemoteExpr[] = [];
        // a null-supplying side's filter belongs in ON; an inner or preserved side's in WHERE
        for (const [side, role] of [
          [l, lr],
          [r, rr],
        ] as const)
          (role === 'null-supplying' ? on : where).push(...side.where);
        // INNER JOIN needs an ON clause and CROSS JOIN takes none; an outer join without a
        // condition joins every pair
        const type =
          plan.type === 'cross' && on.length > 0
            ? 'inner'
            : plan.type === 'inner' && on.length === 0
              ? 'cross'
              : plan.type;
        if (type !== 'cross' && on.length === 0) on.push({ kind: 'literal', value: true, type: { kind: 'bool' } });
        const onExpr = AND(on);
        const from: RemoteFrom = { kind: 'join', type, left: l.from, right: r.from, ...(onExpr ? { on: onExpr } : {}) };
        return {
          from,
          scope,
          output: [...l.output, ...r.output],
          where,
          having: [],
          aggregated: false,
          distinct: false,
          shape: { ...EMPTY_SHAPE, where: where.length > 0, computed: l.shape.computed || r.shape.computed },
        };
      }
      case 'Window': {
        const s = this.prepare(this.convert(plan.input), 'Window');
        const windows = plan.windows.map((w) => {
          const expr: RemoteExpr = {
            kind: 'window',
            fn: w.fn,
            args: w.args.map((a) => this.expr(a, s.scope)),
            partitionBy: w.partitionBy.map((p) => this.expr(p, s.scope)),
            orderBy: w.orderBy.map((k) => ({ expr: this.expr(k.expr, s.scope), desc: k.desc, nullsFirst: k.nullsFirst })),
            type: w.field.type,
          };
          return { id: w.field.id, name: w.field.name, expr };
        });
        for (const o of windows) s.scope.set(o.id, o.expr);
        s.output = [...s.output, ...windows];
        s.shape = applyOp(s.shape, plan);
        return s;
      }
      case 'SetOp': {
        const side = (p: LogicalPlan) => this.finish(this.convert(p), outputFields(p), true);
        const left = side(plan.left);
        const right = side(plan.right);
        const alias = this.alias('u');
        // the set operation's columns are named by its left SELECT
        return this.derived(
          { kind: 'setop', alias, op: plan.op, all: plan.all, left, right },
          plan.fields.map((f, i) => ({ id: f.id, name: f.name, type: f.type, column: left.select[i].alias })),
        );
      }
      default:
        throw internal(`${plan.kind} cannot be sent to a source`);
    }
  }

  /**
   * `left WHERE [NOT] EXISTS (SELECT … FROM right WHERE condition)`: the condition reads the
   * left side's columns through their aliases, which are unique across the whole statement.
   * Nesting follows shape.ts's semiJoinNesting, which the optimizer checked.
   */
  private semiJoin(plan: Extract<LogicalPlan, { kind: 'Join' }>): State {
    const l = this.prepare(this.convert(plan.left), 'Filter');
    let r = this.convert(plan.right);
    if (sideNeedsSubquery(r.shape, 'inner')) r = this.nest(r);
    const where = [...r.where];
    if (plan.condition) where.push(this.expr(plan.condition, new Map([...l.scope, ...r.scope])));
    const inner = this.finish(
      { ...r, where },
      r.output.slice(0, 1).map((o) => ({ id: o.id, name: o.name })),
      true,
    );
    const query: RemoteQuery =
      inner.select.length > 0 ? inner : { ...inner, select: [{ expr: { kind: 'literal', value: 1, type: { kind: 'int32' } }, alias: 'one' }] };
    const exists: RemoteExpr = { kind: 'exists', query, negated: plan.type === 'anti', type: { kind: 'bool' } };
    if (l.aggregated) l.having.push(exists);
    else l.where.push(exists);
    l.shape = { ...l.shape, where: true };
    return l;
  }

  /**
   * `left` with one more select column: `EXISTS (SELECT … FROM right WHERE condition)`, or
   * `x IN (SELECT y FROM right WHERE condition)` — the SQL the mark join came from, so the
   * source gives it SQL's own NULL answers. Nesting follows shape.ts's markJoinNesting.
   */
  private markJoin(plan: Extract<LogicalPlan, { kind: 'MarkJoin' }>): State {
    const l = this.prepare(this.convert(plan.left), 'Project');
    let r = this.convert(plan.right);
    if (sideNeedsSubquery(r.shape, 'inner')) r = this.nest(r);
    const where = [...r.where];
    const both = new Map([...l.scope, ...r.scope]);
    if (plan.condition) where.push(this.expr(plan.condition, both));
    let mark: RemoteExpr;
    if (plan.compare) {
      const cmp = plan.compare;
      if (cmp.kind !== 'call' || cmp.fn !== 'eq') throw internal('only x = ANY (subquery) can be sent to a source');
      const [x, y] = cmp.args;
      const query = this.finish({ ...r, where, output: [{ id: -1, name: 'y', expr: this.expr(y, r.scope) }] }, [{ id: -1, name: 'y' }], true);
      mark = { kind: 'inSubquery', expr: this.expr(x, l.scope), query, type: { kind: 'bool' } };
    } else {
      const inner = this.finish({ ...r, where }, r.output.slice(0, 1).map((o) => ({ id: o.id, name: o.name })), true);
      const query: RemoteQuery =
        inner.select.length > 0 ? inner : { ...inner, select: [{ expr: { kind: 'literal', value: 1, type: { kind: 'int32' } }, alias: 'one' }] };
      mark = { kind: 'exists', query, negated: false, type: { kind: 'bool' } };
    }
    l.output = [...l.output, { id: plan.mark.id, name: plan.mark.name, expr: mark }];
    l.scope.set(plan.mark.id, mark);
    l.shape = { ...l.shape, computed: true };
    return l;
  }

  private prepare(s: State, op: ShapeOp): State {
    return needsSubquery(s.shape, op) ? this.nest(s) : s;
  }

  /** Wraps the SELECT built so far as `(…) AS alias` and continues on its output columns. */
  private nest(s: State): State {
    const alias = this.alias('s');
    const query = this.finish(
      s,
      s.output.map((o) => ({ id: o.id, name: o.name })),
      true,
    );
    return this.derived(
      { kind: 'subquery', alias, query },
      s.output.map((o, i) => ({ id: o.id, name: o.name, type: o.expr.type, column: query.select[i].alias })),
    );
  }

  /** A fresh SELECT over a derived table, each field read as one of its columns. */
  private derived(from: Extract<RemoteFrom, { alias: string }>, fields: readonly { id: number; name: string; type: JType; column: string }[]): State {
    const scope = new Map<number, RemoteExpr>();
    const output = fields.map((f) => {
      const expr: RemoteExpr = { kind: 'column', table: from.alias, column: f.column, type: f.type };
      scope.set(f.id, expr);
      return { id: f.id, name: f.name, expr };
    });
    return { from, scope, output, where: [], having: [], aggregated: false, distinct: false, shape: EMPTY_SHAPE };
  }

  finish(s: State, fields: readonly { id: number; name: string }[], nested = false): RemoteQuery {
    const used = new Set<string>();
    const select = fields.map((f) => {
      const hit = s.output.find((o) => o.id === f.id)?.expr ?? s.scope.get(f.id);
      if (!hit) throw internal(`field ${f.name}#${f.id} is not produced by the remote subtree`);
      let alias = sanitize(f.name, 'c');
      for (let i = 2; used.has(alias); i++) alias = `${sanitize(f.name, 'c')}_${i}`;
      used.add(alias);
      return { expr: hit, alias };
    });
    const where = AND(s.where);
    const having = AND(s.having);
    // ORDER BY without LIMIT inside a subquery promises nothing; drop it
    const orderBy = nested && s.limit === undefined && s.offset === undefined ? undefined : s.orderBy;
    return {
      select,
      ...(s.distinct ? { distinct: true } : {}),
      from: s.from,
      ...(where ? { where } : {}),
      ...(s.groupBy && s.groupBy.length > 0 ? { groupBy: s.groupBy } : {}),
      ...(having ? { having } : {}),
      ...(orderBy && orderBy.length > 0 ? { orderBy } : {}),
      ...(s.limit !== undefined ? { limit: s.limit } : {}),
      ...(s.offset !== undefined && s.offset > 0 ? { offset: s.offset } : {}),
    };
  }

  private expr(e: Expr, scope: ReadonlyMap<number, RemoteExpr>): RemoteExpr {
    const x = (y: Expr) => this.expr(y, scope);
    switch (e.kind) {
      case 'ref': {
        const hit = scope.get(e.id);
        if (!hit) throw internal(`field #${e.id} is not visible in the remote subtree`);
        return hit;
      }
      case 'literal':
        return { kind: 'literal', value: e.value, type: e.type };
      case 'param': {
        if (e.index >= this.params.length)
          throw new JunctionError('missing_parameter', 'user', `No value was given for parameter $${e.index + 1}.`, {
            details: { index: e.index + 1 },
          });
        return { kind: 'literal', value: this.params[e.index], type: e.type };
      }
      case 'call':
        return { kind: 'call', fn: e.fn, args: e.args.map(x), type: e.type };
      case 'in':
        return { kind: 'in', expr: x(e.expr), list: e.list.map(x), negated: e.negated, type: e.type };
      case 'case':
        return {
          kind: 'case',
          ...(e.operand ? { operand: x(e.operand) } : {}),
          whens: e.whens.map((w) => ({ when: x(w.when), then: x(w.then) })),
          ...(e.else ? { else: x(e.else) } : {}),
          type: e.type,
        };
      case 'cast':
        return { kind: 'cast', expr: x(e.expr), type: e.type };
      case 'subquery':
        throw internal('a subquery expression cannot be sent to a source');
      case 'raise':
        throw internal('a run-time check cannot be sent to a source');
    }
  }
}

/** A short, valid, lower-case identifier every dialect accepts unquoted and unchanged. */
function sanitize(name: string, fallback: string): string {
  let s = name
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 30);
  if (s === '' || /^[0-9]/.test(s)) s = `${fallback}${s}`;
  return s;
}

function internal(message: string): JunctionError {
  return new JunctionError(
    'remote_query_conversion',
    'internal',
    `Internal error while building a source query: ${message}.`,
  );
}
