import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from './context.js';
import type { KeyFn } from './expr-fn.js';
import { distinctRows, KeySet } from './hash-set.js';
import { Operator, type OperatorInfo } from './operator.js';
import { prefetch } from './prefetch.js';
import { emptySpill, spillText, type SpillMetrics } from './spill/spill-metrics.js';

const LEFT = 0;
const RIGHT = 1;
/** a key's count once DISTINCT's INTERSECT or EXCEPT has emitted it */
const EMITTED = -1;

/**
 * UNION / INTERSECT / EXCEPT, with ALL or distinct, rows compared whole with NULLs equal
 * (as SQL set operations do). Both inputs start at once so two sources work in parallel.
 * Past the memory budget the keys not yet held wait on disk (hash-set.ts).
 */
export class SetOpOp extends Operator {
  readonly children: readonly Operator[];
  readonly spill: SpillMetrics = emptySpill();
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
    return {
      operator: this.all ? `${name}All` : name,
      runsIn: 'junction',
      notPushed: this.notPushed,
      ...(this.spill.bytes > 0 ? { detail: ` (${spillText(this.spill).slice(2)})`, spill: this.spill } : {}),
    };
  }

  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    Object.assign(this.spill, emptySpill());
    const rightAhead = prefetch(this.right.execute(ctx), 4);
    try {
      if (this.op === 'union') {
        if (this.all) {
          for (const side of [this.left.execute(ctx), rightAhead]) yield* side;
          return;
        }
        yield* distinctRows(ctx, concat(this.left.execute(ctx), rightAhead), this.key, this.info().operator, this.spill);
        return;
      }
      yield* this.counted(ctx, this.left.execute(ctx), rightAhead, 0);
    } finally {
      await rightAhead.close();
    }
  }

  /**
   * INTERSECT and EXCEPT: counts the right side's rows per key, then streams the left side.
   * A key whose count did not fit is decided with its partition: the right side's rows of
   * keys not held go to disk, and so do the left side's rows of keys not held once that
   * happened (or once the left side's own keys no longer fit).
   */
  private async *counted(ctx: ExecContext, left: AsyncIterable<Row[]>, right: AsyncIterable<Row[]>, level: number): AsyncIterable<Row[]> {
    const operator = this.info().operator;
    const counts = new KeySet<number>(ctx, operator, this.spill, level);
    try {
      for await (const batch of right) {
        checkAborted(ctx.signal);
        for (const row of batch) {
          const k = this.key(row);
          const c = counts.map.get(k);
          if (c !== undefined) counts.map.set(k, c + 1);
          else if (!counts.tryAdd(k, 1)) counts.spillRow(RIGHT, k, row, rowBytes(row));
        }
        await counts.flush();
      }
      // a key held nowhere now has no right rows at all, unless some went to disk
      const rightOnDisk = counts.isFrozen;
      const intersect = this.op === 'intersect';
      for await (const batch of left) {
        checkAborted(ctx.signal);
        const out: Row[] = [];
        for (const row of batch) {
          const k = this.key(row);
          const c = counts.map.get(k);
          if (c === undefined) {
            if (rightOnDisk) counts.spillRow(LEFT, k, row, rowBytes(row));
            else if (intersect) continue;
            else if (this.all) out.push(row);
            // EXCEPT: its first row goes out; the set remembers that, or the partition decides
            else if (counts.tryAdd(k, EMITTED)) out.push(row);
            else counts.spillRow(LEFT, k, row, rowBytes(row));
          } else if (this.all) {
            if (c > 0) counts.map.set(k, c - 1);
            if ((c > 0) === intersect) out.push(row);
          } else if (c !== EMITTED && (c > 0) === intersect) {
            counts.map.set(k, EMITTED);
            out.push(row);
          }
        }
        await counts.flush();
        if (out.length > 0) yield out;
      }
      for await (const [l, r] of counts.partitions()) {
        if (l) yield* this.counted(ctx, l, r ?? none(), level + 1);
      }
    } finally {
      counts.close();
    }
  }
}

async function* concat(...inputs: AsyncIterable<Row[]>[]): AsyncIterable<Row[]> {
  for (const input of inputs) yield* input;
}

async function* none(): AsyncIterable<Row[]> {}
