/** Position in SQL text as the API reports it: offset 0-based, line/column 1-based. */
export interface SqlPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly length?: number;
}

export type ApiErrorKind =
  | 'user'
  | 'unsupported'
  | 'external'
  | 'resources'
  | 'timeout'
  | 'cancelled'
  | 'auth'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'internal'
  | 'network';

/** Every failure the UI shows, whatever layer it came from. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly kind: ApiErrorKind,
    readonly code: string,
    message: string,
    readonly position?: SqlPosition,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

const KIND_BY_STATUS: Record<number, ApiErrorKind> = {
  400: 'user',
  401: 'auth',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'unsupported',
  499: 'cancelled',
  502: 'external',
  503: 'resources',
  504: 'timeout',
};

const KINDS = new Set<string>(Object.values(KIND_BY_STATUS).concat(['internal', 'network']));

function fallbackMessage(status: number, kind: ApiErrorKind): string {
  switch (kind) {
    case 'auth':
      return 'Your session has ended. Sign in again.';
    case 'forbidden':
      return 'You are not allowed to do this. Ask an admin for access.';
    case 'not_found':
      return 'Not found. It may have been deleted.';
    case 'resources':
      return 'Junction is busy. Try again in a moment.';
    case 'timeout':
      return 'The request took too long and was stopped.';
    default:
      return status >= 500
        ? `The server failed (HTTP ${status}). Try again; if it persists, check the server log.`
        : `The request failed (HTTP ${status}).`;
  }
}

/**
 * Maps an error response to an ApiError. Accepts the error object at the top level
 * (`{code, kind, message}`) or wrapped (`{error: {...}}`), and Fastify's own
 * `{statusCode, error, message}` for validation failures.
 */
export function toApiError(status: number, body: unknown): ApiError {
  let e: Record<string, unknown> = {};
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    e = b.error && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : b;
  }
  const kind: ApiErrorKind =
    typeof e.kind === 'string' && KINDS.has(e.kind)
      ? (e.kind as ApiErrorKind)
      : (KIND_BY_STATUS[status] ?? (status >= 500 ? 'internal' : 'user'));
  const code = typeof e.code === 'string' ? e.code : `HTTP_${status}`;
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : fallbackMessage(status, kind);
  const position = isPosition(e.position) ? e.position : undefined;
  const details = e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined;
  return new ApiError(status, kind, code, message, position, details);
}

export function networkError(cause: unknown): ApiError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new ApiError(0, 'network', 'NETWORK', `Cannot reach the Junction server (${why}). Check that it is running.`);
}

function isPosition(p: unknown): p is SqlPosition {
  if (!p || typeof p !== 'object') return false;
  const o = p as Record<string, unknown>;
  return typeof o.line === 'number' && typeof o.column === 'number' && typeof o.offset === 'number';
}
