import type { Row } from '@junction/connectors';
import type { RowComparator } from '../expr-fn.js';

interface Cursor {
  it: AsyncIterator<Row[]>;
  chunk: Row[];
  index: number;
}

/** k-way merge of sorted runs with a binary heap; stable across runs (lower run index first on ties). */
export async function* mergeRuns(runs: readonly AsyncIterable<Row[]>[], compare: RowComparator, batchSize: number): AsyncIterable<Row[]> {
  const heap: { c: Cursor; run: number }[] = [];
  const less = (a: { c: Cursor; run: number }, b: { c: Cursor; run: number }): boolean => {
    const d = compare(a.c.chunk[a.c.index], b.c.chunk[b.c.index]);
    return d < 0 || (d === 0 && a.run < b.run);
  };
  const up = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = 0; i < runs.length; i++) {
    const it = runs[i][Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done || first.value.length === 0) continue;
    heap.push({ c: { it, chunk: first.value, index: 0 }, run: i });
    up(heap.length - 1);
  }
  let out: Row[] = [];
  while (heap.length > 0) {
    const top = heap[0];
    out.push(top.c.chunk[top.c.index++]);
    if (out.length >= batchSize) {
      yield out;
      out = [];
    }
    if (top.c.index >= top.c.chunk.length) {
      const nx = await top.c.it.next();
      if (nx.done || nx.value.length === 0) {
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          down(0);
        }
        continue;
      }
      top.c.chunk = nx.value;
      top.c.index = 0;
    }
    down(0);
  }
  if (out.length > 0) yield out;
}
