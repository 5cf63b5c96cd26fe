import { JunctionError } from '../contract/errors.js';
import type { AggFn, JoinType, ScalarFn } from '../contract/functions.js';
import type { RemoteExpr } from '../contract/remote-query.js';
import type { JType, Value } from '../contract/types.js';
import type { EngineName } from '../contract/connector.js';

/** What a function template sees: its arguments already rendered, and a way to bind values. */
export interface FnContext {
  readonly args: readonly RemoteExpr[];
  readonly sql: readonly string[];
  readonly type: JType;
  bind(value: Value, type: JType): string;
}

/**
 * `{0}`, `{1}`… are the rendered arguments and `{*}` all of them, comma-separated. The
 * template is scanned once, so an argument's own text (a quoted name containing "{1}") is
 * never substituted again.
 */
export type FnTemplate = string | ((c: FnContext) => string);

export interface SelectParts {
  readonly distinct: boolean;
  readonly select: readonly string[];
  readonly from: string;
  readonly where?: string;
  readonly groupBy: readonly string[];
  readonly having?: string;
  readonly orderBy: readonly string[];
  readonly limit?: number;
  readonly offset?: number;
}

export function unsupported(what: string, engine: string): JunctionError {
  return new JunctionError(
    'pushdown_unsupported',
    'unsupported',
    `${what} cannot be rendered for ${engine}; the planner should have kept it in Junction (this is a bug, please report it)`,
    { details: { engine, what } },
  );
}

export function fillTemplate(template: string, sql: readonly string[]): string {
  return template.replace(/\{(\d+|\*)\}/g, (_, i: string) => {
    if (i === '*') return sql.join(', ');
    const s = sql[Number(i)];
    if (s === undefined) throw new JunctionError('template_argument', 'internal', `function template ${template} has no argument ${i}`);
    return s;
  });
}

const INTEGER_KINDS = new Set(['int16', 'int32', 'int64']);
export function isInteger(type: JType): boolean {
  return INTEGER_KINDS.has(type.kind);
}

/** Digits of a plain decimal literal, so a bound decimal keeps its exact precision and scale. */
export function decimalShape(text: string): { precision: number; scale: number } {
  const m = /^[+-]?(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) throw new JunctionError('bad_decimal_literal', 'user', `"${text}" is not a plain decimal number`);
  const intDigits = (m[1] ?? '').replace(/^0+/, '').length;
  const scale = (m[2] ?? '').length;
  return { precision: Math.max(1, intDigits + scale), scale };
}

/** PostgreSQL's date_part fields every dialect knows how to extract. */
export const DATE_FIELDS = ['year', 'quarter', 'month', 'day', 'hour', 'minute', 'second', 'dow', 'doy'] as const;
export type DateField = (typeof DATE_FIELDS)[number];

export function dateField(c: FnContext, engine: string): DateField {
  const f = c.args[0];
  if (f?.kind !== 'literal' || typeof f.value !== 'string') throw unsupported('date_part with a non-literal field', engine);
  const name = f.value.toLowerCase();
  if (!(DATE_FIELDS as readonly string[]).includes(name)) throw unsupported(`date_part('${name}')`, engine);
  return name as DateField;
}

/**
 * One engine's SQL spelling. The shared generator (generator.ts) walks the RemoteQuery and
 * asks these hooks for every piece; an engine overrides only what it spells differently.
 */
export abstract class Dialect {
  abstract readonly engine: EngineName;

  abstract quoteIdentifier(name: string): string;

  /** 1-based */
  abstract placeholder(n: number): string;

  /** placeholders are numbered ($1, @p1), so one may stand in several places of a statement */
  readonly numberedPlaceholders: boolean = false;

  /** SQL type name for CAST, or undefined when the engine has no exact equivalent. */
  abstract castType(type: JType): string | undefined;

  /** true: the engine sorts NULLs high (NULLS LAST on ASC) and spells NULLS FIRST/LAST */
  readonly nativeNullsOrdering: boolean = true;

  readonly joinKeywords: Readonly<Partial<Record<Exclude<JoinType, 'semi' | 'anti'>, string>>> = {
    inner: 'INNER JOIN',
    left: 'LEFT JOIN',
    right: 'RIGHT JOIN',
    full: 'FULL JOIN',
    cross: 'CROSS JOIN',
  };

  readonly functions: Readonly<Partial<Record<ScalarFn, FnTemplate>>> = BASE_FUNCTIONS;

  /** Only SQL Server names a database (catalog) in front of the schema. */
  readonly catalogs: boolean = false;

