import type { JoinType, Row, Value } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, maybeYield, rowBytes, type ExecContext } from './context.js';
import type { RowFn } from './expr-fn.js';
import { Operator, type OperatorInfo } from './operator.js';
import { prefetch } from './prefetch.js';

/**
 * Joins without equality keys (cross joins, ON a < b): the right side is held in
 * memory and every left row is tested against every right row.
 */
export class NestedLoopJoinOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly left: Operator,
    private readonly right: Operator,
    private readonly type: JoinType,
    private readonly condition: RowFn | undefined,
    private readonly leftWidth: number,
    private readonly rightWidth: number,
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [left, right];
  }
  info(): OperatorInfo {
    return { operator: 'NestedLoopJoin', runsIn: 'junction', detail: `${this.type} ${this.detail}`.trim(), notPushed: this.notPushed };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const leftAhead = prefetch(this.left.execute(ctx), 4);
    const inner: Row[] = [];
    let held = 0;
    try {
      for await (const batch of this.right.execute(ctx)) {
        checkAborted(ctx.signal);
        let b = 0;
        for (const r of batch) {
          inner.push(r);
          b += rowBytes(r);
        }
        ctx.memory.reserve(b, 'NestedLoopJoin');
        held += b;
      }
      const t = this.type;
      const cond = this.condition;
      const rightMatched = t === 'right' || t === 'full' ? new Uint8Array(inner.length) : undefined;
      const nullRight = new Array<Value>(this.rightWidth).fill(null);
      const nullLeft = new Array<Value>(this.leftWidth).fill(null);
      for await (const batch of leftAhead) {
        checkAborted(ctx.signal);
        const out: Row[] = [];
        for (const l of batch) {
          // one left row may meet a large inner side: stop promptly on cancel or timeout
          if (inner.length > 256) await maybeYield(ctx.signal);
          let any = false;
          for (let i = 0; i < inner.length; i++) {
            const combined = l.concat(inner[i]);
            if (cond && cond(combined) !== true) continue;
            any = true;
            if (t === 'semi' || t === 'anti') break;
            if (rightMatched) rightMatched[i] = 1;
            out.push(combined);
          }
          if (t === 'semi' && any) out.push(l);
          else if (t === 'anti' && !any) out.push(l);
          else if (!any && (t === 'left' || t === 'full')) out.push(l.concat(nullRight));
        }
        if (out.length > 0) yield out;
      }
      if (rightMatched) {
        const out: Row[] = [];
        for (let i = 0; i < inner.length; i++) if (!rightMatched[i]) out.push(nullLeft.concat(inner[i]));
        if (out.length > 0) yield out;
      }
    } finally {
      await leftAhead.close();
      ctx.memory.release(held);
    }
  }
}
