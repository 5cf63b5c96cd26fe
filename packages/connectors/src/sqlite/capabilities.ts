import type { Capabilities } from '../contract/capabilities.js';
import type { SourceSemantics } from '../contract/catalog.js';
import type { TypeKind } from '../contract/types.js';

/**
 * SQLite stores decimals with NUMERIC affinity, i.e. as REAL whenever they have a fraction, so
 * nothing over decimals is declared (no arithmetic, no comparison, no sum/avg). Timestamps and
 * times are text whose spelling Junction does not control here, so they are not compared
 * either. Strings are exact under the default BINARY collation (memcmp of UTF-8 = code-point
 * order); CHAR(n) columns are read through RTRIM. LIKE is rendered as GLOB, which is
 * case-sensitive, so only literal patterns can be rendered. Integer division and modulo are
 * not declared: by zero they give NULL here where PostgreSQL raises division_by_zero.
 */
export function capabilitiesFor(semantics?: SourceSemantics): Capabilities {
  const collation = semantics?.defaultCollation ?? 'BINARY';
  const exact = /^binary$/i.test(collation);
  const base: TypeKind[] = ['bool', 'int16', 'int32', 'int64', 'float64', 'date', 'null'];
  const cmp: readonly TypeKind[] = exact ? [...base, 'string'] : base;
  const numbers: readonly TypeKind[] = ['int16', 'int32', 'int64', 'float64', 'null'];
  const strings: readonly TypeKind[] = ['string', 'null'];
  const f = { argKinds: cmp };
  const modern = !/^3\.(\d|[12]\d|3[0-8])\./.test(semantics?.serverVersion ?? '3.99.0');
  return {
    functions: {
      eq: f, ne: f, lt: f, le: f, gt: f, ge: f,
      is_distinct_from: f, is_not_distinct_from: f,
      and: true, or: true, not: true,
      is_null: true, is_not_null: true,
      coalesce: f, nullif: f,
      add: { argKinds: numbers }, sub: { argKinds: numbers }, mul: { argKinds: numbers },
      neg: { argKinds: numbers }, abs: { argKinds: numbers },
      concat: { argKinds: strings },
      length: { argKinds: strings },
      ...(exact ? { like: { argKinds: strings, literalArgs: [1] }, position: { argKinds: strings }, replace: { argKinds: strings } } : {}),
      date_part: { argKinds: ['string', 'date'] },
    },
    aggregates: { count: true, count_star: true, min: true, max: true },
    distinctAggregates: true,
    joins: modern ? { inner: true, left: true, right: true, full: true, cross: true } : { inner: true, left: true, cross: true },
    in: true,
    case: true,
    casts: [],
    castsFrom: {},
    groupBy: true,
    having: true,
    distinct: true,
    orderBy: true,
    nullsOrdering: true,
    limit: true,
    offset: true,
    subqueryInFrom: true,
    existsSubquery: true,
    // window functions since 3.25 (2018); older files are read by an older library only
    windowFunctions: modern ? { row_number: true, rank: true, dense_rank: true, lag: true, lead: true, first_value: true, last_value: true, ntile: true } : {},
    // no INTERSECT ALL / EXCEPT ALL in SQLite
    setOps: { union: true, union_all: true, intersect: true, except: true },
    exactStringEquality: exact,
    exactStringOrdering: exact,
    caseSensitiveLike: exact,
    maxBindParams: semantics?.maxBindParams ?? 32766,
    maxInList: 1000,
    arrayKeySets: [],
    maxIdentifierLength: semantics?.maxIdentifierLength ?? 128,
  };
}
