import { JunctionError } from '../contract/errors.js';

/** Replaces every occurrence of a secret so no message we build can leak a password. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s) out = out.split(s).join('***');
  }
  return out;
}

export function cancelledError(source: string): JunctionError {
  return new JunctionError(
    'source_statement_cancelled',
    'cancelled',
    `The statement on source "${source}" was cancelled.`,
    {
      details: { source },
    },
  );
}

export function timeoutError(source: string, timeoutMs?: number): JunctionError {
  const after = timeoutMs !== undefined ? ` after ${timeoutMs} ms` : '';
  return new JunctionError(
    'source_statement_timeout',
    'timeout',
    `The statement on source "${source}" timed out${after}. Narrow the query or raise the source's statement timeout.`,
    { details: { source, ...(timeoutMs !== undefined ? { timeoutMs } : {}) } },
  );
}

function driverMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/**
 * A failure inside a source, phrased with the source's name. The driver error is kept as
 * `cause` only after its message was redacted, because causes end up in logs.
 */
export function sourceError(
  source: string,
  err: unknown,
  secrets: readonly (string | undefined)[],
  what = 'query',
  userCode?: string,
): JunctionError {
  if (err instanceof JunctionError) return err;
  const raw = redact(driverMessage(err), secrets);
  const code = (err as { code?: unknown } | null)?.code;
  const sqlState = typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
  const cause = new Error(raw);
  // the data, not the source, is at fault: the same error Junction's own evaluation would raise
  const [jcode, kind] = userCode ? [userCode, 'user' as const] : ['source_error', 'external' as const];
  return new JunctionError(jcode, kind, `Source "${source}" failed the ${what}: ${raw}`, {
    cause,
    details: { source, ...(sqlState ? { driverCode: sqlState } : {}) },
  });
}

const PG_DATA_EXCEPTIONS: Record<string, string> = {
  '22012': 'division_by_zero',
  '22P02': 'invalid_text_representation',
  '22003': 'numeric_value_out_of_range',
};

/** The Junction code of a PostgreSQL data exception (SQLSTATE class 22), else undefined. */
export function pgDataExceptionCode(sqlState: unknown): string | undefined {
  if (typeof sqlState !== 'string' || !sqlState.startsWith('22')) return undefined;
  return PG_DATA_EXCEPTIONS[sqlState] ?? 'data_exception';
}

const MYSQL_DATA_EXCEPTIONS: Record<number, string> = {
  1365: 'division_by_zero', // ER_DIVISION_BY_ZERO
  1292: 'invalid_text_representation', // ER_TRUNCATED_WRONG_VALUE
  1366: 'invalid_text_representation', // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1264: 'numeric_value_out_of_range', // ER_WARN_DATA_OUT_OF_RANGE
  1690: 'numeric_value_out_of_range', // ER_DATA_OUT_OF_RANGE
};

/** The Junction code of a MySQL/MariaDB error number that is a data exception, else undefined. */
export function mysqlDataExceptionCode(errno: unknown): string | undefined {
  return typeof errno === 'number' ? MYSQL_DATA_EXCEPTIONS[errno] : undefined;
}
