import { ApiError } from './api-error.js';
import type { EngineChoice } from './engine-choice.js';
import { request } from './http.js';
import { readNdjson } from './ndjson.js';
import { classifyLine, type ResultColumn, type ResultStats } from './query-protocol.js';

export type RunStatus = 'idle' | 'running' | 'done' | 'error' | 'cancelled';

export interface RunSnapshot {
  readonly status: RunStatus;
  readonly sql: string;
  readonly queryId?: string;
  readonly columns: readonly ResultColumn[];
  /** kept rows (at most KEPT_ROWS); the array grows in place, rowCount changes with it */
  readonly rows: readonly (readonly unknown[])[];
  readonly rowCount: number;
  readonly elapsedMs: number;
  readonly stats?: ResultStats;
  readonly error?: ApiError;
}

/** A browser tab holds this many rows; the count keeps going beyond it. */
export const KEPT_ROWS = 100_000;
/** UI updates at most this often while rows stream in. */
const NOTIFY_EVERY_MS = 80;

const IDLE: RunSnapshot = { status: 'idle', sql: '', columns: [], rows: [], rowCount: 0, elapsedMs: 0 };

/** One query execution streamed over NDJSON; a tiny external store for useSyncExternalStore. */
export class QueryRun {
  private snap: RunSnapshot = IDLE;
  private readonly listeners = new Set<() => void>();
  private abort?: AbortController;
  private startedAt = 0;
  private notifyTimer?: ReturnType<typeof setTimeout>;
  private tick?: ReturnType<typeof setInterval>;

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  getSnapshot = (): RunSnapshot => this.snap;

  /** Forgets the last result (another query was loaded): the grid must not show stale rows. */
  reset(): void {
    this.cancelLocal();
    this.set(IDLE);
  }

  /**
   * `savedId` / `viewId`: run that saved query or view by id (what a viewer may do) rather than
   * the SQL text; `engine`: where SQL text runs (the by-id routes take none)
   */
  async start(
    sql: string,
    opts: { params?: unknown[]; savedId?: string; viewId?: string; engine?: EngineChoice } = {},
  ): Promise<void> {
    this.cancelLocal();
    const abort = new AbortController();
    this.abort = abort;
    this.startedAt = performance.now();
    const rows: unknown[][] = [];
    // chosen here so Cancel works before the server's first byte arrives
    const queryId = newQueryId();
    this.set({ status: 'running', sql, queryId, columns: [], rows, rowCount: 0, elapsedMs: 0 });
    this.tick = setInterval(() => this.update({ elapsedMs: performance.now() - this.startedAt }), 250);
    try {
      const params = opts.params ? { params: opts.params } : {};
      const res = await request(runPath(opts), {
        body: opts.savedId
          ? { queryId, ...params }
          : opts.viewId
            ? { queryId }
            : { sql, queryId, ...params, ...(opts.engine ? { engine: opts.engine } : {}) },
        accept: 'application/x-ndjson',
        signal: abort.signal,
      });
      if (!res.body) throw new ApiError(500, 'internal', 'NO_BODY', 'The server sent no result stream.');
      let count = 0;
      for await (const values of readNdjson(res.body)) {
        let patch: Partial<RunSnapshot> | undefined;
        for (const v of values) {
          const ev = classifyLine(v);
          if (ev.type === 'row') {
            if (rows.length < KEPT_ROWS) rows.push(ev.row);
            count++;
          } else if (ev.type === 'columns') {
            patch = { ...patch, columns: ev.columns, ...(ev.queryId ? { queryId: ev.queryId } : {}) };
          } else if (ev.type === 'stats') {
            patch = { ...patch, stats: ev.stats };
          } else {
            throw ev.error;
          }
        }
        if (this.abort !== abort) return;
        this.update({ ...patch, rowCount: count, elapsedMs: performance.now() - this.startedAt }, patch !== undefined);
      }
      if (this.abort !== abort) return;
      const stats = this.snap.stats;
      this.finish({
        status: 'done',
        rowCount: count,
        elapsedMs: stats?.elapsedMs ?? performance.now() - this.startedAt,
      });
    } catch (e) {
      if (this.abort !== abort) return;
      if (abort.signal.aborted || (e instanceof ApiError && e.kind === 'cancelled')) {
        this.finish({ status: 'cancelled', elapsedMs: performance.now() - this.startedAt });
      } else {
        const error =
          e instanceof ApiError ? e : new ApiError(0, 'internal', 'CLIENT', e instanceof Error ? e.message : String(e));
        this.finish({ status: 'error', error, elapsedMs: performance.now() - this.startedAt });
      }
    }
  }

  /** Asks the server to stop the query, then drops the stream. */
  async cancel(): Promise<void> {
    if (this.snap.status !== 'running') return;
    const id = this.snap.queryId;
    const abort = this.abort;
    if (id) {
      try {
        await request(`/queries/${encodeURIComponent(id)}`, { method: 'DELETE' });
      } catch {
        // the query may have finished meanwhile; dropping the stream below still stops it
      }
    }
    if (this.abort !== abort) return;
    abort?.abort();
    this.abort = undefined;
    this.finish({ status: 'cancelled', elapsedMs: performance.now() - this.startedAt });
  }

  dispose(): void {
    this.cancelLocal();
    this.listeners.clear();
  }

  private cancelLocal(): void {
    this.abort?.abort();
    this.abort = undefined;
    this.stopTimers();
  }

  private stopTimers(): void {
    clearInterval(this.tick);
    clearTimeout(this.notifyTimer);
    this.notifyTimer = undefined;
  }

  private finish(patch: Partial<RunSnapshot>): void {
    this.stopTimers();
    this.abort = undefined;
    this.set({ ...this.snap, ...patch });
  }

  /** Row updates are coalesced; structural changes (columns, stats) show at once. */
  private update(patch: Partial<RunSnapshot>, immediate = false): void {
    this.snap = { ...this.snap, ...patch };
    if (immediate || this.snap.rowCount === 0 || this.snap.columns.length === 0) return this.emit();
    if (this.notifyTimer === undefined) {
      this.notifyTimer = setTimeout(() => {
        this.notifyTimer = undefined;
        this.emit();
      }, NOTIFY_EVERY_MS);
    }
  }

  private set(s: RunSnapshot): void {
    this.snap = s;
    this.emit();
  }

  private emit(): void {
    // a new object identity so React sees the change even though rows grow in place
    this.snap = { ...this.snap };
    for (const l of this.listeners) l();
  }
}

function newQueryId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `q${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

function runPath(opts: { savedId?: string; viewId?: string }): string {
  if (opts.savedId) return `/saved-queries/${encodeURIComponent(opts.savedId)}/run`;
  if (opts.viewId) return `/views/${encodeURIComponent(opts.viewId)}/run`;
  return '/query';
}
