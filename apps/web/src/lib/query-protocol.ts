import { toApiError, type ApiError } from './api-error.js';

export interface ResultColumn {
  readonly name: string;
  readonly type: string;
}

/** One statement Junction sent to a source during the run. */
export interface SourceStatement {
  readonly source: string;
  readonly sql: string;
  readonly rows: number;
  readonly timeMs: number;
  readonly startMs?: number;
  readonly endMs?: number;
  readonly stoppedEarly?: boolean;
}

export interface ResultStats {
  readonly rows?: number;
  readonly elapsedMs?: number;
  readonly sourceStatements?: readonly SourceStatement[];
  /** 'local', or 'trino' when statements went to the Trino backend */
  readonly engine?: string;
  /** why that engine: asked for, auto's estimate, or what kept it local */
  readonly engineReason?: string;
  readonly [k: string]: unknown;
}

/** One NDJSON line of POST /query, classified. */
export type StreamEvent =
  | { readonly type: 'columns'; readonly columns: ResultColumn[]; readonly queryId?: string }
  | { readonly type: 'row'; readonly row: unknown[] }
  | { readonly type: 'stats'; readonly stats: ResultStats }
  | { readonly type: 'error'; readonly error: ApiError };

/**
 * The stream is: a header line with the columns, one JSON array per row, then a stats line.
 * A failure after the header arrives as an error line instead of the stats.
 */
export function classifyLine(v: unknown): StreamEvent {
  if (Array.isArray(v)) return { type: 'row', row: v };
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.row)) return { type: 'row', row: o.row };
    if (Array.isArray(o.columns)) {
      const id = o.queryId ?? o.id;
      return {
        type: 'columns',
        columns: o.columns.map(toColumn),
        ...(typeof id === 'string' || typeof id === 'number' ? { queryId: String(id) } : {}),
      };
    }
    if (o.error !== undefined) return { type: 'error', error: toApiError(errorStatus(o.error), o) };
    if (o.stats && typeof o.stats === 'object') return { type: 'stats', stats: o.stats as ResultStats };
    if (o.type === 'stats' || typeof o.elapsedMs === 'number') return { type: 'stats', stats: o as ResultStats };
  }
  return {
    type: 'error',
    error: toApiError(500, {
      code: 'BAD_STREAM',
      kind: 'internal',
      message: 'The server sent an unexpected result line.',
    }),
  };
}

function toColumn(c: unknown): ResultColumn {
  if (typeof c === 'string') return { name: c, type: '' };
  const o = (c ?? {}) as Record<string, unknown>;
  return { name: String(o.name ?? ''), type: typeof o.type === 'string' ? o.type : '' };
}

const STATUS_BY_KIND: Record<string, number> = {
  user: 400,
  unsupported: 422,
  external: 502,
  resources: 503,
  timeout: 504,
  cancelled: 499,
  forbidden: 403,
};

function errorStatus(e: unknown): number {
  const kind = e && typeof e === 'object' ? (e as Record<string, unknown>).kind : undefined;
  return (typeof kind === 'string' && STATUS_BY_KIND[kind]) || 500;
}

/** Cell text: NULL is shown as such, everything else exactly as the API sent it. */
export function formatCell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "1 row", "1,250 rows": a count with its noun. */
export function formatRowCount(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;
}

/** Numbers (JSON numbers or exact strings) read best right-aligned. */
export function isNumericType(type: string): boolean {
  return /^(int\d*|bigint|smallint|integer|decimal|numeric|float\d*|double|real)\b/i.test(type);
}
