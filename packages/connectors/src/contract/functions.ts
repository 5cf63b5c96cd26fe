/**
 * The closed set of scalar functions and aggregates that cross the query-core/connector
 * boundary. query-core evaluates every one of them itself with PostgreSQL's meaning; a
 * connector that declares one in its capabilities promises to render it with that same
 * meaning in its dialect.
 */
export const SCALAR_FUNCTIONS = [
  // comparison (strings compare by code point, case-sensitively; char(n) ignores trailing blanks)
  'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'is_distinct_from', 'is_not_distinct_from',
  // logic (three-valued)
  'and', 'or', 'not',
  // nulls
  'is_null', 'is_not_null', 'coalesce', 'nullif',
  // arithmetic: integer division truncates toward zero; decimal arithmetic is exact
  'add', 'sub', 'mul', 'div', 'mod', 'neg', 'abs', 'round', 'trunc', 'floor', 'ceil', 'power', 'sqrt', 'sign',
  // strings: like/ilike take (value, pattern) with '\' as escape
  'concat', 'lower', 'upper', 'length', 'substring', 'trim', 'ltrim', 'rtrim', 'replace', 'position',
  'left', 'right', 'lpad', 'rpad', 'like', 'ilike', 'starts_with',
  // dates and times: date_part/date_trunc take the field as a string literal first argument
  'date_part', 'date_trunc', 'current_date', 'current_timestamp', 'make_date',
  // conditional
  'greatest', 'least',
] as const;
export type ScalarFn = (typeof SCALAR_FUNCTIONS)[number];

export const AGGREGATE_FUNCTIONS = ['count', 'count_star', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'string_agg'] as const;
export type AggFn = (typeof AGGREGATE_FUNCTIONS)[number];

export const WINDOW_FUNCTIONS = ['row_number', 'rank', 'dense_rank', 'lag', 'lead', 'first_value', 'last_value', 'ntile'] as const;
export type WindowFn = (typeof WINDOW_FUNCTIONS)[number];

export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'cross' | 'semi' | 'anti';
