import type { Capabilities } from '../contract/capabilities.js';
import type { SourceSemantics } from '../contract/catalog.js';
import type { TypeKind } from '../contract/types.js';

/**
 * SQL Server compares strings PAD SPACE under every collation ('a' = 'a ' is true even with
 * a _BIN2 collation), and its default collations ignore case, so no string comparison, LIKE or
 * string function is declared. Declared arithmetic stays where T-SQL's result is PostgreSQL's:
 * integer `/` truncates, decimal add/sub is exact (multiplication may reduce the scale past
 * 38 digits, so it is left out), and COUNT/SUM are rendered widened (COUNT_BIG, SUM over
 * BIGINT) so they cannot overflow where PostgreSQL does not. avg(int) truncates here: left out.
 */
export function capabilitiesFor(semantics?: SourceSemantics): Capabilities {
  const cmp: readonly TypeKind[] = ['bool', 'int16', 'int32', 'int64', 'decimal', 'float64', 'date', 'time', 'timestamp', 'null'];
  const integers: readonly TypeKind[] = ['int16', 'int32', 'int64', 'null'];
  const f = { argKinds: cmp };
  return {
    functions: {
      eq: f, ne: f, lt: f, le: f, gt: f, ge: f,
      is_distinct_from: f, is_not_distinct_from: f,
      and: true, or: true, not: true,
      is_null: true, is_not_null: true,
      coalesce: f, nullif: f,
      add: { argKinds: ['int16', 'int32', 'int64', 'decimal', 'null'] },
      sub: { argKinds: ['int16', 'int32', 'int64', 'decimal', 'null'] },
      mul: { argKinds: integers },
      div: { argKinds: integers },
      mod: { argKinds: integers },
      neg: { argKinds: ['int16', 'int32', 'int64', 'decimal', 'float64', 'null'] },
      abs: { argKinds: ['int16', 'int32', 'int64', 'decimal', 'float64', 'null'] },
      date_part: { argKinds: ['string', 'date', 'timestamp'] },
    },
    aggregates: { count: true, count_star: true, sum: true, min: true, max: true },
    distinctAggregates: true,
    joins: { inner: true, left: true, right: true, full: true, cross: true },
    in: true,
    case: true,
    casts: ['date'],
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
    // no INTERSECT ALL / EXCEPT ALL in T-SQL
    setOps: { union: true, union_all: true, intersect: true, except: true },
    exactStringEquality: false,
    exactStringOrdering: false,
    caseSensitiveLike: false,
    maxBindParams: Math.min(semantics?.maxBindParams ?? 2100, 2100),
    maxInList: 1000,
    arrayKeySets: [],
    maxIdentifierLength: semantics?.maxIdentifierLength ?? 128,
  };
}
