import type { AggFn } from '../contract/functions.js';
import type { RemoteExpr } from '../contract/remote-query.js';
import type { JType, Value } from '../contract/types.js';
import { BASE_FUNCTIONS, Dialect, dateField, isInteger, unsupported, type FnContext, type SelectParts } from '../sql/dialect.js';
import { nullLiteral, trinoLiteral, trinoTypeName } from './literals.js';

/** Trims blanks only: Trino's one-argument trim functions also strip tabs and line breaks. */
const BLANK = "' '";

function datePart(c: FnContext): string {
  const x = c.sql[1];
  switch (dateField(c, 'trino')) {
    case 'year':
      // Trino counts 1 BC as year 0 (astronomically), PostgreSQL as -1: there is no year 0
      return `(CASE WHEN YEAR(${x}) > 0 THEN YEAR(${x}) ELSE YEAR(${x}) - 1 END)`;
    case 'quarter':
      return `QUARTER(${x})`;
    case 'month':
      return `MONTH(${x})`;
    case 'day':
      return `DAY(${x})`;
    case 'hour':
      return `HOUR(${x})`;
    case 'minute':
      return `MINUTE(${x})`;
    case 'second': {
      // PostgreSQL's seconds carry the fraction; Trino's SECOND() drops it and DATE_DIFF stops
      // at milliseconds. The text of a timestamp(6) holds every digit: its last nine
      // characters "SS.ffffff" (counted from the end: years before 1 or past 9999 are longer)
      // are EXTRACT's numeric(8,6), and as a double the same nearest double.
      if (c.args[1]?.type.kind === 'date') return c.type.kind === 'decimal' ? "DECIMAL '0.000000'" : "DOUBLE '0'";
      const secs = `CAST(SUBSTR(CAST(CAST(${x} AS TIMESTAMP(6)) AS VARCHAR), -9) AS DECIMAL(8,6))`;
      return c.type.kind === 'decimal' ? secs : `CAST(${secs} AS DOUBLE)`;
    }
    case 'dow':
      // ISO day of week is Monday 1 … Sunday 7; PostgreSQL's dow is Sunday 0 … Saturday 6
      return `MOD(DAY_OF_WEEK(${x}), 7)`;
    case 'doy':
      return `DAY_OF_YEAR(${x})`;
  }
}

/**
 * PostgreSQL's substring(s FROM a FOR b) counts positions before 1 against the length, where
 * Trino's substr would read a start of 0 as "nothing" and a negative one from the end.
 */
function substring(c: FnContext): string {
  const [s, a, b] = c.sql;
  if (b === undefined) return `SUBSTR(${s}, GREATEST(${a}, 1))`;
  return `SUBSTR(${s}, GREATEST(${a}, 1), GREATEST(${a} + ${b} - GREATEST(${a}, 1), 0))`;
}

const TRINO_FUNCTIONS = {
  ...BASE_FUNCTIONS,
  // integer / integer truncates toward zero in Trino as in PostgreSQL; capabilities keep
  // decimals out (Trino's quotient scale is max(s1, s2), PostgreSQL's at least 16 digits)
  div: '({0} / {1})',
  trunc: 'TRUNCATE({0})',
  trim: `TRIM(BOTH ${BLANK} FROM {0})`,
  ltrim: `LTRIM({0}, ${BLANK})`,
  rtrim: `RTRIM({0}, ${BLANK})`,
  // Junction's patterns escape with a backslash, PostgreSQL's default; Trino has no default escape
  like: "({0} LIKE {1} ESCAPE '\\')",
  substring,
  date_part: datePart,
  // not declared (capabilities.ts says why), so never rendered
  ilike: undefined,
  left: undefined,
  right: undefined,
  lpad: undefined,
  rpad: undefined,
  replace: undefined,
  date_trunc: undefined,
  make_date: undefined,
  greatest: undefined,
  least: undefined,
  current_date: undefined,
  current_timestamp: undefined,
  power: undefined,
  sign: undefined,
};

/**
 * Trino SQL. Tables are "catalog"."schema"."table": query-core fills the catalog with the
 * source's Trino catalog (TrinoConnector.catalogFor). Values are spliced as typed literals
 * through literals.ts, the one place that escapes them. What restores Junction's meaning:
 * - char(n) columns are read as varchar without their pad blanks (PostgreSQL's bpchar
 *   comparison); Trino would otherwise pad a varchar compared with a char, and count the
 *   blanks in length();
 * - ORDER BY always spells NULLS FIRST/LAST: Trino sorts NULLs last in both directions;
 * - sum over bigint is summed as decimal(38,0): PostgreSQL's sum(int8) is numeric, where
 *   Trino's bigint sum would fail on overflow;
 * - OFFSET precedes LIMIT, as Trino's grammar wants;
 * - ORDER BY never qualifies a column with a name the select list also gives an output column
 *   (orderByOutputs).
 */
export class TrinoDialect extends Dialect {
  readonly engine = 'trino' as const;
  override readonly catalogs = true;
  override readonly functions = TRINO_FUNCTIONS;

  quoteIdentifier(name: string): string {
    this.checkIdentifier(name);
    return `"${name.replace(/"/g, '""')}"`;
  }

  /** Never used for query values (they are spliced), only where a caller asks for one. */
  placeholder(_n: number): string {
    return '?';
  }

