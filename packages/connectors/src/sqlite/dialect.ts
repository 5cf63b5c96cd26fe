import type { SourceSemantics } from '../contract/catalog.js';
import { JunctionError } from '../contract/errors.js';
import type { FnContext } from '../sql/dialect.js';
import { BASE_FUNCTIONS, Dialect, dateField, isInteger, unsupported } from '../sql/dialect.js';
import type { JType, Value } from '../contract/types.js';

/**
 * A PostgreSQL LIKE pattern (escape '\') as a GLOB pattern: SQLite's LIKE ignores ASCII case,
 * GLOB does not. GLOB's own wildcards in the text become one-character classes.
 */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      i++;
      if (i >= pattern.length) throw new JunctionError('like_trailing_escape', 'user', 'LIKE pattern must not end with escape character');
      out += globLiteral(pattern[i]);
    } else if (ch === '%') out += '*';
    else if (ch === '_') out += '?';
    else out += globLiteral(ch);
  }
  return out;
}

function globLiteral(ch: string): string {
  return ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch;
}

function like(c: FnContext): string {
  const p = c.args[1];
  if (p?.kind !== 'literal' || (p.value !== null && typeof p.value !== 'string')) throw unsupported('LIKE with a non-literal pattern', 'sqlite');
  if (p.value === null) return `(${c.sql[0]} GLOB NULL)`;
  return `(${c.sql[0]} GLOB ${c.bind(likeToGlob(p.value), p.type)})`;
}

function divide(c: FnContext): string {
  if (!c.args.every((a) => isInteger(a.type))) throw unsupported('non-integer division', 'sqlite');
  return `(${c.sql[0]} / ${c.sql[1]})`;
}

function datePart(c: FnContext): string {
  const x = c.sql[1];
  const part = (f: string): string => `CAST(STRFTIME('${f}', ${x}) AS INTEGER)`;
  switch (dateField(c, 'sqlite')) {
    case 'year':
      return part('%Y');
    case 'quarter':
      return `((${part('%m')} + 2) / 3)`;
    case 'month':
      return part('%m');
    case 'day':
      return part('%d');
    case 'hour':
      return part('%H');
    case 'minute':
      return part('%M');
    case 'dow':
      return part('%w');
    case 'doy':
      return part('%j');
    case 'second':
      throw unsupported("date_part('second')", 'sqlite');
  }
}

const SQLITE_FUNCTIONS = {
  ...BASE_FUNCTIONS,
  div: divide,
  is_distinct_from: '({0} IS NOT {1})',
  is_not_distinct_from: '({0} IS {1})',
  like,
  position: 'INSTR({1}, {0})',
  date_part: datePart,
  ilike: undefined,
  starts_with: undefined,
  date_trunc: undefined,
  make_date: undefined,
  trunc: undefined,
  ceil: undefined,
  floor: undefined,
  power: undefined,
  sqrt: undefined,
  lpad: undefined,
  rpad: undefined,
  left: undefined,
  right: undefined,
  current_date: undefined,
  current_timestamp: undefined,
  greatest: undefined,
  least: undefined,
};

function versionAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return true; // the bundled better-sqlite3 engine is far newer than any threshold used here
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
}

/**
 * SQLite with its default BINARY collation (memcmp of UTF-8, i.e. code-point order, trailing
 * blanks significant). CHAR(n) is not padded or trimmed by SQLite, so char columns are read
 * through RTRIM to get bpchar's "trailing blanks do not count".
 */
export class SqliteDialect extends Dialect {
  readonly engine = 'sqlite' as const;
  override readonly functions = SQLITE_FUNCTIONS;
  override readonly joinKeywords;
  override readonly nativeNullsOrdering: boolean;

  constructor(semantics?: SourceSemantics) {
    super();
    const modernJoins = versionAtLeast(semantics?.serverVersion, 3, 39);
    this.joinKeywords = modernJoins
      ? { inner: 'INNER JOIN', left: 'LEFT JOIN', right: 'RIGHT JOIN', full: 'FULL JOIN', cross: 'CROSS JOIN' }
      : { inner: 'INNER JOIN', left: 'LEFT JOIN', cross: 'CROSS JOIN' };
    this.nativeNullsOrdering = versionAtLeast(semantics?.serverVersion, 3, 30);
  }

  quoteIdentifier(name: string): string {
    this.checkIdentifier(name);
    return `"${name.replace(/"/g, '""')}"`;
  }

  placeholder(_n: number): string {
    return '?';
  }

  castType(type: JType): string | undefined {
    switch (type.kind) {
      case 'int16':
      case 'int32':
      case 'int64':
      case 'bool':
        return 'INTEGER';
      case 'float32':
      case 'float64':
        return 'REAL';
      case 'string':
        return 'TEXT';
      default:
        return undefined;
    }
  }

  override column(alias: string, column: string, type: JType): string {
    const sql = super.column(alias, column, type);
    return type.kind === 'string' && type.fixed ? `RTRIM(${sql})` : sql;
  }

  override literal(value: Value, type: JType, bind: (v: Value) => string): string {
    if (typeof value === 'boolean') return bind(value ? 1 : 0);
    // A JS number binds as REAL, and REAL / INTEGER is not integer division: bind integers as bigint.
    if ((type.kind === 'int16' || type.kind === 'int32') && typeof value === 'number' && Number.isInteger(value)) return bind(BigInt(value));
    if (type.kind === 'string' && type.fixed && typeof value === 'string') return bind(value.replace(/ +$/, ''));
    return bind(value);
  }

  override likeOperand(sql: string, type: JType): string {
    // PostgreSQL matches bpchar blank-padded to its length: 'ab'::char(4) LIKE 'ab' is false.
    if (!type.fixed || type.length === undefined) return sql;
    return `SUBSTR(${sql} || PRINTF('%${type.length}s', ''), 1, ${type.length})`;
  }

  override orderKeys(sql: string, desc: boolean, nullsFirst: boolean): string[] {
    if (!this.nativeNullsOrdering) return super.orderKeys(sql, desc, nullsFirst);
    const dir = desc ? 'DESC' : 'ASC';
    // SQLite sorts NULLs low: spell the placement whenever it differs from that.
    return nullsFirst !== desc ? [`${sql} ${dir}`] : [`${sql} ${dir} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`];
  }

  protected override limitOffsetClause(limit: number | undefined, offset: number | undefined): string {
    if (limit === undefined && offset !== undefined && offset > 0) return ` LIMIT -1 OFFSET ${offset}`;
    return super.limitOffsetClause(limit, offset);
  }
}
