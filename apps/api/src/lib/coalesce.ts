/**
 * Joins text chunks that follow each other within `waitMs` into one, up to `maxChars`.
 *
 * Why: every chunk of a streamed reply becomes its own write on the socket, and each write
 * wakes the client. A 100-row NDJSON answer is a head line, one batch and a stats line: three
 * writes where one would do, which costs more than the rows themselves on a short query. A slow
 * source keeps streaming: a chunk goes out at most `waitMs` after it was made (with 0, as soon
 * as the next one is not ready within the current turn of the event loop).
 */
export async function* coalesce(
  chunks: AsyncIterable<string>,
  opts: { maxChars?: number; waitMs?: number } = {},
): AsyncGenerator<string> {
  const maxChars = opts.maxChars ?? 64 * 1024;
  const waitMs = opts.waitMs ?? 0;
  const it = chunks[Symbol.asyncIterator]();
  let done = false;
  try {
    let r = await it.next();
    while (!r.done) {
      let text = r.value;
      const deadline = performance.now() + waitMs;
      for (;;) {
        if (text.length >= maxChars) {
          r = await it.next();
          break;
        }
        const next = it.next();
        const ready = await within(next, deadline - performance.now());
        if (ready === NOT_YET) {
          yield text;
          text = '';
          r = await next;
          break;
        }
        r = ready;
        if (r.done) break;
        text += r.value;
      }
      if (text !== '') yield text;
    }
    done = true;
  } finally {
    // the consumer stopped early (or we failed): let the producer clean up too
    if (!done) await it.return?.(undefined);
  }
}

const NOT_YET = Symbol('not yet');

/** `p`'s result if it settles within `ms` (at least the current turn of the event loop), else NOT_YET. */
function within<T>(p: Promise<T>, ms: number): Promise<T | typeof NOT_YET> {
  let cancel = (): void => undefined;
  const timeout = new Promise<typeof NOT_YET>((resolve) => {
    if (ms < 1) {
      const t = setImmediate(() => resolve(NOT_YET));
      cancel = () => clearImmediate(t);
    } else {
      const t = setTimeout(() => resolve(NOT_YET), ms);
      cancel = () => clearTimeout(t);
    }
  });
  return Promise.race([p, timeout]).finally(cancel);
}
