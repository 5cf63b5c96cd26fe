import { isJunctionError } from '@junction/connectors';
import type { WireError } from './messages.js';

/**
 * Junction's error codes as SQLSTATEs. Most engine codes already are PostgreSQL's condition
 * names; sources' failures use class HV (foreign data wrapper errors), since drivers and pools
 * read class 08 as "this connection is broken" and would drop a healthy session.
 */
const BY_CODE: Record<string, string> = {
  syntax_error: '42601',
  read_only_sql_transaction: '25006',
  feature_not_supported: '0A000',
  duplicate_prepared_statement: '42P05',
  undefined_prepared_statement: '26000',
  duplicate_cursor: '42P03',
  undefined_cursor: '34000',
  no_active_sql_transaction: '25P01',
  unsupported_multiple_statements: '42601',
  unknown_table: '42P01',
  undefined_table: '42P01',
  view_not_found: '42P01',
  undefined_column: '42703',
  ambiguous_column: '42702',
  undefined_function: '42883',
  undefined_object: '42704',
  unknown_source: '3F000',
  source_not_found: '3F000',
  datatype_mismatch: '42804',
  cannot_coerce: '42846',
  indeterminate_datatype: '42P18',
  division_by_zero: '22012',
  numeric_value_out_of_range: '22003',
  invalid_text_representation: '22P02',
  bad_decimal_literal: '22P02',
  invalid_datetime_format: '22007',
  datetime_field_overflow: '22008',
  invalid_parameter_value: '22023',
  invalid_escape_sequence: '22025',
  like_trailing_escape: '22025',
  substring_error: '22011',
  cardinality_violation: '21000',
  missing_parameter: '08P01',
  statement_too_complex: '54001',
  forbidden: '42501',
  source_not_allowed: '42501',
  query_cancelled: '57014',
  query_timeout: '57014',
  client_disconnected: '57014',
  query_closed: '57014',
  source_unavailable: 'HV00N',
  source_error: 'HV000',
  source_closed: 'HV000',
  source_too_many_connections: '53300',
  server_busy: '53300',
  user_concurrency_limit: '53300',
  disk_full: '53100',
  shutting_down: '57P01',
  metadata_unavailable: '58000',
  bad_credentials: '28P01',
  account_locked: '28000',
  too_many_attempts: '28000',
  unauthenticated: '28000',
};
const BY_KIND: Record<string, string> = {
  user: '22000',
  unsupported: '0A000',
  forbidden: '42501',
  auth: '28000',
  not_found: '42704',
  conflict: '55000',
  timeout: '57014',
  cancelled: '57014',
  resources: '54000',
  external: 'HV000',
};

/** An error as an ErrorResponse; `offset` is where the statement starts in the client's SQL. */
export function wireErrorOf(e: unknown, offset = 0): WireError {
  if (isJunctionError(e)) {
    const sqlstate = BY_CODE[e.code] ?? BY_KIND[e.kind] ?? 'XX000';
    const message =
      e.code === 'query_timeout'
        ? `canceling statement due to statement timeout: ${e.message}`
        : e.code === 'query_cancelled'
          ? `canceling statement due to user request: ${e.message}`
          : e.kind === 'internal'
            ? 'Junction failed internally; the server log has the details.'
            : e.message;
    return {
      sqlstate,
      message,
      detail: `Junction error code: ${e.code}`,
      ...(e.position ? { position: offset + e.position.offset + 1 } : {}),
    };
  }
  return { sqlstate: 'XX000', message: 'Junction failed internally; the server log has the details.' };
}
