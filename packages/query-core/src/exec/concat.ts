import type { Row } from '@junction/connectors';

/** The batches of `first`, then the rest of an input partly read already (an operator that looked ahead). */
export async function* concat(first: Iterable<Row[]> | AsyncIterable<Row[]>, rest?: AsyncIterator<Row[]> | AsyncIterable<Row[]>): AsyncIterable<Row[]> {
  yield* first;
  if (!rest) return;
  const it = Symbol.asyncIterator in rest ? rest[Symbol.asyncIterator]() : rest;
  for (;;) {
    const r = await it.next();
    if (r.done) return;
    yield r.value;
  }
}
