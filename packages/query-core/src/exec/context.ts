import { JunctionError, type Value } from '@junction/connectors';
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
  constructor(readonly budgetBytes: number) {}

  /** false when the reservation would pass the budget (nothing is reserved then). */
  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.budgetBytes) return false;
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
    this.used = Math.max(0, this.used - bytes);
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
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get usedBytes(): number {
    return this.used;
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
  readonly workers?: WorkerPool;
}

/** Throws the reason the query was aborted (cancel or timeout), as a JunctionError. */
export function checkAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof JunctionError) throw reason;
  throw new JunctionError('query_cancelled', 'cancelled', 'The query was cancelled.', { cause: reason });
}

/** Rough heap size of a row: enough to keep a budget honest, cheap enough to call per row. */
export function rowBytes(row: readonly Value[]): number {
  let n = 16 + row.length * 8;
  for (const v of row) {
    if (typeof v === 'string') n += 16 + v.length * 2;
    else if (typeof v === 'bigint') n += 16;
    else if (v instanceof Uint8Array) n += 64 + v.byteLength;
  }
  return n;
}

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
