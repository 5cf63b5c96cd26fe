import { JunctionError } from '@junction/connectors';

/** PostgreSQL's words and condition name (SQLSTATE 21000) for a scalar subquery that yields two rows. */
export const SUBQUERY_ROWS = {
  code: 'cardinality_violation',
  message: 'more than one row returned by a subquery used as an expression',
} as const;

export function subqueryRowsError(): JunctionError {
  return new JunctionError(SUBQUERY_ROWS.code, 'user', SUBQUERY_ROWS.message);
}
