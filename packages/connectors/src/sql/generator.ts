import { JunctionError } from '../contract/errors.js';
import type { RemoteExpr, RemoteFrom, RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import type { ColumnMeta, JType, Value } from '../contract/types.js';
import { AGGREGATE_FUNCTIONS, type AggFn } from '../contract/functions.js';
import { fillTemplate, ORDERING_FNS, PREDICATE_FNS, unsupported, type Dialect } from './dialect.js';

type Mode = 'value' | 'predicate';

/**
 * Turns a RemoteQuery into one SELECT in the dialect's spelling. Every literal becomes a bound
 * parameter; limits and offsets are validated integers; identifiers go through the dialect's
 * quoting. The output columns are the select aliases with the types the IR gave them.
 */
export function renderQuery(dialect: Dialect, query: RemoteQuery): RenderedQuery {
  const g = new Generator(dialect);
  const marked = g.query(query, true);
  // Values are bound through markers and numbered last, in text order: a template may
  // reorder or repeat its arguments, and `?` placeholders are positional. A marker met again
  // (a GROUP BY key written as its select item) keeps its number where placeholders are numbered.
  const params: Value[] = [];
  const numbers = new Map<string, number>();
  const sql = marked.replace(MARKER, (_, i: string) => {
    const again = dialect.numberedPlaceholders ? numbers.get(i) : undefined;
    if (again !== undefined) return dialect.placeholder(again);
    params.push(g.values[Number(i)]);
    numbers.set(i, params.length);
    return dialect.placeholder(params.length);
  });
  const columns: ColumnMeta[] = query.select.map((s) => ({ name: s.alias, type: s.expr.type, nullable: true }));
  return { sql, params, columns };
}

// NUL never occurs in SQL text otherwise: identifiers containing it are rejected.
// eslint-disable-next-line no-control-regex -- NUL delimits parameter markers (see above)
const MARKER = /\u0000(\d+)\u0000/g;

class Generator {
  readonly values: Value[] = [];

  constructor(private readonly d: Dialect) {}

  private bind = (value: Value): string => {
    this.values.push(value);
    return `\u0000${this.values.length - 1}\u0000`;
  };

  query(q: RemoteQuery, top: boolean): string {
    if (q.select.length === 0) throw new JunctionError('empty_select', 'internal', 'a remote query must select at least one column');
    const limit = checkCount(q.limit, 'LIMIT');
    const offset = checkCount(q.offset, 'OFFSET');
    // An ORDER BY without LIMIT/OFFSET inside a derived table promises nothing; some engines reject it.
    const keepOrder = top || limit !== undefined || (offset !== undefined && offset > 0);
    const orderBy = keepOrder ? (q.orderBy ?? []) : [];

    if (q.distinct && orderBy.length > 0 && !this.d.nativeNullsOrdering) {
      return this.distinctThenOrder(q, orderBy, limit, offset);
    }

    const items = q.select.map((s) => this.expr(s.expr, 'value'));
    const select = items.map((sql, i) => `${sql} AS ${this.d.quoteIdentifier(q.select[i].alias)}`);
    // A key that is a select item's expression is written with that item's text, markers and
    // all: PostgreSQL matches GROUP BY date_part($1, d) to the select list's date_part($1, d),
    // not to a date_part($3, d) whose parameter merely holds the same value.
    const asSelected = (e: RemoteExpr): string | undefined => {
      if (e.kind === 'column') return undefined;
      const i = q.select.findIndex((s) => sameExpr(s.expr, e));
      return i < 0 ? undefined : items[i];
    };
    const from = this.from(q.from);
    const where = q.where ? this.expr(q.where, 'predicate') : undefined;
    const groupBy = (q.groupBy ?? []).map((e) => asSelected(e) ?? this.expr(e, 'value'));
    const having = q.having ? this.expr(q.having, 'predicate') : undefined;
    const order = orderBy.flatMap((k) => this.d.orderKeys(this.orderOperand(k.expr, asSelected(k.expr)), k.desc, k.nullsFirst));
    return this.d.assemble({ distinct: q.distinct === true, select, from, where, groupBy, having, orderBy: order, limit, offset });
  }

  /**
   * SELECT DISTINCT may only sort by what it selects, and emulated NULL placement adds sort
   * keys that are not selected: sort the distinct rows in an outer query, by alias.
   */
  private distinctThenOrder(q: RemoteQuery, orderBy: NonNullable<RemoteQuery['orderBy']>, limit?: number, offset?: number): string {
    const inner = this.query({ ...q, orderBy: undefined, limit: undefined, offset: undefined }, false);
    const alias = '_j_distinct';
    const keys = orderBy.flatMap((k) => {
      const item = q.select.find((s) => sameExpr(s.expr, k.expr));
      if (!item) throw new JunctionError('distinct_order', 'internal', 'for SELECT DISTINCT, ORDER BY expressions must appear in the select list');
      const ref: RemoteExpr = { kind: 'column', table: alias, column: item.alias, type: item.expr.type };
      return this.d.orderKeys(this.orderOperand(ref), k.desc, k.nullsFirst);
    });
    const select = q.select.map((s) => `${this.d.quoteIdentifier(alias)}.${this.d.quoteIdentifier(s.alias)}`);
    return this.d.assemble({
      distinct: false,
      select,
      from: `(${inner}) ${this.d.quoteIdentifier(alias)}`,
      groupBy: [],
      orderBy: keys,
      limit,
      offset,
    });
  }

  /**
   * One side of a set operation. SQLite takes no parentheses around it and ORDER BY/LIMIT
   * there would apply to the whole operation: a side with a limit becomes a derived table.
   */
  private branch(q: RemoteQuery, alias: string): string {
    if (q.limit === undefined && (q.offset ?? 0) === 0) return this.query(q, false);
    return this.d.assemble({
      distinct: false,
      select: q.select.map((s) => `${this.d.quoteIdentifier(alias)}.${this.d.quoteIdentifier(s.alias)}`),
      from: `(${this.query(q, false)}) ${this.d.quoteIdentifier(alias)}`,
      groupBy: [],
      orderBy: [],
    });
  }

  private orderOperand(e: RemoteExpr, selected?: string): string {
    const sql = selected ?? this.expr(e, 'value');
    return e.type.kind === 'string' ? this.d.orderingOperand(sql, e.type) : sql;
  }

  private from(f: RemoteFrom): string {
    switch (f.kind) {
      case 'table':
        return `${this.d.qualifiedTable(f)} ${this.d.quoteIdentifier(f.alias)}`;
      case 'subquery':
        return `(${this.query(f.query, false)}) ${this.d.quoteIdentifier(f.alias)}`;
      case 'setop': {
        const op = `${f.op.toUpperCase()}${f.all ? ' ALL' : ''}`;
        return `(${this.branch(f.left, `${f.alias}_l`)} ${op} ${this.branch(f.right, `${f.alias}_r`)}) ${this.d.quoteIdentifier(f.alias)}`;
      }
      case 'join': {
        const keyword = this.d.joinKeywords[f.type];
        if (keyword === undefined) throw unsupported(`${f.type} join`, this.d.engine);
        const left = this.from(f.left);
        const right = f.right.kind === 'join' ? `(${this.from(f.right)})` : this.from(f.right);
        if (f.type === 'cross') {
          if (f.on) throw new JunctionError('cross_join_on', 'internal', 'a cross join has no ON condition');
          return `${left} ${keyword} ${right}`;
        }
        if (!f.on) throw new JunctionError('join_without_on', 'internal', `a ${f.type} join needs an ON condition`);
        return `${left} ${keyword} ${right} ON ${this.expr(f.on, 'predicate')}`;
      }
    }
  }

  expr(e: RemoteExpr, mode: Mode): string {
    const { sql, predicate } = this.native(e);
    if (e.type.kind !== 'bool' || predicate === (mode === 'predicate')) return sql;
    return predicate ? this.d.predicateAsValue(sql) : this.d.valueAsPredicate(sql);
  }

  /** The expression in its natural form, and whether that form is a predicate. */
  private native(e: RemoteExpr): { sql: string; predicate: boolean } {
    switch (e.kind) {
      case 'column':
        return { sql: this.d.column(e.table, e.column, e.type), predicate: false };
      case 'literal':
        if (e.value === null) return { sql: this.d.nullLiteral(e.type), predicate: false };
        return { sql: this.d.literal(e.value, e.type, this.bind), predicate: false };
      case 'cast':
        return { sql: this.d.cast(this.expr(e.expr, 'value'), e.expr.type, e.type), predicate: false };
      case 'in': {
        if (e.list.length === 0) throw new JunctionError('empty_in_list', 'internal', 'an IN list needs at least one value');
        const x = this.expr(e.expr, 'value');
        const list = e.list.map((v) => this.expr(v, 'value'));
        return { sql: this.d.inList(x, list, e, this.bind), predicate: true };
      }
      case 'keySet': {
        if (e.values.length === 0) throw new JunctionError('empty_in_list', 'internal', 'an IN list needs at least one value');
        const array = this.d.keySetArray(this.expr(e.expr, 'value'), e.values, e.expr.type, this.bind);
        if (array !== undefined) return { sql: array, predicate: true };
        const list = e.values.map((value): RemoteExpr => ({ kind: 'literal', value, type: e.expr.type }));
        return this.native({ kind: 'in', expr: e.expr, list, negated: false, type: e.type });
      }
      case 'case': {
        let sql = 'CASE';
        if (e.operand) sql += ` ${this.expr(e.operand, 'value')}`;
        for (const w of e.whens) {
          sql += ` WHEN ${this.expr(w.when, e.operand ? 'value' : 'predicate')} THEN ${this.expr(w.then, 'value')}`;
        }
        if (e.else) sql += ` ELSE ${this.expr(e.else, 'value')}`;
        return { sql: `${sql} END`, predicate: false };
      }
      case 'window': {
        const sql = e.args.map((a) => this.expr(a, 'value'));
        const call = (AGGREGATE_FUNCTIONS as readonly string[]).includes(e.fn)
          ? this.d.aggregate(e.fn as AggFn, false, sql, e.args, e.type)
          : `${e.fn.toUpperCase()}(${sql.join(', ')})`;
        const over: string[] = [];
        if (e.partitionBy.length > 0) over.push(`PARTITION BY ${e.partitionBy.map((p) => this.expr(p, 'value')).join(', ')}`);
        if (e.orderBy.length > 0) over.push(`ORDER BY ${e.orderBy.flatMap((k) => this.d.orderKeys(this.orderOperand(k.expr), k.desc, k.nullsFirst)).join(', ')}`);
        return { sql: `${call} OVER (${over.join(' ')})`, predicate: false };
      }
      case 'exists':
        return { sql: `${e.negated ? 'NOT ' : ''}EXISTS (${this.query(e.query, false)})`, predicate: true };
      case 'inSubquery':
        return { sql: `(${this.expr(e.expr, 'value')} IN (${this.query(e.query, false)}))`, predicate: true };
      case 'agg': {
        const sql = e.args.map((a) => this.expr(a, 'value'));
        return { sql: this.d.aggregate(e.fn, e.distinct, sql, e.args, e.type), predicate: false };
      }
      case 'call': {
        const template = this.d.functions[e.fn];
        if (template === undefined) throw unsupported(`function ${e.fn}`, this.d.engine);
        const argMode: Mode = e.fn === 'and' || e.fn === 'or' || e.fn === 'not' ? 'predicate' : 'value';
        const sql = e.args.map((a) => {
          let s = this.expr(a, argMode);
          if (a.type.kind === 'string') {
            if (ORDERING_FNS.has(e.fn)) s = this.d.orderingOperand(s, a.type);
            if (e.fn === 'like' || e.fn === 'ilike') s = this.d.likeOperand(s, a.type);
          }
          return s;
        });
        const text =
          typeof template === 'string'
            ? fillTemplate(template, sql)
            : template({ args: e.args, sql, type: e.type, bind: (v: Value, _t: JType) => this.bind(v) });
        return { sql: text, predicate: PREDICATE_FNS.has(e.fn) };
      }
    }
  }
}

function checkCount(n: number | undefined, what: string): number | undefined {
  if (n === undefined) return undefined;
  if (!Number.isSafeInteger(n) || n < 0) throw new JunctionError('bad_row_count', 'internal', `${what} must be a non-negative integer, got ${n}`);
  return n;
}

function sameExpr(a: RemoteExpr, b: RemoteExpr): boolean {
  return JSON.stringify(a, bigintSafe) === JSON.stringify(b, bigintSafe);
}

function bigintSafe(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Array.from(v) : v;
}
