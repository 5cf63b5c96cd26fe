import type { SourceSemantics } from '../contract/catalog.js';
import type { AggFn } from '../contract/functions.js';
import type { RemoteExpr } from '../contract/remote-query.js';
import type { JType, Value } from '../contract/types.js';
import type { FnContext, SelectParts } from '../sql/dialect.js';
import { BASE_FUNCTIONS, Dialect, dateField, decimalShape } from '../sql/dialect.js';

function datePart(c: FnContext): string {
  const x = c.sql[1];
  switch (dateField(c, 'sqlserver')) {
    case 'year':
      return `DATEPART(year, ${x})`;
    case 'quarter':
      return `DATEPART(quarter, ${x})`;
    case 'month':
      return `DATEPART(month, ${x})`;
    case 'day':
      return `DATEPART(day, ${x})`;
    case 'hour':
      return `DATEPART(hour, ${x})`;
    case 'minute':
      return `DATEPART(minute, ${x})`;
    case 'second':
      return `(DATEPART(second, ${x}) + DATEPART(microsecond, ${x}) / 1000000.0)`;
    case 'dow':
      // DATEPART(weekday) depends on SET DATEFIRST; this is Sunday = 0 under any setting.
      return `((DATEPART(weekday, ${x}) + @@DATEFIRST - 1) % 7)`;
    case 'doy':
      return `DATEPART(dayofyear, ${x})`;
  }
}

const SQLSERVER_FUNCTIONS = {
  ...BASE_FUNCTIONS,
  // SQL Server 2022 has IS [NOT] DISTINCT FROM, older versions do not: INTERSECT treats NULLs as equal.
  is_distinct_from: '(NOT EXISTS (SELECT {0} INTERSECT SELECT {1}))',
  is_not_distinct_from: '(EXISTS (SELECT {0} INTERSECT SELECT {1}))',
  concat: (c: FnContext) => `(${c.sql.join(' + ')})`,
  trunc: (c: FnContext) => `ROUND(${c.sql[0]}, ${c.sql[1] ?? '0'}, 1)`,
  ceil: 'CEILING({0})',
  length: undefined,
  like: `({0} LIKE {1} ESCAPE '\\')`,
  position: 'CHARINDEX({0}, {1})',
  date_part: datePart,
  ilike: undefined,
  starts_with: undefined,
  date_trunc: undefined,
  make_date: 'DATEFROMPARTS({0}, {1}, {2})',
  current_date: 'CAST(GETDATE() AS DATE)',
  current_timestamp: 'SYSDATETIMEOFFSET()',
  lpad: undefined,
  rpad: undefined,
};

/**
 * SQL Server (T-SQL). Predicates are not values here: a boolean in a select list is a BIT
 * built with CASE, and a BIT column used as a condition is compared with 1.
 */
export class SqlServerDialect extends Dialect {
  readonly engine = 'sqlserver' as const;
  override readonly nativeNullsOrdering = false;
  override readonly functions = SQLSERVER_FUNCTIONS;
  override readonly catalogs = true;

  constructor(_semantics?: SourceSemantics) {
    super();
  }

  quoteIdentifier(name: string): string {
    this.checkIdentifier(name);
    return `[${name.replace(/]/g, ']]')}]`;
  }

  override readonly numberedPlaceholders = true;

  placeholder(n: number): string {
    return `@p${n}`;
  }

