import type { SourceSemantics } from '../contract/catalog.js';
import type { FnContext } from '../sql/dialect.js';
import { BASE_FUNCTIONS, Dialect, dateField, decimalShape, isInteger } from '../sql/dialect.js';
import type { RemoteExpr } from '../contract/remote-query.js';
import type { JType, Value } from '../contract/types.js';

/**
 * The collation that gives PostgreSQL's C meaning for varchar: code-point order, case- and
 * accent-sensitive, and NO PAD (trailing blanks count). MariaDB's plain _bin collations are
 * PAD SPACE, so MariaDB needs its _nopad_bin; MySQL 8 has utf8mb4_0900_bin. Older MySQL
 * has neither, and utf8mb4_bin (PAD SPACE) is the closest it gets.
 */
export function exactCollationFor(semantics?: SourceSemantics): { name: string; noPad: boolean } {
  const v = semantics?.serverVersion;
  if (v === undefined) return { name: 'utf8mb4_bin', noPad: false };
  if (/mariadb/i.test(v)) return { name: 'utf8mb4_nopad_bin', noPad: true };
  const major = Number(/^(\d+)\./.exec(v)?.[1] ?? 0);
  return major >= 8 ? { name: 'utf8mb4_0900_bin', noPad: true } : { name: 'utf8mb4_bin', noPad: false };
}

function divide(c: FnContext): string {
  // MySQL's `/` on integers yields a decimal; DIV truncates toward zero as PostgreSQL does.
  return c.args.every((a) => isInteger(a.type)) ? `(${c.sql[0]} DIV ${c.sql[1]})` : `(${c.sql[0]} / ${c.sql[1]})`;
}

function datePart(c: FnContext): string {
  const x = c.sql[1];
  switch (dateField(c, 'mysql')) {
    case 'year':
      return `YEAR(${x})`;
    case 'quarter':
      return `QUARTER(${x})`;
    case 'month':
      return `MONTH(${x})`;
    case 'day':
      return `DAYOFMONTH(${x})`;
    case 'hour':
      return `HOUR(${x})`;
    case 'minute':
      return `MINUTE(${x})`;
    case 'second':
      // MICROSECOND / 1000000 would round to div_precision_increment (4) digits.
      return `(SECOND(${x}) + MICROSECOND(${x}) * 0.000001)`;
    case 'dow':
      return `(DAYOFWEEK(${x}) - 1)`;
    case 'doy':
      return `DAYOFYEAR(${x})`;
  }
}

/** A string column compared with string literals, the shape an index on the column can serve. */
function columnAgainstLiterals(column: RemoteExpr, others: readonly RemoteExpr[]): column is Extract<RemoteExpr, { kind: 'column' }> {
  return (
    column.kind === 'column' &&
    column.type.kind === 'string' &&
    others.every((o) => o.kind === 'literal' && o.type.kind === 'string' && typeof o.value === 'string')
  );
}

const MYSQL_FUNCTIONS = {
  ...BASE_FUNCTIONS,
  // `||` is OR in MySQL's default sql_mode; CONCAT is NULL when any argument is, like `||`.
  concat: 'CONCAT({*})',
  div: divide,
  mod: 'MOD({0}, {1})',
  is_distinct_from: '(NOT ({0} <=> {1}))',
  is_not_distinct_from: '({0} <=> {1})',
  length: 'CHAR_LENGTH({0})',
  trunc: (c: FnContext) => `TRUNCATE(${c.sql[0]}, ${c.sql[1] ?? '0'})`,
  ceil: 'CEILING({0})',
  power: 'POW({0}, {1})',
  position: 'LOCATE({0}, {1})',
  date_part: datePart,
  ilike: undefined,
  starts_with: undefined,
  date_trunc: undefined,
  make_date: undefined,
};

/**
 * MySQL and MariaDB. Every string column and string literal is brought to the exact
 * collation (exactCollationFor), so =, <, LIKE, IN, GROUP BY, DISTINCT, ORDER BY, MIN and MAX
 * all compare by code point no matter what the table's or connection's collation is.
 */
export class MysqlDialect extends Dialect {
  readonly engine = 'mysql' as const;
  override readonly nativeNullsOrdering = false;
  override readonly joinKeywords = { inner: 'INNER JOIN', left: 'LEFT JOIN', right: 'RIGHT JOIN', cross: 'CROSS JOIN' };
  readonly collation: string;
  /**
   * The exact comparison cannot use an index on the column. Where the database's charset is
   * utf8mb4 the plain comparison is added in front: under any collation it is true whenever
   * the exact one is, so it only narrows the rows through the index and never changes the answer.
   */
  private readonly indexFriendly: boolean;
  override readonly functions: typeof MYSQL_FUNCTIONS;

  constructor(semantics?: SourceSemantics) {
    super();
    this.collation = exactCollationFor(semantics).name;
    this.indexFriendly = /^utf8mb4_/i.test(semantics?.defaultCollation ?? '');
    this.functions = { ...MYSQL_FUNCTIONS, eq: (c: FnContext) => this.equality(c) };
  }

