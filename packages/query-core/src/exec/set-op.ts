import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from './context.js';
import type { KeyFn } from './expr-fn.js';
import { Operator, type OperatorInfo } from './operator.js';
import { prefetch } from './prefetch.js';

/**
 * UNION / INTERSECT / EXCEPT, with ALL or distinct, rows compared whole with NULLs equal
 * (as SQL set operations do). Both inputs start at once so two sources work in parallel.
 */
export class SetOpOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly op: 'union' | 'intersect' | 'except',
    private readonly all: boolean,
    private readonly left: Operator,
    private readonly right: Operator,
    private readonly key: KeyFn,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [left, right];
  }
  info(): OperatorInfo {
    const name = this.op === 'union' ? 'Union' : this.op === 'intersect' ? 'Intersect' : 'Except';
    return { operator: this.all ? `${name}All` : name, runsIn: 'junction', notPushed: this.notPushed };
  }

  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const rightAhead = prefetch(this.right.execute(ctx), 4);
    let held = 0;
    const hold = (rows: readonly Row[]): void => {
      let b = 0;
      for (const r of rows) b += rowBytes(r);
      ctx.memory.reserve(b, this.info().operator);
      held += b;
    };
    try {
      if (this.op === 'union') {
        const seen = this.all ? undefined : new Set<unknown>();
        for (const side of [this.left.execute(ctx), rightAhead]) {
          for await (const batch of side) {
            checkAborted(ctx.signal);
            if (!seen) {
              yield batch;
              continue;
            }
            const out: Row[] = [];
            for (const row of batch) {
              const k = this.key(row);
              if (!seen.has(k)) {
                seen.add(k);
                out.push(row);
              }
            }
            hold(out);
            if (out.length > 0) yield out;
          }
        }
        return;
      }
      // intersect/except: count the right side's rows per key, then stream the left side
      const counts = new Map<unknown, number>();
      for await (const batch of rightAhead) {
        checkAborted(ctx.signal);
        for (const row of batch) {
          const k = this.key(row);
          const c = counts.get(k);
          if (c === undefined) {
            counts.set(k, 1);
            held += 64;
          } else counts.set(k, c + 1);
        }
        ctx.memory.reserve(batch.length * 8, 'SetOp');
        held += batch.length * 8;
      }
      const emitted = this.all ? undefined : new Set<unknown>();
      for await (const batch of this.left.execute(ctx)) {
        checkAborted(ctx.signal);
        const out: Row[] = [];
        for (const row of batch) {
          const k = this.key(row);
          const c = counts.get(k) ?? 0;
          if (this.all) {
            if (this.op === 'intersect') {
              if (c > 0) {
                counts.set(k, c - 1);
                out.push(row);
              }
            } else if (c > 0) counts.set(k, c - 1);
            else out.push(row);
          } else {
            if (emitted!.has(k)) continue;
            if ((this.op === 'intersect') === c > 0) {
              emitted!.add(k);
              out.push(row);
            }
          }
        }
        if (out.length > 0) yield out;
      }
    } finally {
      await rightAhead.close();
      ctx.memory.release(held);
    }
  }
}
