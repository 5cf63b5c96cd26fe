import type { Row } from '@junction/connectors';
import { checkAborted, rowBytes, type ExecContext } from './context.js';
import type { KeyFn } from './expr-fn.js';
import { Operator, type OperatorInfo } from './operator.js';

/** SELECT DISTINCT: streams each row the first time its key (NULLs equal) is seen. */
export class DistinctOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly input: Operator,
    private readonly key: KeyFn,
  ) {
    super();
    this.children = [input];
  }
  info(): OperatorInfo {
    return { operator: 'HashDistinct', runsIn: 'junction' };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const seen = new Set<unknown>();
    let held = 0;
    try {
      for await (const batch of this.input.execute(ctx)) {
        checkAborted(ctx.signal);
        const out: Row[] = [];
        let b = 0;
        for (const row of batch) {
          const k = this.key(row);
          if (seen.has(k)) continue;
          seen.add(k);
          out.push(row);
          b += rowBytes(row);
        }
        ctx.memory.reserve(b, 'HashDistinct');
        held += b;
        if (out.length > 0) yield out;
      }
    } finally {
      ctx.memory.release(held);
    }
  }
}