  private rawLiteral(e: RemoteExpr, bind: (v: Value, t: JType) => string): string {
    const lit = e as Extract<RemoteExpr, { kind: 'literal' }>;
    const v = lit.value as string;
    return bind(lit.type.fixed ? v.replace(/ +$/, '') : v, lit.type);
  }

  private equality(c: FnContext): string {
    const exact = `(${c.sql[0]} = ${c.sql[1]})`;
    if (!this.indexFriendly) return exact;
    const [a, b] = c.args;
    const [col, other] = columnAgainstLiterals(a, [b]) ? [a, b] : columnAgainstLiterals(b, [a]) ? [b, a] : [undefined, undefined];
    if (col === undefined || other === undefined) return exact;
    return `(${super.column(col.table, col.column, col.type)} = ${this.rawLiteral(other, c.bind)} AND ${exact})`;
  }

  override inList(x: string, list: readonly string[], e: Extract<RemoteExpr, { kind: 'in' }>, bind: (v: Value) => string): string {
    const exact = super.inList(x, list, e, bind);
    if (!this.indexFriendly || e.negated || !columnAgainstLiterals(e.expr, e.list)) return exact;
    const raw = e.list.map((l) => this.rawLiteral(l, bind));
    return `(${super.column(e.expr.table, e.expr.column, e.expr.type)} IN (${raw.join(', ')}) AND ${exact})`;
  }

  quoteIdentifier(name: string): string {
    this.checkIdentifier(name);
    return '`' + name.replace(/`/g, '``') + '`';
  }

  placeholder(_n: number): string {
    return '?';
  }

  private exact(sql: string): string {
    return `(CONVERT(${sql} USING utf8mb4) COLLATE ${this.collation})`;
  }

  castType(type: JType): string | undefined {
    switch (type.kind) {
      case 'int16':
      case 'int32':
      case 'int64':
        return 'SIGNED';
      case 'decimal':
        return type.precision !== undefined ? `DECIMAL(${type.precision},${type.scale ?? 0})` : undefined;
      case 'float64':
        return 'DOUBLE';
      case 'string':
        return type.length !== undefined ? `CHAR(${type.length})` : 'CHAR';
      case 'date':
        return 'DATE';
      case 'time':
        return `TIME(${type.precision ?? 6})`;
      case 'timestamp':
        return `DATETIME(${type.precision ?? 6})`;
      case 'binary':
        return 'BINARY';
      default:
        return undefined;
    }
  }

  override cast(sql: string, from: JType, to: JType): string {
    // an integer as an unbounded decimal: DECIMAL(20,0) holds every 64-bit integer's digits
    // (bare DECIMAL would be DECIMAL(10,0) and lose the larger ones)
    if (to.kind === 'decimal' && to.precision === undefined && isInteger(from)) return `CAST(${sql} AS DECIMAL(20,0))`;
    const out = super.cast(sql, from, to);
    return to.kind === 'string' ? this.exact(out) : out;
  }

  override column(alias: string, column: string, type: JType): string {
    const sql = super.column(alias, column, type);
    // CHAR values come back without their pad blanks, which is bpchar's comparison meaning.
    return type.kind === 'string' ? this.exact(sql) : sql;
  }

  override literal(value: Value, type: JType, bind: (v: Value) => string): string {
    switch (type.kind) {
      case 'string':
        // A char(n) literal compares without its trailing blanks, as MySQL's CHAR columns do.
        return this.exact(bind(type.fixed && typeof value === 'string' ? value.replace(/ +$/, '') : value));
      case 'decimal': {
        const text = String(value);
        const { precision, scale } = decimalShape(text);
        return `CAST(${bind(text)} AS DECIMAL(${Math.min(65, Math.max(precision, scale))},${Math.min(30, scale)}))`;
      }
      case 'int64':
        return `CAST(${bind(String(value))} AS SIGNED)`;
      case 'int16':
      case 'int32':
        return bind(value);
      case 'bool':
        return bind(value === true ? 1 : value === false ? 0 : value);
      case 'float64':
      case 'float32':
        return `CAST(${bind(value)} AS DOUBLE)`;
      case 'date':
        return `CAST(${bind(value)} AS DATE)`;
      case 'time':
        return `CAST(${bind(value)} AS TIME(6))`;
      case 'timestamp':
        return `CAST(${bind(value)} AS DATETIME(6))`;
      default:
        return bind(value);
    }
  }

  override likeOperand(sql: string, type: JType): string {
    // PostgreSQL matches bpchar blank-padded to its length: 'ab'::char(4) LIKE 'ab' is false.
    return type.fixed && type.length !== undefined ? `RPAD(${sql}, ${type.length}, ' ')` : sql;
  }

  protected override limitOffsetClause(limit: number | undefined, offset: number | undefined): string {
    if (limit === undefined && offset !== undefined && offset > 0) return ` LIMIT 18446744073709551615 OFFSET ${offset}`;
    return super.limitOffsetClause(limit, offset);
  }
}
