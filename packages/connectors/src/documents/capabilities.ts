import { NO_CAPABILITIES, type Capabilities } from '../contract/capabilities.js';
import type { TypeKind } from '../contract/types.js';

/**
 * A documents source evaluates pushed predicates itself while it reads (documents/filter.ts),
 * so it declares exactly what that evaluator computes with Junction's meaning: comparisons
 * (decimals digit by digit, strings by code point, timestamps in time order), AND/OR/NOT,
 * IS [NOT] NULL, IN lists and key sets, and LIMIT, which stops the read. No joins, grouping,
 * ordering or arithmetic: Junction does those above the scan. json has no comparison in
 * PostgreSQL and is left out.
 */
const COMPARABLE: readonly TypeKind[] = [
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
  'uuid',
  'null',
];

export function documentsCapabilities(): Capabilities {
  const f = { argKinds: COMPARABLE };
  return {
    ...NO_CAPABILITIES,
    functions: {
      eq: f,
      ne: f,
      lt: f,
      le: f,
      gt: f,
      ge: f,
      and: true,
      or: true,
      not: true,
      is_null: true,
      is_not_null: true,
    },
    in: true,
    limit: true,
    exactStringEquality: true,
    exactStringOrdering: true,
    // parameters only become text in the query: no driver limit, just a bound on its size
    maxBindParams: 65_535,
    maxInList: 10_000,
    arrayKeySets: [],
    maxIdentifierLength: 1024,
  };
}
