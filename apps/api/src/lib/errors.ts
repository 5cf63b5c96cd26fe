import type { FastifyError, FastifyInstance } from 'fastify';
import { DISK_FULL, JunctionError, diskFull, isDiskFull, isJunctionError, type ErrorKind } from '@junction/connectors';

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  user: 400,
  unsupported: 422,
  external: 502,
  resources: 503,
  timeout: 504,
  cancelled: 499,
  auth: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  internal: 500,
};

/**
 * Codes whose status is not their kind's: a per-user limit is the caller's own rate (429), while
 * the server being full for everyone stays 503.
 */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  user_concurrency_limit: 429,
  // 507 Insufficient Storage: a full disk is neither busy (503 would invite retry loops) nor a bug
  [DISK_FULL]: 507,
};

/**
 * An error that is, or wraps, a disk out of space, as the `disk_full` error users see. Errors
 * that reach the handler unwrapped come from the metadata database (Prisma); everything else that
 * writes to disk says which disk itself. Undefined for any other error.
 */
export function asDiskFull(error: unknown): JunctionError | undefined {
  if (isJunctionError(error) && error.code === DISK_FULL) return error;
  if (!isDiskFull(error)) return undefined;
  if (typeof error === 'object' && error !== null && 'clientVersion' in error)
    return diskFull('metadata', 'the change was not saved', { cause: error });
  return new JunctionError(DISK_FULL, 'resources', 'A disk Junction writes to is full; the request was stopped. It works again once space is freed there.', {
    cause: error,
  });
}

export const notFound = (what: string, id: string): JunctionError =>
  new JunctionError(`${what}_not_found`, 'not_found', `No ${what.replace('_', ' ')} with id or name "${id}".`, {
    details: { id },
  });
export const forbidden = (message = 'Your role does not allow this.'): JunctionError =>
  new JunctionError('forbidden', 'forbidden', message);
export const conflict = (code: string, message: string): JunctionError => new JunctionError(code, 'conflict', message);

/** The body of every error reply. */
export interface ErrorBody {
  code: string;
  kind: ErrorKind;
  message: string;
  position?: unknown;
  details?: Record<string, unknown>;
}

function fieldOf(err: FastifyError): string {
  const v = err.validation?.[0];
  if (!v) return '';
  const ctx = err.validationContext ?? 'body';
  const base = v.instancePath ? v.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
  const missing = (v.params as { missingProperty?: string; additionalProperty?: string } | undefined) ?? {};
  const leaf = missing.missingProperty ?? missing.additionalProperty;
  return [ctx, base, leaf].filter(Boolean).join('.');
}

/** Prisma's unique-constraint violation, without importing either generated client. */
function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'P2002';
}

const METADATA_DOWN_PRISMA_CODES: ReadonlySet<string> = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const METADATA_DOWN_ADAPTER_KINDS: ReadonlySet<string> = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/**
 * Junction's own metadata database (PostgreSQL) is down or restarting: Prisma's connection
 * codes, the driver adapter's connection kinds, and the SQLSTATEs of a server shutting down or
 * starting up (57P0x) or of a lost connection (08xxx). Told apart from bugs so the caller gets
 * a 503 to retry, not a 500.
 */
export function isMetadataUnavailable(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const err = e as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown } } } };
  if (typeof err.code === 'string' && METADATA_DOWN_PRISMA_CODES.has(err.code)) return true;
  const cause = err.meta?.driverAdapterError?.cause;
  if (typeof cause?.kind === 'string' && METADATA_DOWN_ADAPTER_KINDS.has(cause.kind)) return true;
  if (cause?.kind === 'postgres' && typeof cause.code === 'string' && /^(08|57P0)/.test(cause.code)) return true;
  const message = (e as { message?: unknown }).message;
  if (typeof message !== 'string') return false;
  // pg's own words for a socket that closed under a statement: the adapter passes some of them on
  // unwrapped (a bare Error). Sources' errors never reach here unwrapped: connectors wrap them all
  if (/^Connection terminated|^Client has encountered a connection error/.test(message)) return true;
  return (
    err.constructor?.name?.startsWith('PrismaClient') === true &&
    /Can't reach database server|the database system is (starting up|shutting down|in recovery)|terminating connection/i.test(
      message,
    )
  );
}

/** Seconds a client is told to wait when the metadata database is down. */
const METADATA_RETRY_SECONDS = 2;

/**
 * SQLSTATEs of the errors whose message may quote a value the query read (a failed cast, a
 * division by zero, a source's own text); a source error brings its own in `driverCode`.
 */
const VALUE_ERROR_SQLSTATE: Readonly<Record<string, string>> = {
  division_by_zero: '22012',
  invalid_text_representation: '22P02',
  invalid_datetime_format: '22007',
  numeric_value_out_of_range: '22003',
  data_exception: '22000',
  source_error: '58000',
};

