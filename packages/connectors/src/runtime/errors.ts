import { JunctionError } from '../contract/errors.js';

const WORD = /[\p{L}\p{N}_]/u;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Masks every secret where it stands as a value of its own. An occurrence glued to letters,
 * digits or underscores is part of a longer name (database "mdb_junction" with the password
 * "junction") and is left alone: masking it would garble the name and, by showing where the
 * stars are, hint at the password. Strings in `keep` (the source's own name, which the user
 * chose and sees everywhere) are never rewritten, even when they equal a secret.
 */
export function redact(
  text: string,
  secrets: readonly (string | undefined)[],
  keep: readonly (string | undefined)[] = [],
): string {
  const kept = keep.filter((k): k is string => !!k);
  let out = '';
  let from = 0;
  // the kept strings cut the text into pieces; only the pieces between them are masked
  const keeper = kept.length
    ? new RegExp([...kept].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'gu')
    : undefined;
  for (const m of keeper ? text.matchAll(keeper) : []) {
    out += maskPiece(text.slice(from, m.index), secrets) + m[0];
    from = m.index + m[0].length;
  }
  return out + maskPiece(text.slice(from), secrets);
}

function maskPiece(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (!s) continue;
    const before = WORD.test(s[0]!) ? '(?<![\\p{L}\\p{N}_])' : '';
    const after = WORD.test(s[s.length - 1]!) ? '(?![\\p{L}\\p{N}_])' : '';
    out = out.replace(new RegExp(before + escapeRegExp(s) + after, 'gu'), '***');
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
  const raw = redact(driverMessage(err), secrets, [source]);
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

/** A socket-level error code (ECONNRESET, EPIPE, ETIMEDOUT…), never a SQLSTATE or a server's error number. */
export function isSocketError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/**
 * The connection under a running statement broke (reset, network timeout): the statement did
 * not fail, its transport did. Same code as any source failure, but worded so a person knows a
 * retry may well succeed and where to look if it does not; the driver's words stay in it.
 */
export function connectionBrokeError(
  source: string,
  err: unknown,
  secrets: readonly (string | undefined)[],
  what = 'query',
): JunctionError {
  if (err instanceof JunctionError) return err;
  const e = sourceError(source, err, secrets, what);
  const raw = e.cause instanceof Error ? e.cause.message : '';
  return new JunctionError(
    e.code,
    e.kind,
    `Source "${source}" failed the ${what}: the connection to its server broke (${raw}); the network or the server dropped it. Run the query again; if this keeps happening, check the network path to the server.`,
    { cause: e.cause, details: e.details },
  );
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

/**
 * The server refused a new connection because all of its connections are taken (MySQL/MariaDB
 * errno 1040, PostgreSQL SQLSTATE 53300), else undefined. Not `source_unavailable`: the source
 * is up and answers, only full, so it must not be marked offline, and retrying soon can work:
 * a 503 with Retry-After rather than a 502.
 */
export function connectionLimitError(source: string, err: unknown): JunctionError | undefined {
  const e = err as { errno?: unknown; code?: unknown } | null;
  const driverCode =
    e?.errno === 1040 || e?.code === 'ER_CON_COUNT_ERROR' ? '1040' : e?.code === '53300' ? '53300' : undefined;
  if (!driverCode) return undefined;
  return new JunctionError(
    'source_too_many_connections',
    'resources',
    `Source "${source}" refused a new connection: all of its server's connections are in use. Try again shortly, or raise the server's connection limit.`,
    { details: { source, driverCode, retryAfterSeconds: 1 } },
  );
}