  protected checkIdentifier(name: string): void {
    if (name.length === 0 || name.includes('\u0000')) {
      throw new JunctionError('bad_identifier', 'user', 'an identifier may be neither empty nor contain a NUL character', {
        details: { engine: this.engine },
      });
    }
  }

  qualifiedTable(t: { readonly catalog?: string; readonly schema?: string; readonly table: string }): string {
    if (t.catalog !== undefined && (!this.catalogs || t.schema === undefined)) {
      throw unsupported(this.catalogs ? 'a catalog without a schema' : 'a catalog-qualified table name', this.engine);
    }
    const parts = [t.catalog, t.schema, t.table].filter((p): p is string => p !== undefined);
    return parts.map((p) => this.quoteIdentifier(p)).join('.');
  }

  column(alias: string, column: string, _type: JType): string {
    return `${this.quoteIdentifier(alias)}.${this.quoteIdentifier(column)}`;
  }

  /** A literal: always a bound parameter (bind returns its placeholder). */
  literal(value: Value, _type: JType, bind: (v: Value) => string): string {
    return bind(value);
  }

  nullLiteral(_type: JType): string {
    return 'NULL';
  }

  cast(sql: string, _from: JType, to: JType): string {
    const name = this.castType(to);
    if (name === undefined) throw unsupported(`CAST to ${to.kind}`, this.engine);
    return `CAST(${sql} AS ${name})`;
  }

  /** A string operand of an ordering comparison, ORDER BY, MIN or MAX. */
  orderingOperand(sql: string, _type: JType): string {
    return sql;
  }

  /** An operand of LIKE: char(n) is matched blank-padded, as PostgreSQL matches bpchar. */
  likeOperand(sql: string, _type: JType): string {
    return sql;
  }

  /** `x [NOT] IN (list)`, its parts already rendered; `bind` binds a value again if needed. */
  inList(x: string, list: readonly string[], e: Extract<RemoteExpr, { kind: 'in' }>, _bind: (v: Value) => string): string {
    return `(${x} ${e.negated ? 'NOT IN' : 'IN'} (${list.join(', ')}))`;
  }

  /**
   * A key set (`x IN values`) bound as one array parameter, or undefined to render it as an
   * IN list of bound values like any other.
   */
  keySetArray(_x: string, _values: readonly Value[], _type: JType, _bind: (v: Value) => string): string | undefined {
    return undefined;
  }

  /** A boolean-valued expression used as a predicate (WHERE, ON, AND…). */
  valueAsPredicate(sql: string): string {
    return sql;
  }

  /** A predicate used as a value (a select item, a CASE result, a GROUP BY key). */
  predicateAsValue(sql: string): string {
    return sql;
  }

  aggregate(fn: AggFn, distinct: boolean, sql: readonly string[], args: readonly RemoteExpr[], _type: JType): string {
    const d = distinct ? 'DISTINCT ' : '';
    switch (fn) {
      case 'count_star':
        return 'COUNT(*)';
      case 'count':
        return `COUNT(${d}${sql[0]})`;
      case 'sum':
      case 'avg':
        return `${fn.toUpperCase()}(${d}${sql[0]})`;
      case 'min':
      case 'max':
        return `${fn.toUpperCase()}(${d}${args[0].type.kind === 'string' ? this.orderingOperand(sql[0], args[0].type) : sql[0]})`;
      case 'bool_and':
      case 'bool_or':
        return `${fn.toUpperCase()}(${d}${sql[0]})`;
      case 'string_agg':
        return `STRING_AGG(${d}${sql[0]}, ${sql[1]})`;
      default:
        throw unsupported(`aggregate ${fn}`, this.engine);
    }
  }

  /** One ORDER BY key, as one or more SQL sort keys. */
  orderKeys(sql: string, desc: boolean, nullsFirst: boolean): string[] {
    const dir = desc ? 'DESC' : 'ASC';
    if (this.nativeNullsOrdering) {
      // PostgreSQL's default is NULLS LAST for ASC and NULLS FIRST for DESC: spell only departures.
      return nullsFirst === desc ? [`${sql} ${dir}`] : [`${sql} ${dir} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`];
    }
    // NULLs sort low here: ASC puts them first, DESC last. Emulate the other placements.
    if (nullsFirst !== desc) return [`${sql} ${dir}`];
    return [`CASE WHEN ${sql} IS NULL THEN ${nullsFirst ? 0 : 1} ELSE ${nullsFirst ? 1 : 0} END`, `${sql} ${dir}`];
  }

  protected limitOffsetClause(limit: number | undefined, offset: number | undefined): string {
    let s = '';
    if (limit !== undefined) s += ` LIMIT ${limit}`;
    if (offset !== undefined && offset > 0) s += ` OFFSET ${offset}`;
    return s;
  }

