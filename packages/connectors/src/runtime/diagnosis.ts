import type { ConnectionDiagnosis } from '../contract/connector.js';
import { redact } from './errors.js';

export type FailedDiagnosis = Extract<ConnectionDiagnosis, { ok: false }>;

export interface Target {
  readonly source: string;
  readonly host: string;
  readonly port: number;
  readonly connectTimeoutMs: number;
  readonly secrets: readonly (string | undefined)[];
}

const NETWORK_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
  'ECONNRESET',
]);

/**
 * The socket error code inside a driver error: drivers wrap it (tedious: ESOCKET with a
 * cause; net.connect over several addresses: an AggregateError with `errors`).
 */
function errno(err: unknown, depth = 0): string | undefined {
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== 'object' || depth > 4) return undefined;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return e.code;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const c = errno(inner, depth + 1);
      if (c) return c;
    }
  }
  if (e.cause && e.cause !== err) return errno(e.cause, depth + 1);
  return undefined;
}

export function failed(code: FailedDiagnosis['code'], message: string, hint: string, t: Target): FailedDiagnosis {
    // the source's name is the user's own label, shown everywhere: it is never a secret to mask
  return { ok: false, code, message: redact(message, t.secrets, [t.source]), hint: redact(hint, t.secrets, [t.source]) };
}

/**
 * Socket-level failures mean the same thing for every engine, so they are told apart
 * here; engine-specific errors (authentication, missing database, TLS) are the caller's.
 */
export function diagnoseNetworkError(err: unknown, t: Target): FailedDiagnosis | undefined {
  const code = errno(err);
  const where = `${t.host}:${t.port}`;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return failed(
        'host_unreachable',
        `The host name "${t.host}" of source "${t.source}" could not be resolved.`,
        'Check the spelling of the host name, or use an IP address; the machine running Junction must be able to resolve it.',
        t,
      );
    case 'ECONNREFUSED':
      return failed(
        'port_closed',
        `Nothing accepts connections on ${where} (source "${t.source}"): the connection was refused.`,
        'The host answered but no server listens on that port. Check the port number and that the database server is running.',
        t,
      );
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
      return failed(
        'host_unreachable',
        `The host ${t.host} of source "${t.source}" cannot be reached from this machine.`,
        'Check the host address, the network route and any VPN the server needs.',
        t,
      );
    case 'ECONNRESET':
      // at once, not after the connect timeout: calling it "no answer within N ms" sent people
      // hunting a firewall while the server was restarting or out of connections
      return failed(
        'connection_reset',
        `The server at ${where} (source "${t.source}") closed the connection while Junction was connecting.`,
        'It may be restarting, out of connections, or refusing this address; try again in a moment, and if it persists check its log and any proxy or firewall in between.',
        t,
      );
    case 'ETIMEDOUT':
      return failed(
        'timeout',
        `No answer from ${where} (source "${t.source}") within ${t.connectTimeoutMs} ms.`,
        'A firewall may drop the packets, or the host is down. Check the address and port, or raise the connect timeout.',
        t,
      );
    default:
      return undefined;
  }
}

export function timeoutDiagnosis(t: Target): FailedDiagnosis {
  return failed(
    'timeout',
    `No answer from ${t.host}:${t.port} (source "${t.source}") within ${t.connectTimeoutMs} ms.`,
    'A firewall may drop the packets, or the host is down. Check the address and port, or raise the connect timeout.',
    t,
  );
}

export function authDiagnosis(t: Target, user: string | undefined): FailedDiagnosis {
  return failed(
    'auth_failed',
    `The server of source "${t.source}" rejected the user name or password${user ? ` for user "${user}"` : ''}.`,
    'Check the user name and password; the user may also lack permission to connect from this machine.',
    t,
  );
}

export function databaseMissingDiagnosis(t: Target, database: string | undefined): FailedDiagnosis {
  return failed(
    'database_missing',
    `The database "${database ?? ''}" does not exist on the server of source "${t.source}".`,
    'Check the database name (names may be case-sensitive), or create the database first.',
    t,
  );
}

export function tlsRequiredDiagnosis(t: Target): FailedDiagnosis {
  return failed(
    'tls_required',
    `The server of source "${t.source}" only accepts encrypted connections.`,
    'Turn on TLS in the source settings (and supply the CA certificate if the server uses a private one).',
    t,
  );
}

export function tlsUnsupportedDiagnosis(t: Target): FailedDiagnosis {
  return failed(
    'unknown',
    `The server of source "${t.source}" does not accept TLS connections.`,
    'Turn TLS off in the source settings, or enable SSL on the server.',
    t,
  );
}

export function unknownDiagnosis(t: Target, err: unknown): FailedDiagnosis {
  const msg = err instanceof Error ? err.message : String(err);
  return failed(
    'unknown',
    `Connecting to source "${t.source}" failed: ${msg}`,
    'Check the connection settings and the server log.',
    t,
  );
}

/** Races a connect attempt against the connect timeout so test() always answers in time. */
export async function withDeadline<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { timedOut: true }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), ms);
  });
  try {
    return await Promise.race([p.then((value) => ({ value })), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A TLS handshake that failed on the certificate (self-signed, unknown CA, wrong host name). */
export function certificateDiagnosis(err: unknown, t: Target): FailedDiagnosis | undefined {
  const msg = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  const certCodes = [
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'CERT_HAS_EXPIRED',
  ];
  if (
    !(typeof code === 'string' && certCodes.includes(code)) &&
    !/self[- ]signed certificate|unable to verify the first certificate|certificate has expired|altnames/i.test(msg)
  ) {
    return undefined;
  }
  return failed(
    'unknown',
    `The TLS certificate of the server of source "${t.source}" is not trusted: ${msg}`,
    "Supply the server's CA certificate in the TLS settings (or turn certificate verification off for a test server).",
    t,
  );
}