/**
 * The error a caller who reads through a view grant is shown instead of one that may quote a
 * value: its code and SQLSTATE only. undefined when the error quotes no data.
 */
export function withoutDataValues(error: JunctionError): JunctionError | undefined {
  const driverCode = error.details?.driverCode;
  const sqlState = typeof driverCode === 'string' ? driverCode : VALUE_ERROR_SQLSTATE[error.code];
  if (sqlState === undefined) return undefined;
  return new JunctionError(
    error.code,
    error.kind,
    `The query failed on a value it read through a view (${error.code}, SQLSTATE ${sqlState}); an administrator finds the full message in the server log.`,
    { details: { sqlState } },
  );
}

/**
 * The reply for an error. A query's error marked readThroughView (query-core's `shielded`: the
 * caller reads some rows only through a view grant) loses any message that may quote a value.
 */
export function toErrorBody(error: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  const full = asDiskFull(error);
  if (full && full !== error) return toErrorBody(full);
  if (isJunctionError(error)) {
    if (error.details?.readThroughView === true) {
      const hidden = withoutDataValues(error);
      if (hidden) return toErrorBody(hidden);
      const { readThroughView: _, ...details } = error.details;
      return toErrorBody(
        new JunctionError(error.code, error.kind, error.message, {
          ...(error.position ? { position: error.position } : {}),
          ...(Object.keys(details).length ? { details } : {}),
        }),
      );
    }
    const status = STATUS_BY_CODE[error.code] ?? STATUS_BY_KIND[error.kind] ?? 500;
    if (status >= 500 && error.kind === 'internal') {
      return {
        status,
        body: { code: 'internal', kind: 'internal', message: 'Internal error: the server log has the details.' },
      };
    }
    const body = error.toJSON() as unknown as ErrorBody;
    const retry = error.details?.retryAfterSeconds;
    return { status, body, ...(typeof retry === 'number' ? { headers: { 'retry-after': String(retry) } } : {}) };
  }
  const fe = error as FastifyError;
  if (fe && fe.validation) {
    const field = fieldOf(fe);
    return { status: 400, body: { code: 'validation', kind: 'user', message: fe.message, details: { field } } };
  }
  if (isMetadataUnavailable(error)) {
    return {
      status: 503,
      body: {
        code: 'metadata_unavailable',
        kind: 'resources',
        message: "Junction's metadata database is unreachable (restarting?); try again shortly.",
        details: { retryAfterSeconds: METADATA_RETRY_SECONDS },
      },
      headers: { 'retry-after': String(METADATA_RETRY_SECONDS) },
    };
  }
  if (isUniqueViolation(error)) {
    return {
      status: 409,
      body: { code: 'already_exists', kind: 'conflict', message: 'An object with this name already exists.' },
    };
  }
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code =
      fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? 'body_too_large'
        : fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'unsupported_media_type'
          : fe.statusCode === 429
            ? 'rate_limited'
            : 'bad_request';
    const kind: ErrorKind =
      fe.statusCode === 401
        ? 'auth'
        : fe.statusCode === 403
          ? 'forbidden'
          : fe.statusCode === 404
            ? 'not_found'
            : 'user';
    return { status: fe.statusCode, body: { code, kind, message: fe.message } };
  }
  return {
    status: 500,
    body: { code: 'internal', kind: 'internal', message: 'Internal error: the server log has the details.' },
  };
}

/**
 * Outcomes a user caused or asked for (bad SQL, a cancel, a timeout they set, a full server) are
 * not faults of Junction: info, or warn where an operator may want to tune limits. Only internal
 * errors, failing sources and anything unrecognised are logged as errors.
 */
export function logLevelOf(error: unknown): 'info' | 'warn' | 'error' {
  if (isJunctionError(error)) {
    if (error.kind === 'internal' || error.kind === 'external') return 'error';
    if (error.kind === 'timeout' || error.kind === 'resources') return 'warn';
    return 'info';
  }
  return toErrorBody(error).status >= 500 ? 'error' : 'info';
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { status, body, headers } = toErrorBody(error);
    const level = logLevelOf(error);
    if (level === 'error') request.log.error({ err: error }, 'request failed');
    else if (isJunctionError(error) && body.message !== error.message)
      // the caller saw a generic message: the server log keeps the one that names the value
      request.log[level]({ code: body.code, kind: body.kind, status, message: error.message }, 'request rejected');
    else request.log[level]({ code: body.code, kind: body.kind, status }, 'request rejected');
    if (headers) reply.headers(headers);
    if (reply.sent || reply.raw.headersSent) return;
    reply.status(status).send(body);
  });
}
