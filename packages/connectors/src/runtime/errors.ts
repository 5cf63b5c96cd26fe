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
): JunctionError {
  if (err instanceof JunctionError) return err;
  const raw = redact(driverMessage(err), secrets);
  const code = (err as { code?: unknown } | null)?.code;
  const sqlState = typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
  const cause = new Error(raw);
  return new JunctionError('source_error', 'external', `Source "${source}" failed the ${what}: ${raw}`, {
    cause,
    details: { source, ...(sqlState ? { driverCode: sqlState } : {}) },
  });
}
