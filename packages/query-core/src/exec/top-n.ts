import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from './context.js';
import { Operator, chunk, type OperatorInfo } from './operator.js';
import { makeDecorator, type SortKeySpec } from './sort-keys.js';

/**
 * ORDER BY … LIMIT n: keeps only the n (+ offset) best rows in a bounded max-heap, so
 * memory is O(n) whatever the input size. Ties keep input order, as a stable sort would.
 */
export class TopNOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly input: Operator,
    private readonly keys: readonly SortKeySpec[],
    private readonly limit: number,
    private readonly offset: number,
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [input];
  }
  info(): OperatorInfo {
    return {
      operator: 'TopN',
      runsIn: 'junction',
      detail: `${this.limit}${this.offset ? ` OFFSET ${this.offset}` : ''} by ${this.detail}`,
      notPushed: this.notPushed,
    };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const n = this.limit + this.offset;
    if (this.limit <= 0) return;
    const { decorate, undecorate, compare } = makeDecorator(this.keys);
    // entries carry their arrival number so equal keys keep input order
    type E = { r: Row; seq: number };
    const cmp = (a: E, b: E): number => compare(a.r, b.r) || a.seq - b.seq;
    const heap: E[] = []; // max-heap: the worst kept row on top
    let seq = 0;
    let held = 0;
    const up = (i: number): void => {
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (cmp(heap[i], heap[p]) <= 0) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    };
    const down = (i: number): void => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && cmp(heap[l], heap[m]) > 0) m = l;
        if (r < heap.length && cmp(heap[r], heap[m]) > 0) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    };
    try {
      for await (const batch of this.input.execute(ctx)) {
        checkAborted(ctx.signal);
        for (const row of batch) {
          const e = { r: decorate(row), seq: seq++ };
          if (heap.length < n) {
            const b = rowBytes(row);
            ctx.memory.reserve(b, 'TopN');
            held += b;
            heap.push(e);
            up(heap.length - 1);
          } else if (cmp(e, heap[0]) < 0) {
            heap[0] = e;
            down(0);
          }
        }
      }
      heap.sort(cmp);
      const rows = heap.slice(this.offset).map((e) => undecorate(e.r));
      yield* chunk(rows, ctx.batchSize);
    } finally {
      ctx.memory.release(held);
    }
  }
}