  override qualifiedTable(t: { readonly catalog?: string; readonly schema?: string; readonly table: string }): string {
    // without a catalog the table resolves in the session's (the source's `database` setting)
    if (t.catalog !== undefined && t.schema === undefined) throw unsupported('a catalog without a schema', this.engine);
    return [t.catalog, t.schema, t.table]
      .filter((p): p is string => p !== undefined)
      .map((p) => this.quoteIdentifier(p))
      .join('.');
  }

  castType(type: JType): string | undefined {
    return trinoTypeName(type);
  }

  override cast(sql: string, from: JType, to: JType): string {
    if (to.kind === 'decimal' && to.precision === undefined) {
      // an unbounded numeric: a decimal stays as it is, an integer gets room for all its digits
      if (from.kind === 'decimal') return sql;
      if (isInteger(from)) return `CAST(${sql} AS DECIMAL(${from.kind === 'int16' ? 5 : from.kind === 'int32' ? 10 : 19},0))`;
    }
    if (to.kind === 'string' && to.fixed && to.length !== undefined) {
      // char(n): cut to n, then compared without its pad blanks, like a char(n) column
      return `RTRIM(CAST(CAST(${sql} AS CHAR(${to.length})) AS VARCHAR), ${BLANK})`;
    }
    return super.cast(sql, from, to);
  }

  override column(alias: string, column: string, type: JType): string {
    const sql = super.column(alias, column, type);
    return type.kind === 'string' && type.fixed ? `RTRIM(CAST(${sql} AS VARCHAR), ${BLANK})` : sql;
  }

  override literal(value: Value, type: JType, _bind: (v: Value) => string): string {
    return trinoLiteral(value, type);
  }

  override nullLiteral(type: JType): string {
    return nullLiteral(type);
  }

  override likeOperand(sql: string, type: JType): string {
    // PostgreSQL matches bpchar blank-padded to its length: 'ab'::char(4) LIKE 'ab' is false
    return type.fixed && type.length !== undefined ? `RPAD(${sql}, ${type.length}, ${BLANK})` : sql;
  }

  override aggregate(fn: AggFn, distinct: boolean, sql: readonly string[], args: readonly RemoteExpr[], type: JType): string {
    if (fn === 'sum' && args[0]?.type.kind === 'int64') return `SUM(${distinct ? 'DISTINCT ' : ''}CAST(${sql[0]} AS DECIMAL(38,0)))`;
    if (fn === 'string_agg' || fn === 'avg') throw unsupported(`aggregate ${fn}`, this.engine);
    return super.aggregate(fn, distinct, sql, args, type);
  }

  override orderKeys(sql: string, desc: boolean, nullsFirst: boolean): string[] {
    return [`${sql} ${desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`];
  }

  override assemble(p: SelectParts): string {
    return super.assemble(this.orderByOutputs(p));
  }

  /**
   * Trino resolves a name in ORDER BY against the output columns first, qualified names too:
   * with an output column "nation", ORDER BY "nation"."n_name" dereferences that varchar as a
   * row and fails (TYPE_MISMATCH) where PostgreSQL reads the table "nation". When a key names
   * an output column that way, keys the select list holds sort by its ordinal, and any other
   * key becomes a hidden column of a derived table that the outer query sorts by.
   */
  private orderByOutputs(p: SelectParts): SelectParts {
    if (p.orderBy.length === 0) return p;
    const items = p.select.map((s) => /^([\s\S]*) AS ("(?:[^"]|"")*")$/.exec(s));
    const shadowed = (sql: string) => items.some((m) => m !== null && sql.includes(`${m[2]}.`));
    const keys = p.orderBy.map((k) => /^([\s\S]*) ((?:ASC|DESC) NULLS (?:FIRST|LAST))$/.exec(k));
    if (!keys.some((k) => k !== null && shadowed(k[1]))) return p;
    if (keys.some((k) => k === null) || items.some((m) => m === null))
      throw unsupported('an ORDER BY naming a table like an output column', this.engine);
    const hidden: string[] = [];
    const orderBy = keys.map((k) => {
      const [, sql, direction] = k!;
      const i = items.findIndex((m) => m![1] === sql);
      if (i >= 0) return `${i + 1} ${direction}`;
      const name = this.quoteIdentifier(`_j_order_${hidden.length + 1}`);
      hidden.push(`${sql} AS ${name}`);
      return `${name} ${direction}`;
    });
    if (hidden.length === 0) return { ...p, orderBy };
    // SELECT DISTINCT sorts only by what it selects: a hidden key would change which rows are distinct
    if (p.distinct) throw unsupported('SELECT DISTINCT ordered by a key it does not select', this.engine);
    const alias = this.quoteIdentifier('_j_sorted');
    const inner = super.assemble({ ...p, select: [...p.select, ...hidden], orderBy: [], limit: undefined, offset: undefined });
    return {
      distinct: false,
      select: items.map((m) => `${alias}.${m![2]} AS ${m![2]}`),
      from: `(${inner}) ${alias}`,
      groupBy: [],
      orderBy,
      limit: p.limit,
      offset: p.offset,
    };
  }

  protected override limitOffsetClause(limit: number | undefined, offset: number | undefined): string {
    let s = '';
    if (offset !== undefined && offset > 0) s += ` OFFSET ${offset}`;
    if (limit !== undefined) s += ` LIMIT ${limit}`;
    return s;
  }
}
