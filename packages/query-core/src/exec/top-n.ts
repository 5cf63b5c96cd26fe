import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from './context.js';
import { Operator, chunk, type OperatorInfo } from './operator.js';
import { Heap } from './heap.js';
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
    // max-heap: the worst kept row on top
    const heap = new Heap<E>((a, b) => cmp(a, b) > 0);
    let seq = 0;
    let held = 0;
    try {
      for await (const batch of this.input.execute(ctx)) {
        checkAborted(ctx.signal);
        for (const row of batch) {
          const e = { r: decorate(row), seq: seq++ };
          if (heap.size < n) {
            const b = rowBytes(row);
            ctx.memory.reserve(b, 'TopN');
            held += b;
            heap.push(e);
          } else if (cmp(e, heap.top) < 0) {
            heap.replaceTop(e);
          }
        }
      }
      const kept = heap.items.sort(cmp);
      const rows = kept.slice(this.offset).map((e) => undecorate(e.r));
      yield* chunk(rows, ctx.batchSize);
    } finally {
      ctx.memory.release(held);
    }
  }
}
