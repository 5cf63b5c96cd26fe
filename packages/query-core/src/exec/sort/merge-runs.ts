import type { Row } from '@junction/connectors';
import type { RowComparator } from '../expr-fn.js';
import { Heap } from '../heap.js';

interface Cursor {
  it: AsyncIterator<Row[]>;
  chunk: Row[];
  index: number;
}

/** k-way merge of sorted runs with a binary heap; stable across runs (lower run index first on ties). */
export async function* mergeRuns(runs: readonly AsyncIterable<Row[]>[], compare: RowComparator, batchSize: number): AsyncIterable<Row[]> {
  // min-heap of the runs by their current row
  const heap = new Heap<{ c: Cursor; run: number }>((a, b) => {
    const d = compare(a.c.chunk[a.c.index], b.c.chunk[b.c.index]);
    return d < 0 || (d === 0 && a.run < b.run);
  });
  for (let i = 0; i < runs.length; i++) {
    const it = runs[i][Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done || first.value.length === 0) continue;
    heap.push({ c: { it, chunk: first.value, index: 0 }, run: i });
  }
  let out: Row[] = [];
  while (heap.size > 0) {
    const top = heap.top;
    out.push(top.c.chunk[top.c.index++]);
    if (out.length >= batchSize) {
      yield out;
      out = [];
    }
    if (top.c.index >= top.c.chunk.length) {
      const nx = await top.c.it.next();
      if (nx.done || nx.value.length === 0) {
        heap.pop();
        continue;
      }
      top.c.chunk = nx.value;
      top.c.index = 0;
    }
    heap.fixTop();
  }
  if (out.length > 0) yield out;
}
