import type { Capabilities } from '../contract/capabilities.js';
import type { SourceSemantics } from '../contract/catalog.js';
import type { TypeKind } from '../contract/types.js';

/**
 * Only what the conformance suite ran on DuckDB with PostgreSQL's answer. Left out, and why:
 * substring (a negative start counts from the end in DuckDB), lower, upper and ilike (Unicode
 * case tables differ from PostgreSQL's), sqrt and power (NULL or infinity where PostgreSQL raises an error), round over
 * doubles (DuckDB rounds half away from zero, PostgreSQL half to even), avg (a double over
 * integers and decimals where PostgreSQL answers an exact numeric), casts from strings
 * (DuckDB parses numbers and dates more laxly), date_part/date_trunc over timestamptz and
 * current_date/current_timestamp (the clock and zone of the server). Division and modulo are
 * rendered with a zero check so they raise division_by_zero where DuckDB would answer NULL.
 * Strings are exact: VARCHAR compares by UTF-8 bytes, i.e. by code point, LIKE is case-sensitive.
 */
export function capabilitiesFor(semantics?: SourceSemantics): Capabilities {
  const scalar: readonly TypeKind[] = [
    'bool',
    'int16',
    'int32',
    'int64',
    'decimal',
    'float32',
    'float64',
    'string',
    'date',
    'time',
    'timestamp',
    'timestamptz',
    'null',
  ];
  const exactNumbers: readonly TypeKind[] = ['int16', 'int32', 'int64', 'decimal', 'null'];
  const integers: readonly TypeKind[] = ['int16', 'int32', 'int64', 'null'];
  const strings: readonly TypeKind[] = ['string', 'null'];
  const stringAndInt: readonly TypeKind[] = ['string', 'int16', 'int32', 'int64', 'null'];
  const f = { argKinds: scalar };
  return {
    functions: {
      eq: f,
      ne: f,
      lt: f,
      le: f,
      gt: f,
      ge: f,
      is_distinct_from: f,
      is_not_distinct_from: f,
      and: true,
      or: true,
      not: true,
      is_null: true,
      is_not_null: true,
      coalesce: f,
      nullif: f,
      greatest: f,
      least: f,
      // date + integer is a date in both
      add: { argKinds: [...exactNumbers, 'date'] },
      sub: { argKinds: exactNumbers },
      mul: { argKinds: exactNumbers },
      div: { argKinds: integers },
      mod: { argKinds: exactNumbers },
      neg: { argKinds: exactNumbers },
      abs: { argKinds: exactNumbers },
      sign: { argKinds: exactNumbers },
      round: { argKinds: exactNumbers },
      trunc: { argKinds: exactNumbers, maxArgs: 1 },
      floor: { argKinds: exactNumbers },
      ceil: { argKinds: exactNumbers },
      concat: { argKinds: strings },
      length: { argKinds: strings },
      trim: { argKinds: strings },
      ltrim: { argKinds: strings },
      rtrim: { argKinds: strings },
      left: { argKinds: stringAndInt },
      right: { argKinds: stringAndInt },
      lpad: { argKinds: stringAndInt },
      rpad: { argKinds: stringAndInt },
      like: { argKinds: strings, literalArgs: [1] },
      starts_with: { argKinds: strings },
      position: { argKinds: strings },
      replace: { argKinds: strings },
      date_part: { argKinds: ['string', 'date', 'timestamp'] },
      date_trunc: { argKinds: ['string', 'timestamp'] },
      make_date: { argKinds: integers },
    },
    aggregates: {
      count: true,
      count_star: true,
      min: true,
      max: true,
      sum: true,
      bool_and: true,
      bool_or: true,
      string_agg: true,
    },
    distinctAggregates: true,
    joins: { inner: true, left: true, right: true, full: true, cross: true },
    in: true,
    case: true,
    casts: [],
    // widening an integer keeps every digit (the join of an INTEGER and a BIGINT key needs it)
    castsFrom: { int32: ['int16'], int64: ['int16', 'int32'], decimal: ['int16', 'int32', 'int64'] },
    groupBy: true,
    having: true,
    distinct: true,
    orderBy: true,
    nullsOrdering: true,
    limit: true,
    offset: true,
    subqueryInFrom: true,
    existsSubquery: true,
    windowFunctions: {
      row_number: true,
      rank: true,
      dense_rank: true,
      lag: true,
      lead: true,
      first_value: true,
      last_value: true,
      ntile: true,
    },
    setOps: { union: true, union_all: true, intersect: true, intersect_all: true, except: true, except_all: true },
    exactStringEquality: true,
    exactStringOrdering: true,
    caseSensitiveLike: true,
    maxBindParams: semantics?.maxBindParams ?? 65535,
    maxInList: 1000,
    arrayKeySets: [],
    maxIdentifierLength: semantics?.maxIdentifierLength ?? 1024,
  };
}
