import type { Row } from '@junction/connectors';

/**
 * Starts reading `source` now, keeping up to `maxBatches` batches ahead of the consumer.
 * Joins use it so a probe side's source statement runs while the build side is read:
 * two sources work at the same time instead of one after the other. Closing the returned
 * iterator early closes `source` (its cursor) too.
 */
export function prefetch(
  source: AsyncIterable<Row[]>,
  maxBatches: number,
): AsyncIterable<Row[]> & { close(): Promise<void>; endedEmpty(): boolean } {
  const it = source[Symbol.asyncIterator]();
  const buffer: Row[][] = [];
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
        if (buffer.length >= maxBatches) {
          await new Promise<void>((r) => (space = r));
          continue;
        }
        const r = await it.next();
        if (r.done) break;
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

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    space?.();
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
