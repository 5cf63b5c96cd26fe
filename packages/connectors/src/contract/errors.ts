/**
 * One error type for all of Junction. `kind` decides the HTTP status the API answers
 * with; `code` is stable and machine-readable; `message` says what to do next and never
 * contains a credential.
 */
export type ErrorKind =
  | 'user' // bad SQL, unknown table, bad parameter: 400
  | 'unsupported' // valid SQL Junction cannot run (yet): 422
  | 'external' // a source failed or is unreachable: 502
  | 'resources' // memory budget, row limit, admission control: 503
  | 'timeout' // statement or query timeout: 504
  | 'cancelled' // cancelled by the caller: 499 (client closed request)
  | 'auth' // not authenticated: 401
  | 'forbidden' // authenticated but not allowed: 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'internal'; // a bug: 500, details hidden from the client

/** A position in SQL text, for the editor to underline. Offsets are 0-based, line/column 1-based. */
export interface SqlPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly length?: number;
}

export interface JunctionErrorOptions {
  cause?: unknown;
  position?: SqlPosition;
  /** machine-readable parameters of the message (source name, table name, limits…) */
  details?: Record<string, unknown>;
}

export class JunctionError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly position?: SqlPosition;
  readonly details?: Record<string, unknown>;

  constructor(code: string, kind: ErrorKind, message: string, options: JunctionErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JunctionError';
    this.code = code;
    this.kind = kind;
    this.position = options.position;
    this.details = options.details;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      kind: this.kind,
      message: this.message,
      ...(this.position ? { position: this.position } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export function isJunctionError(e: unknown): e is JunctionError {
  return e instanceof JunctionError;
}

/** Position of a 0-based offset inside `text`. */
export function positionAt(text: string, offset: number, length?: number): SqlPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1, ...(length !== undefined ? { length } : {}) };
}
