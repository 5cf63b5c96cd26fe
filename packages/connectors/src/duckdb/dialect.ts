import type { SourceSemantics } from '../contract/catalog.js';
import type { JType, Value } from '../contract/types.js';
import {
  BASE_FUNCTIONS,
  Dialect,
  dateField,
  decimalShape,
  isInteger,
  unsupported,
  type FnContext,
} from '../sql/dialect.js';

function datePart(c: FnContext): string {
  const field = dateField(c, 'duckdb');
  // DuckDB's 'second' is whole seconds; PostgreSQL's keeps the fraction
  if (field === 'second') return `(DATE_PART('microseconds', ${c.sql[1]}) / 1000000)`;
  // DuckDB answers BIGINT where PostgreSQL answers double precision: the decoder converts to the bound type
  return `DATE_PART('${field}', ${c.sql[1]})`;
}

/** By zero PostgreSQL raises division_by_zero where DuckDB answers NULL: raise it here too. */
function byNonZero(op: string): (c: FnContext) => string {
  // NULL / 0 is NULL in PostgreSQL (the operator is strict): only a value divided by zero raises
  return (c) =>
    `(CASE WHEN ${c.sql[1]} = 0 AND ${c.sql[0]} IS NOT NULL THEN error('division by zero') ELSE ${c.sql[0]} ${op} ${c.sql[1]} END)`;
}

/** PostgreSQL's two-argument lpad/rpad pad with blanks; DuckDB wants the fill spelled. */
function pad(name: string): (c: FnContext) => string {
  return (c) => `${name}(${c.sql[0]}, ${c.sql[1]}, ${c.sql[2] ?? "' '"})`;
}

/**
 * DuckDB compares VARCHAR by its UTF-8 bytes (code-point order, case- and accent-sensitive,
 * trailing blanks significant), so PostgreSQL's C-collation spellings mostly carry over. What
 * differs and is spelled here: LIKE has no default escape character (PostgreSQL's is '\'),
 * NULLs sort last in both directions unless told, a bare `$1` has no type, and DuckDB has no
 * blank-padded char(n) (a char column of another engine's shape is read through RTRIM).
 */
export class DuckdbDialect extends Dialect {
  readonly engine = 'duckdb' as const;
  override readonly numberedPlaceholders = true;

  override readonly functions = {
    ...BASE_FUNCTIONS,
    like: "({0} LIKE {1} ESCAPE '\\')",
    date_part: datePart,
    // `/` on integers answers a double in DuckDB; `//` truncates toward zero like PostgreSQL's integer `/`
    div: (c: FnContext) => {
      if (!c.args.every((a) => isInteger(a.type))) throw unsupported('non-integer division', 'duckdb');
      return byNonZero('//')(c);
    },
    mod: byNonZero('%'),
    lpad: pad('LPAD'),
    rpad: pad('RPAD'),
    // the optional second argument is a set of characters, as in PostgreSQL
    trim: 'TRIM({*})',
    ltrim: 'LTRIM({*})',
    rtrim: 'RTRIM({*})',
    // DuckDB counts a negative start from the end of the string; PostgreSQL counts it before the start
    substring: undefined,
    ilike: undefined,
  };

  constructor(_semantics?: SourceSemantics) {
    super();
  }

  quoteIdentifier(name: string): string {
    this.checkIdentifier(name);
    return `"${name.replace(/"/g, '""')}"`;
  }

  placeholder(n: number): string {
    return `$${n}`;
  }

  castType(type: JType): string | undefined {
    switch (type.kind) {
      case 'bool':
        return 'BOOLEAN';
      case 'int16':
        return 'SMALLINT';
      case 'int32':
        return 'INTEGER';
      case 'int64':
        return 'BIGINT';
      case 'decimal':
        return type.precision !== undefined && type.precision <= 38
          ? `DECIMAL(${type.precision},${type.scale ?? 0})`
          : undefined;
      case 'float32':
        return 'FLOAT';
      case 'float64':
        return 'DOUBLE';
      case 'string':
        return 'VARCHAR';
      case 'date':
        return 'DATE';
      case 'time':
        return 'TIME';
      case 'timestamp':
        return 'TIMESTAMP';
      case 'timestamptz':
        return 'TIMESTAMPTZ';
      case 'binary':
        return 'BLOB';
      case 'json':
        return 'JSON';
      case 'uuid':
        return 'UUID';
      default:
        return undefined;
    }
  }

  /** A bound value's own type: DuckDB would otherwise guess one from the JS value (a number binds as INTEGER or DOUBLE). */
  private paramType(value: Value, type: JType): string | undefined {
    if (type.kind === 'decimal') {
      if (typeof value !== 'string') return 'DOUBLE';
      // DECIMAL without a width means DECIMAL(18,3) in DuckDB: give the value's own digits
      const { precision, scale } = decimalShape(value);
      const p = Math.max(precision, scale + 1);
      if (p > 38) throw unsupported(`decimal literal ${value} wider than 38 digits`, 'duckdb');
      return `DECIMAL(${p},${scale})`;
    }
    if (type.kind === 'unknown' || type.kind === 'null') return undefined;
    return this.castType(type);
  }

  override literal(value: Value, type: JType, bind: (v: Value) => string): string {
    if (type.kind === 'string' && type.fixed && typeof value === 'string')
      return `${bind(value.replace(/ +$/, ''))}::VARCHAR`;
    const name = value === null ? undefined : this.paramType(value, type);
    return name === undefined ? bind(value) : `${bind(value)}::${name}`;
  }

  override nullLiteral(type: JType): string {
    const name = type.kind === 'decimal' ? 'DECIMAL(38,0)' : this.castType(type);
    return name === undefined ? 'NULL' : `NULL::${name}`;
  }

  override cast(sql: string, from: JType, to: JType): string {
    // PostgreSQL's unbounded numeric: an integer fits its own digits exactly
    if (to.kind === 'decimal' && to.precision === undefined && isInteger(from))
      return `CAST(${sql} AS DECIMAL(${from.kind === 'int16' ? 5 : from.kind === 'int32' ? 10 : 19},0))`;
    return super.cast(sql, from, to);
  }

  override column(alias: string, column: string, type: JType): string {
    const sql = super.column(alias, column, type);
    return type.kind === 'string' && type.fixed ? `RTRIM(${sql}, ' ')` : sql;
  }

  override likeOperand(sql: string, type: JType): string {
    // PostgreSQL matches bpchar blank-padded to its length: 'ab'::char(4) LIKE 'ab' is false
    if (!type.fixed || type.length === undefined) return sql;
    return `RPAD(${sql}, ${type.length}, ' ')`;
  }

  override orderKeys(sql: string, desc: boolean, nullsFirst: boolean): string[] {
    // DuckDB's default is NULLS LAST in both directions (PostgreSQL's: NULLS FIRST for DESC): always spell it
    return [`${sql} ${desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`];
  }
}
