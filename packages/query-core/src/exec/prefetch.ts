import type { Row } from '@junction/connectors';
import { rowBytes, type MemoryTracker } from './context.js';

/** Reading further ahead than the fixed batches, within bytes reserved from a memory budget. */
export interface ReadAhead {
  readonly memory: MemoryTracker;
  readonly maxBytes: number;
}

/**
 * Starts reading `source` now, keeping up to `maxBatches` batches ahead of the consumer.
 * Joins use it so a probe side's source statement runs while the build side is read:
 * two sources work at the same time instead of one after the other. With `ahead`, more
 * batches are read while their bytes fit in `ahead.maxBytes` and the budget grants them: a
 * source that is quick beside the build side's then delivers, and its rows are decoded,
 * while the thread would otherwise wait for the slow one (TPC-H Q14: MariaDB's 200,000
 * parts while PostgreSQL scans lineitem). The fixed batches are not reserved (rowBytes for
 * every probe row would cost a join's probe loop a good part of its time): they are bounded by
 * `maxBatches` batches, and a source's batches by bytes (ExecContext.batchBytes). Closing the
 * returned iterator early closes `source` (its cursor) too.
 */
export function prefetch(
  source: AsyncIterable<Row[]>,
  maxBatches: number,
  ahead?: ReadAhead,
): AsyncIterable<Row[]> & { close(): Promise<void>; endedEmpty(): boolean } {
  const it = source[Symbol.asyncIterator]();
  const buffer: Row[][] = [];
  // bytes reserved for each buffered batch (0: one of the fixed maxBatches)
  const held: number[] = [];
  let heldBytes = 0;
  // the budget refused a batch: read no further ahead until the consumer takes one
  let refused = false;
  const mayReadMore = (): boolean =>
    buffer.length < maxBatches || (ahead !== undefined && !refused && heldBytes < ahead.maxBytes);
  let done = false;
  let error: unknown;
  let failed = false;
  let closed = false;
  let rows = 0;
  let wake: (() => void) | undefined;
  let space: (() => void) | undefined;

  const pump = async (): Promise<void> => {
    try {
      while (!closed) {
        if (!mayReadMore()) {
          await new Promise<void>((r) => (space = r));
          continue;
        }
        const r = await it.next();
        if (r.done || closed) break;
        let bytes = 0;
        if (ahead && buffer.length >= maxBatches) {
          for (const row of r.value) bytes += rowBytes(row);
          // a refused batch is kept unreserved, like one of the fixed ones
          if (ahead.memory.tryReserve(bytes)) heldBytes += bytes;
          else {
            bytes = 0;
            refused = true;
          }
        }
        held.push(bytes);
        buffer.push(r.value);
        rows += r.value.length;
        wake?.();
      }
    } catch (e) {
      failed = true;
      error = e;
    } finally {
      done = true;
      wake?.();
    }
  };
  const pumping = pump();

  const releaseAll = (): void => {
    if (heldBytes > 0) ahead?.memory.release(heldBytes);
    held.length = 0;
    heldBytes = 0;
  };

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    space?.();
    releaseAll();
    // the pump may be inside it.next(); wait for it so return() is not queued behind a read forever
    await pumping.catch(() => undefined);
    if (!failed && it.return) await it.return(undefined).catch(() => undefined);
  };

  return {
    close,
    /** the source ended, without error, before producing a row: a join may stop reading its other side */
    endedEmpty: () => done && !failed && !closed && rows === 0,
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<Row[]>> {
          for (;;) {
            if (buffer.length > 0) {
              const v = buffer.shift()!;
              const bytes = held.shift()!;
              if (bytes > 0) {
                ahead?.memory.release(bytes);
                heldBytes -= bytes;
              }
              refused = false;
              space?.();
              space = undefined;
              return { done: false, value: v };
            }
            if (failed) throw error;
            if (done) return { done: true, value: undefined };
            await new Promise<void>((r) => (wake = r));
            wake = undefined;
          }
        },
        async return(): Promise<IteratorResult<Row[]>> {
          await close();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
