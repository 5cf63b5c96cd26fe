import type { Capabilities, FunctionSupport } from '../contract/capabilities.js';
import type { ScalarFn } from '../contract/functions.js';
import type { TypeKind } from '../contract/types.js';

const INTEGERS: readonly TypeKind[] = ['int16', 'int32', 'int64', 'null'];
const EXACT_NUMBERS: readonly TypeKind[] = ['int16', 'int32', 'int64', 'decimal', 'null'];
const NUMBERS: readonly TypeKind[] = ['int16', 'int32', 'int64', 'decimal', 'float32', 'float64', 'null'];
const STRINGS: readonly TypeKind[] = ['string', 'null'];
const COMPARABLE: readonly TypeKind[] = [
  'bool', 'int16', 'int32', 'int64', 'decimal', 'float32', 'float64', 'string',
  'date', 'time', 'timestamp', 'timestamptz', 'uuid', 'null',
];

/**
 * What Trino computes with Junction's meaning, checked against Trino 476. Trino's own string
 * semantics are Junction's (varchar compares by code point, case- and blank-sensitive) and
 * its connectors keep string predicates, joins and groupings on textual columns away from a
 * MySQL/MariaDB source (collation, PAD SPACE) and range predicates away from PostgreSQL
 * (unless COLLATE "C" pushdown is switched on), so the answer does not depend on the source's
 * collation. char(n) is handled by the dialect (read without its pad blanks). Left out:
 * - avg: Trino's avg of integers is a double and of decimal(p,s) a decimal(p,s), where
 *   PostgreSQL's numeric carries at least 16 significant digits.
 * - div on decimals: Trino's quotient has scale max(s1, s2) (1.00 / 3 = 0.33), PostgreSQL's
 *   at least 16 significant digits. On integers and doubles it is declared: both truncate
 *   toward zero / compute in IEEE double.
 * - round with a scale and round on doubles: Trino keeps the input's scale (round(1.2345, 2) =
 *   1.2300) and rounds doubles half away from zero, PostgreSQL half to even.
 * - power: Java's pow and the C library's may differ in the last bit; sqrt is exact in both.
 * - greatest/least: NULL when any argument is NULL in Trino; PostgreSQL ignores NULLs.
 * - replace: Trino inserts the replacement between every character for an empty search string.
 * - lower/upper/ilike: case mappings differ beyond ASCII (ß), and Trino has no ILIKE.
 * - left/right/lpad/rpad, date_trunc, make_date: no function or different edge cases.
 * - current_date/current_timestamp: the Trino session's clock and zone.
 * - string_agg: order and separator semantics differ (listagg).
 * - casts beyond the ones listed in castsFrom: Trino's text forms of numbers (1.0E0) and its
 *   parsing of strings differ from PostgreSQL's.
 * Integer overflow raises an error in both. Decimals stop at 38 digits in Trino, where a
 * result past that raises an error instead of growing: a query that succeeds has the same rows.
 */
export function trinoCapabilities(): Capabilities {
  const cmp: FunctionSupport = { argKinds: COMPARABLE };
  const functions: Partial<Record<ScalarFn, true | FunctionSupport>> = {
    eq: cmp, ne: cmp, lt: cmp, le: cmp, gt: cmp, ge: cmp,
    is_distinct_from: cmp, is_not_distinct_from: cmp,
    and: true, or: true, not: true,
    is_null: true, is_not_null: true,
    coalesce: cmp, nullif: cmp,
    add: { argKinds: NUMBERS }, sub: { argKinds: NUMBERS }, mul: { argKinds: NUMBERS },
    div: { argKinds: ['int16', 'int32', 'int64', 'float64', 'null'] },
    mod: { argKinds: EXACT_NUMBERS },
    neg: { argKinds: NUMBERS }, abs: { argKinds: NUMBERS },
    round: { argKinds: EXACT_NUMBERS, maxArgs: 1 },
    trunc: { argKinds: [...EXACT_NUMBERS, 'float64'], maxArgs: 1 },
    floor: { argKinds: [...EXACT_NUMBERS, 'float64'] },
    ceil: { argKinds: [...EXACT_NUMBERS, 'float64'] },
    sqrt: { argKinds: ['float64', 'null'] },
    concat: { argKinds: STRINGS },
    length: { argKinds: STRINGS },
    substring: { argKinds: ['string', 'int16', 'int32', 'int64', 'null'] },
    trim: { argKinds: STRINGS, maxArgs: 1 },
    ltrim: { argKinds: STRINGS, maxArgs: 1 },
    rtrim: { argKinds: STRINGS, maxArgs: 1 },
    position: { argKinds: STRINGS },
    like: { argKinds: STRINGS },
    starts_with: { argKinds: STRINGS },
    date_part: { argKinds: ['string', 'date', 'timestamp'], literalArgs: [0] },
  };
  return {
    functions,
    aggregates: { count: true, count_star: true, sum: true, min: true, max: true, bool_and: true, bool_or: true },
    distinctAggregates: true,
    joins: { inner: true, left: true, right: true, full: true, cross: true },
    in: true,
    case: true,
    casts: [],
    castsFrom: {
      int16: ['int16'],
      int32: ['int16', 'int32'],
      int64: ['int16', 'int32', 'int64'],
      decimal: INTEGERS.filter((k) => k !== 'null'),
      float64: ['int16', 'int32', 'int64', 'float32', 'float64'],
      date: ['date', 'timestamp'],
      timestamp: ['date', 'timestamp'],
      string: ['string'],
    },
    groupBy: true,
    having: true,
    distinct: true,
    orderBy: true,
    nullsOrdering: true,
    limit: true,
    offset: true,
    subqueryInFrom: true,
    existsSubquery: true,
    setOps: { union: true, union_all: true, intersect: true, intersect_all: true, except: true, except_all: true },
    windowFunctions: { row_number: true, rank: true, dense_rank: true, lag: true, lead: true, first_value: true, last_value: true, ntile: true },
    exactStringEquality: true,
    exactStringOrdering: true,
    caseSensitiveLike: true,
    // values are spliced into the text, so no protocol limit; the IN list size keeps statements readable
    maxBindParams: 65535,
    maxInList: 1000,
    arrayKeySets: [],
    // Trino lower-cases every identifier; names themselves are not limited
    maxIdentifierLength: 1024,
  };
}
