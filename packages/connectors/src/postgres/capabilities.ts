import type { Capabilities } from '../contract/capabilities.js';
import type { SourceSemantics } from '../contract/catalog.js';
import { AGGREGATE_FUNCTIONS, SCALAR_FUNCTIONS, type AggFn, type ScalarFn } from '../contract/functions.js';
import type { TypeKind } from '../contract/types.js';
import { ARRAY_KEY_KINDS } from './dialect.js';

const ALL_CASTS: readonly TypeKind[] = [
  'bool', 'int16', 'int32', 'int64', 'decimal', 'float32', 'float64', 'string',
  'date', 'time', 'timestamp', 'timestamptz', 'interval', 'binary', 'json', 'uuid',
];

/**
 * PostgreSQL is Junction's meaning, so nearly everything is declared. Left out: functions whose
 * answer depends on the source session's clock or TimeZone (current_date/current_timestamp,
 * date_part/date_trunc over timestamptz, date_trunc over date, which PostgreSQL computes as
 * timestamptz). String ordering is exact under any database collation because the dialect adds
 * COLLATE "C" unless the probed collation already orders by code point.
 */
export function capabilitiesFor(semantics?: SourceSemantics): Capabilities {
  const functions: Partial<Record<ScalarFn, true | { argKinds: readonly TypeKind[] }>> = {};
  for (const fn of SCALAR_FUNCTIONS) functions[fn] = true;
  delete functions.current_date;
  delete functions.current_timestamp;
  functions.date_part = { argKinds: ['string', 'date', 'timestamp', 'time', 'interval'] };
  functions.date_trunc = { argKinds: ['string', 'timestamp', 'interval'] };
  const aggregates: Partial<Record<AggFn, true>> = {};
  for (const fn of AGGREGATE_FUNCTIONS) aggregates[fn] = true;
  return {
    functions,
    aggregates,
    distinctAggregates: true,
    joins: { inner: true, left: true, right: true, full: true, cross: true },
    in: true,
    case: true,
    casts: ALL_CASTS,
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
    windowFunctions: { row_number: true, rank: true, dense_rank: true, lag: true, lead: true, first_value: true, last_value: true, ntile: true },
    setOps: { union: true, union_all: true, intersect: true, intersect_all: true, except: true, except_all: true },
    exactStringEquality: true,
    exactStringOrdering: true,
    caseSensitiveLike: true,
    maxBindParams: Math.min(semantics?.maxBindParams ?? 65535, 65535),
    maxInList: 1000,
    arrayKeySets: ARRAY_KEY_KINDS,
    maxIdentifierLength: semantics?.maxIdentifierLength ?? 63,
  };
}
