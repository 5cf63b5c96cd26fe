import type { Capabilities } from '../contract/capabilities.js';
import type { SourceSemantics } from '../contract/catalog.js';
import type { TypeKind } from '../contract/types.js';
import { exactCollationFor } from './dialect.js';

const NUMBERS: readonly TypeKind[] = ['int16', 'int32', 'int64', 'decimal', 'float64', 'null'];
/** float32 is left out: MySQL computes FLOAT in double precision, PostgreSQL's real in single. */
const COMPARABLE: readonly TypeKind[] = ['bool', 'int16', 'int32', 'int64', 'decimal', 'float64', 'date', 'time', 'timestamp', 'null'];

/**
 * MySQL / MariaDB. Strings are exact only once the probe has told us the server flavour, so
 * the dialect can bring every string to a NO PAD binary collation (MariaDB utf8mb4_nopad_bin,
 * MySQL 8 utf8mb4_0900_bin). Left out on purpose:
 * - avg: MySQL's scale is the argument's + div_precision_increment (4); PostgreSQL's differs.
 * - div and mod: DIV and MOD by zero give NULL here where PostgreSQL raises division_by_zero,
 *   and no data says a divisor is non-zero (on decimals DIV also has the avg scale rule).
 * - add/sub on dates: `date + 1` is the number 19950302 in MySQL.
 * - lower/upper/ilike: Unicode case tables differ from PostgreSQL's.
 * - greatest/least: MySQL returns NULL when any argument is NULL; PostgreSQL ignores NULLs.
 * - full join: MySQL has none.
 * - casts other than to date: CAST('12abc' AS SIGNED) is 12 here and an error in PostgreSQL.
 *   An integer widened to decimal is exact (its digits as they are), so that one is declared:
 *   TPC-H's sum(ps_supplycost * ps_availqty) multiplies a decimal by an integer.
 * Integer overflow gives a wider result here where PostgreSQL raises an error: the rows of a
 * query that succeeds are the same.
 */
export function capabilitiesFor(semantics?: SourceSemantics): Capabilities {
  const exact = exactCollationFor(semantics).noPad;
  const cmp: readonly TypeKind[] = exact ? [...COMPARABLE, 'string'] : COMPARABLE;
  const strings: readonly TypeKind[] = ['string', 'null'];
  const f = { argKinds: cmp };
  return {
    functions: {
      eq: f, ne: f, lt: f, le: f, gt: f, ge: f,
      is_distinct_from: f, is_not_distinct_from: f,
      and: true, or: true, not: true,
      is_null: true, is_not_null: true,
      coalesce: f, nullif: f,
      add: { argKinds: NUMBERS }, sub: { argKinds: NUMBERS }, mul: { argKinds: NUMBERS },
      neg: { argKinds: NUMBERS }, abs: { argKinds: NUMBERS },
      round: { argKinds: ['decimal', 'int32', 'null'] },
      floor: { argKinds: ['decimal', 'null'] }, ceil: { argKinds: ['decimal', 'null'] },
      concat: { argKinds: strings },
      length: { argKinds: strings },
      ...(exact
        ? {
            like: { argKinds: strings },
            position: { argKinds: strings },
            replace: { argKinds: strings },
          }
        : {}),
      date_part: { argKinds: ['string', 'date', 'timestamp'] },
    },
    aggregates: { count: true, count_star: true, sum: true, min: true, max: true },
    distinctAggregates: true,
    joins: { inner: true, left: true, right: true, cross: true },
    in: true,
    case: true,
    casts: ['date'],
    castsFrom: { decimal: ['int16', 'int32', 'int64'] },
    groupBy: true,
    having: true,
    distinct: true,
    orderBy: true,
    nullsOrdering: true,
    limit: true,
    offset: true,
    subqueryInFrom: true,
    existsSubquery: true,
    // window functions: MariaDB 10.2 and MySQL 8.0 on
    windowFunctions: mariadbAtLeast(semantics, 10, 2) || mysqlAtLeast8(semantics) ? { row_number: true, rank: true, dense_rank: true, lag: true, lead: true, first_value: true, last_value: true, ntile: true } : {},
    // INTERSECT and EXCEPT with their ALL forms: MariaDB 10.5 on (MySQL 8.0.31 too, not relied on)
    setOps: mariadbAtLeast(semantics, 10, 5)
      ? { union: true, union_all: true, intersect: true, intersect_all: true, except: true, except_all: true }
      : { union: true, union_all: true },
    exactStringEquality: exact,
    exactStringOrdering: exact,
    caseSensitiveLike: exact,
    maxBindParams: Math.min(semantics?.maxBindParams ?? 65535, 65535),
    maxInList: 1000,
    arrayKeySets: [],
    maxIdentifierLength: semantics?.maxIdentifierLength ?? 64,
  };
}

/** A MariaDB server at least major.minor, read from the probed version ("10.11.6-MariaDB-…"). */
function mariadbAtLeast(semantics: SourceSemantics | undefined, major: number, minor: number): boolean {
  const v = semantics?.serverVersion ?? '';
  const m = /^(\d+)\.(\d+)/.exec(v);
  if (!m || !/mariadb/i.test(v)) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}

function mysqlAtLeast8(semantics: SourceSemantics | undefined): boolean {
  const v = semantics?.serverVersion ?? '';
  return !/mariadb/i.test(v) && Number(/^(\d+)\./.exec(v)?.[1] ?? 0) >= 8;
}