  castType(type: JType): string | undefined {
    switch (type.kind) {
      case 'bool':
        return 'BIT';
      case 'int16':
        return 'SMALLINT';
      case 'int32':
        return 'INT';
      case 'int64':
        return 'BIGINT';
      case 'decimal':
        return type.precision !== undefined ? `DECIMAL(${Math.min(38, type.precision)},${type.scale ?? 0})` : undefined;
      case 'float32':
        return 'REAL';
      case 'float64':
        return 'FLOAT';
      case 'string':
        if (type.fixed) return `NCHAR(${type.length ?? 1})`;
        return type.length !== undefined && type.length <= 4000 ? `NVARCHAR(${type.length})` : 'NVARCHAR(MAX)';
      case 'date':
        return 'DATE';
      case 'time':
        return `TIME(${Math.min(7, type.precision ?? 6)})`;
      case 'timestamp':
        return `DATETIME2(${Math.min(7, type.precision ?? 6)})`;
      case 'timestamptz':
        return `DATETIMEOFFSET(${Math.min(7, type.precision ?? 6)})`;
      case 'binary':
        return 'VARBINARY(MAX)';
      case 'uuid':
        return 'UNIQUEIDENTIFIER';
      default:
        return undefined;
    }
  }

  override literal(value: Value, type: JType, bind: (v: Value) => string): string {
    switch (type.kind) {
      case 'decimal': {
        const text = String(value);
        const { precision, scale } = decimalShape(text);
        return `CAST(${bind(text)} AS DECIMAL(${Math.min(38, Math.max(precision, scale))},${Math.min(38, scale)}))`;
      }
      case 'int64':
        return `CAST(${bind(String(value))} AS BIGINT)`;
      case 'bool':
        return `CAST(${bind(value === true ? 1 : value === false ? 0 : value)} AS BIT)`;
      case 'float64':
      case 'float32':
      case 'date':
      case 'time':
      case 'timestamp':
      case 'timestamptz':
      case 'uuid':
        return `CAST(${bind(value)} AS ${this.castType({ kind: type.kind })})`;
      default:
        return bind(value);
    }
  }

  override valueAsPredicate(sql: string): string {
    return `(${sql} = 1)`;
  }

  override predicateAsValue(sql: string): string {
    return `CAST(CASE WHEN ${sql} THEN 1 WHEN NOT ${sql} THEN 0 END AS BIT)`;
  }

  override aggregate(fn: AggFn, distinct: boolean, sql: readonly string[], args: readonly RemoteExpr[], type: JType): string {
    const d = distinct ? 'DISTINCT ' : '';
    switch (fn) {
      // COUNT is int (overflows at 2^31); PostgreSQL's count is bigint.
      case 'count_star':
        return 'COUNT_BIG(*)';
      case 'count':
        return `COUNT_BIG(${d}${sql[0]})`;
      case 'sum': {
        // SUM(int) is int here and overflows; PostgreSQL widens int2/int4 to bigint and int8 to numeric.
        const k = args[0].type.kind;
        if (k === 'int16' || k === 'int32') return `SUM(${d}CAST(${sql[0]} AS BIGINT))`;
        if (k === 'int64') return `SUM(${d}CAST(${sql[0]} AS DECIMAL(38,0)))`;
        return `SUM(${d}${sql[0]})`;
      }
      default:
        return super.aggregate(fn, distinct, sql, args, type);
    }
  }

  override assemble(p: SelectParts): string {
    const offset = p.offset ?? 0;
    const top = p.limit !== undefined && offset === 0 ? `TOP (${p.limit}) ` : '';
    let sql = `SELECT ${p.distinct ? 'DISTINCT ' : ''}${top}${p.select.join(', ')} FROM ${p.from}`;
    if (p.where !== undefined) sql += ` WHERE ${p.where}`;
    if (p.groupBy.length > 0) sql += ` GROUP BY ${p.groupBy.join(', ')}`;
    if (p.having !== undefined) sql += ` HAVING ${p.having}`;
    if (offset > 0) {
      // OFFSET … FETCH needs an ORDER BY; without one any order will do.
      sql += ` ORDER BY ${p.orderBy.length > 0 ? p.orderBy.join(', ') : '(SELECT NULL)'} OFFSET ${offset} ROWS`;
      if (p.limit !== undefined) sql += ` FETCH NEXT ${p.limit} ROWS ONLY`;
    } else if (p.orderBy.length > 0) {
      sql += ` ORDER BY ${p.orderBy.join(', ')}`;
    }
    return sql;
  }
}
