import type { Row } from '@junction/connectors';
import { checkAborted, rowBytes, type ExecContext, type MemoryTracker } from './context.js';
import type { KeyFn } from './expr-fn.js';
import { partitionOf } from './spill/partition-hash.js';
import type { SpillMetrics } from './spill/spill-metrics.js';
import { SpillPartitions } from './spill/spill-partitions.js';

/**
 * Past this many splits the keys of a partition must fit: each level divides them by 32, so
 * only a budget that cannot hold a handful of keys ends here, with memory_budget_exceeded.
 */
const MAX_DEPTH = 6;

/** What one key costs in a Set or Map: the entry, and a string key's characters. */
export function keyBytes(k: unknown): number {
  return typeof k === 'string' ? 56 + 2 * k.length : 40;
}

/**
 * The keys a duplicate elimination (DISTINCT, UNION, INTERSECT, EXCEPT) holds, with what
 * comes past the memory budget. While the budget lasts every new key is kept. Once it is
 * spent the kept keys are frozen: rows of a kept key are still decided in memory, and the
 * rows of every other key go to hash partitions on disk, whole. So each key lives entirely
 * in memory or entirely in one partition, and a partition is decided later on its own, by
 * a fresh set one level deeper, with nothing in common with the frozen keys.
 */
export class KeySet<V> {
  readonly map = new Map<unknown, V>();
  private readonly memory: MemoryTracker;
  private held = 0;
  private frozen = false;
  /** one per side that can spill (INTERSECT and EXCEPT spill both, with the same partitioning) */
  private readonly parts: (SpillPartitions<Row> | undefined)[] = [];

  constructor(
    private readonly ctx: ExecContext,
    private readonly operator: string,
    private readonly spill: SpillMetrics,
    readonly level = 0,
  ) {
    this.memory = ctx.memory.consumer();
  }

  /**
   * Keeps a new key while the budget lasts: true when it was kept, false when the set is
   * frozen (the caller spills the row with `spillRow`).
   */
  tryAdd(k: unknown, value: V): boolean {
    if (this.frozen) return false;
    const b = keyBytes(k);
    if (this.memory.tryReserve(b)) {
      this.map.set(k, value);
      this.held += b;
      return true;
    }
    if (this.level >= MAX_DEPTH) this.memory.reserve(b, this.operator); // throws, naming the budget
    this.frozen = true;
    return false;
  }

  /** The budget was spent: keys not in the set now are decided from the partitions. */
  get isFrozen(): boolean {
    return this.frozen;
  }

  spillRow(side: number, k: unknown, row: Row, bytes: number): void {
    const parts = (this.parts[side] ??= new SpillPartitions<Row>(this.ctx, this.operator));
    parts.add(partitionOf(k, this.level, parts.fanout), row, bytes);
  }

  /** Writes full partition buffers; call once per batch. */
  async flush(): Promise<void> {
    for (const p of this.parts) await p?.flushFull();
  }

  get spilled(): boolean {
    return this.parts.some((p) => p !== undefined);
  }

  /**
   * Ends the in-memory part (its keys are let go) and gives each partition's files, side by
   * side, for the caller to decide one partition at a time; removes them afterwards.
   */
  async *partitions(): AsyncIterable<(AsyncIterable<Row[]> | undefined)[]> {
    this.releaseKeys();
    const parts = this.parts;
    try {
      for (const p of parts) await p?.flushAll();
      this.spill.bytes += parts.reduce((n, p) => n + (p?.bytesWritten ?? 0), 0);
      this.spill.depth = Math.max(this.spill.depth, this.level + 1);
      const fanout = parts.find((p) => p)?.fanout ?? 0;
      for (let i = 0; i < fanout; i++) {
        checkAborted(this.ctx.signal);
        const files = parts.map((p) => p?.files[i]);
        if (files.every((f) => !f)) continue;
        this.spill.partitions++;
        yield files.map((f) => f?.read());
      }
    } finally {
      for (const p of parts) await p?.remove();
    }
  }

  releaseKeys(): void {
    this.map.clear();
    this.memory.release(this.held);
    this.held = 0;
  }

  close(): void {
    this.releaseKeys();
    this.memory.close();
  }
}

/**
 * Each row the first time its key is seen (DISTINCT, UNION): the rows of kept keys at once,
 * in input order, then those of the keys that came past the budget, partition by partition.
 */
export async function* distinctRows(
  ctx: ExecContext,
  input: AsyncIterable<Row[]>,
  key: KeyFn,
  operator: string,
  spill: SpillMetrics,
  level = 0,
): AsyncIterable<Row[]> {
  const keys = new KeySet<true>(ctx, operator, spill, level);
  try {
    for await (const batch of input) {
      checkAborted(ctx.signal);
      const out: Row[] = [];
      for (const row of batch) {
        const k = key(row);
        if (keys.map.has(k)) continue;
        if (keys.tryAdd(k, true)) out.push(row);
        else keys.spillRow(0, k, row, rowBytes(row));
      }
      await keys.flush();
      if (out.length > 0) yield out;
    }
    for await (const [file] of keys.partitions()) yield* distinctRows(ctx, file!, key, operator, spill, level + 1);
  } finally {
    keys.close();
  }
}