  assemble(p: SelectParts): string {
    let sql = `SELECT ${p.distinct ? 'DISTINCT ' : ''}${p.select.join(', ')} FROM ${p.from}`;
    if (p.where !== undefined) sql += ` WHERE ${p.where}`;
    if (p.groupBy.length > 0) sql += ` GROUP BY ${p.groupBy.join(', ')}`;
    if (p.having !== undefined) sql += ` HAVING ${p.having}`;
    if (p.orderBy.length > 0) sql += ` ORDER BY ${p.orderBy.join(', ')}`;
    return sql + this.limitOffsetClause(p.limit, p.offset);
  }
}

function nary(op: string): FnTemplate {
  return (c) => `(${c.sql.join(` ${op} `)})`;
}

/** Standard SQL spellings; PostgreSQL's exactly, which is why its dialect overrides so little. */
function oneArg(name: string): FnTemplate {
  return (c) => {
    if (c.sql.length !== 1) throw unsupported(`${name.toLowerCase()} with ${c.sql.length} arguments`, 'this dialect');
    return `${name}(${c.sql[0]})`;
  };
}

export const BASE_FUNCTIONS: Readonly<Partial<Record<ScalarFn, FnTemplate>>> = {
  eq: '({0} = {1})',
  ne: '({0} <> {1})',
  lt: '({0} < {1})',
  le: '({0} <= {1})',
  gt: '({0} > {1})',
  ge: '({0} >= {1})',
  is_distinct_from: '({0} IS DISTINCT FROM {1})',
  is_not_distinct_from: '({0} IS NOT DISTINCT FROM {1})',
  and: nary('AND'),
  or: nary('OR'),
  not: '(NOT {0})',
  is_null: '({0} IS NULL)',
  is_not_null: '({0} IS NOT NULL)',
  coalesce: 'COALESCE({*})',
  nullif: 'NULLIF({0}, {1})',
  add: '({0} + {1})',
  sub: '({0} - {1})',
  mul: '({0} * {1})',
  div: '({0} / {1})',
  mod: '({0} % {1})',
  neg: '(- {0})',
  abs: 'ABS({0})',
  round: 'ROUND({*})',
  trunc: 'TRUNC({*})',
  floor: 'FLOOR({0})',
  ceil: 'CEIL({0})',
  power: 'POWER({0}, {1})',
  sqrt: 'SQRT({0})',
  sign: 'SIGN({0})',
  concat: nary('||'),
  lower: 'LOWER({0})',
  upper: 'UPPER({0})',
  length: 'LENGTH({0})',
  substring: (c) => (c.sql.length === 3 ? `SUBSTRING(${c.sql[0]} FROM ${c.sql[1]} FOR ${c.sql[2]})` : `SUBSTRING(${c.sql[0]} FROM ${c.sql[1]})`),
  // the one-argument forms only: engines disagree on what a second argument means
  // (a set of characters in PostgreSQL and SQLite, a whole substring in MySQL)
  trim: oneArg('TRIM'),
  ltrim: oneArg('LTRIM'),
  rtrim: oneArg('RTRIM'),
  replace: 'REPLACE({0}, {1}, {2})',
  position: 'POSITION({0} IN {1})',
  left: 'LEFT({0}, {1})',
  right: 'RIGHT({0}, {1})',
  lpad: 'LPAD({*})',
  rpad: 'RPAD({*})',
  like: '({0} LIKE {1})',
  ilike: '({0} ILIKE {1})',
  starts_with: 'STARTS_WITH({0}, {1})',
  date_part: 'DATE_PART({0}, {1})',
  date_trunc: 'DATE_TRUNC({0}, {1})',
  current_date: 'CURRENT_DATE',
  current_timestamp: 'CURRENT_TIMESTAMP',
  make_date: 'MAKE_DATE({0}, {1}, {2})',
  greatest: 'GREATEST({*})',
  least: 'LEAST({*})',
};

/** Functions whose SQL is a predicate (a truth value), not a value, in every dialect. */
export const PREDICATE_FNS: ReadonlySet<ScalarFn> = new Set<ScalarFn>([
  'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'is_distinct_from', 'is_not_distinct_from',
  'and', 'or', 'not', 'is_null', 'is_not_null', 'like', 'ilike', 'starts_with',
]);

/** Functions whose string operands compare by order (collation matters beyond equality). */
export const ORDERING_FNS: ReadonlySet<ScalarFn> = new Set<ScalarFn>(['lt', 'le', 'gt', 'ge', 'greatest', 'least']);
