import { JunctionError, type RemoteQuery, type RenderedQuery, type Row, type StatementAuthority, type Value } from '@junction/connectors';
import type { WorkerPool } from './workers/pool.js';

/** One statement sent to a source, as stats() and EXPLAIN ANALYZE report it. */
export interface StatementRecord {
  readonly source: string;
  readonly sql: string;
  readonly params: readonly Value[];
  rows: number;
  batches: number;
  timeMs: number;
  /** the operator that issued it, for EXPLAIN ANALYZE */
  readonly operatorId: number;
  /** ms since the query started (ExecContext.startedAt), for EXPLAIN ANALYZE's timeline */
  startMs?: number;
  endMs?: number;
  /** the statement was closed before its last row (a limit was met, the query was cancelled or failed) */
  stoppedEarly?: boolean;
}

/**
 * Approximate bytes held by blocking operators (hash tables, sort buffers, aggregates).
 * Operators reserve before they hold and release when they let go; past the budget a
 * reservation fails so the operator can spill or the query fails cleanly instead of the
 * process running out of heap.
 */
export class MemoryTracker {
  private used = 0;
  private peakBytes = 0;
  /** open consumers (spilling operators) of this budget */
  private readonly consumers = new Set<MemoryTracker>();
  constructor(
    readonly budgetBytes: number,
    private readonly parent?: MemoryTracker,
  ) {}

  /**
   * The budget as one operator that can spill sees it (hash join, hash aggregate, sort).
   * Its reservations count against this tracker too, and each such operator has a floor
   * (1/16 of the budget, less when more than 8 are open) that the others cannot take
   * while it is open: the first operator to fill the budget could otherwise leave nothing
   * to an aggregate above it or a sort above that, which would then spill everything for
   * want of memory, or fail. Past the floors, memory goes to whoever asks first (a big
   * build side gets most of it). Close it when the operator ends.
   */
  consumer(): MemoryTracker {
    const c = new MemoryTracker(this.budgetBytes, this);
    this.consumers.add(c);
    return c;
  }

  /** Gives back what a consumer still holds and ends its floor. */
  close(): void {
    this.release(this.used);
    this.parent?.consumers.delete(this);
  }

  /** Bytes this tracker may still reserve: for a consumer, what the others' unused floors leave. */
  get available(): number {
    const p = this.parent;
    if (!p) return Math.max(0, this.budgetBytes - this.used);
    const floor = p.budgetBytes / Math.max(16, 2 * p.consumers.size);
    let kept = 0;
    for (const c of p.consumers) if (c !== this && c.used < floor) kept += floor - c.used;
    return Math.max(0, p.budgetBytes - p.used - kept);
  }

  /** false when the reservation would pass the budget (nothing is reserved then). */
  tryReserve(bytes: number): boolean {
    const p = this.parent;
    if (p) {
      if (bytes > this.available || !p.tryReserve(bytes)) return false;
    } else if (this.used + bytes > this.budgetBytes) return false;
    this.used += bytes;
    if (this.used > this.peakBytes) this.peakBytes = this.used;
    return true;
  }

  reserve(bytes: number, operator: string): void {
    if (!this.tryReserve(bytes)) {
      throw new JunctionError(
        'memory_budget_exceeded',
        'resources',
        `The query needs more than its memory budget of ${this.budgetBytes} bytes (in ${operator}). Add filters, raise memoryBudgetBytes, or let more of the work run in the sources.`,
        { details: { budgetBytes: this.budgetBytes, operator } },
      );
    }
  }

  release(bytes: number): void {
    const b = Math.min(bytes, this.used);
    this.used -= b;
    this.parent?.release(b);
  }

  get usedBytes(): number {
    return this.used;
  }
  get peak(): number {
    return this.peakBytes;
  }
}

/**
 * Bytes a query has written to spill files. Past the limit the next write fails, so one
 * query sorting far more than memory cannot fill the disk other users and the metadata
 * database share.
 */
export class DiskTracker {
  private used = 0;
  private written = 0;
  constructor(readonly limitBytes: number) {}

  reserve(bytes: number, operator: string): void {
    if (this.used + bytes > this.limitBytes) {
      throw new JunctionError(
        'spill_limit_exceeded',
        'resources',
        `The query needs more than its ${this.limitBytes} bytes of spill space on disk (in ${operator}). Add filters or let more of the work run in the sources.`,
        { details: { limitBytes: this.limitBytes, operator } },
      );
    }
    this.used += bytes;
    this.written += bytes;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get usedBytes(): number {
    return this.used;
  }

  /** every byte written to spill files so far, including files already removed */
  get writtenBytes(): number {
    return this.written;
  }
}

export interface ExecContext {
  readonly signal: AbortSignal;
  readonly memory: MemoryTracker;
  readonly statements: StatementRecord[];
  /** performance.now() when the query started: statements record their times relative to it */
  readonly startedAt?: number;
  readonly spillDir: string;
  /** spill space left to this query; none: unlimited (tests, benchmarks) */
  readonly disk?: DiskTracker;
  /** rows per batch asked of sources and produced by operators */
  readonly batchSize: number;
  /**
   * A source's batch also ends once its rows weigh this much (rowBytes): batches of wide rows
   * are held outside the budget (in drivers' queues, fixed read-ahead), so they must be small.
   */
  readonly batchBytes?: number;
  readonly workers?: WorkerPool;
  /** reuses results of source fragments whose source allows it (cache/fragment-cache.ts) */
  readonly fragments?: FragmentCacheHook;
  /**
   * Keys a hash join found on its build side for a statement deep inside its probe side (a
   * dynamic filter), by the statement's operator id: the statement may send only rows whose
   * column holds one of them, since the join drops the others anyway.
   */
  readonly keyFilters?: ReadonlyMap<number, KeyFilter>;
  /** the caller's access policy, handed with every statement to the source (and its gate) */
  readonly access?: StatementAuthority;
  /** the query reads rows the caller may see only through a view: its errors say so (shielded) */
  readonly readsThroughView?: boolean;
  /** turns a failure of a statement sent to the backend engine into one naming the source it could not read */
  readonly backendFailure?: BackendFailureHook;
}

export interface BackendFailureHook {
  /** the backend's name: the source of the statements it runs */
  readonly backend: string;
  attribute(query: RemoteQuery, error: JunctionError): Promise<JunctionError>;
}

/** Distinct non-NULL keys for one output column of a statement. */
export interface KeyFilter {
  readonly column: number;
  readonly keys: readonly Value[];
}

/** Stored rows of a fragment, or its statement's rows recorded on their way through. */
export interface FragmentCacheHook {
  wrap(source: string, query: RemoteQuery, rendered: RenderedQuery, run: () => AsyncIterable<Row[]>): AsyncIterable<Row[]>;
}

/** Throws the reason the query was aborted (cancel or timeout), as a JunctionError. */
export function checkAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof JunctionError) throw reason;
  throw new JunctionError('query_cancelled', 'cancelled', 'The query was cancelled.', { cause: reason });
}

/** The row-size measure budgets and source batches share (connectors' contract/row-bytes.ts). */
export { rowBytes } from '@junction/connectors';

let lastYield = performance.now();

/**
 * Lets timers and other queries run when this one has held the thread for a while: a
 * CPU-bound operator would otherwise starve concurrent queries and never see its own
 * timeout fire. Cheap enough to call per batch or per row of a heavy loop.
 */
export async function maybeYield(signal: AbortSignal): Promise<void> {
  const now = performance.now();
  if (now - lastYield < 10) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastYield = performance.now();
  checkAborted(signal);
}
