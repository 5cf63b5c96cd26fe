import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, type ExecContext } from './context.js';
import type { KeyFn } from './expr-fn.js';
import { Operator, type OperatorInfo } from './operator.js';
import { prefetch } from './prefetch.js';

/**
 * `x NOT IN (SELECT y …)` with SQL's three-valued meaning, by hash instead of testing
 * every pair: a left row survives when the subquery is empty, or when x is not NULL, no y
 * equals it and no y is NULL. (The binder spells it as an anti join ON x = y OR x IS NULL
 * OR y IS NULL, which no equality key can serve.) Uncorrelated only: the set of y is one
 * set for every left row.
 */
export class NullAwareAntiJoinOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly left: Operator,
    private readonly right: Operator,
    private readonly leftKey: KeyFn,
    private readonly rightKey: KeyFn,
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
    private readonly estimatedRows?: number,
  ) {
    super();
    this.children = [left, right];
  }

  info(): OperatorInfo {
    return { operator: 'HashJoin', runsIn: 'junction', detail: `anti (NULL-aware, NOT IN) build=right ${this.detail}`.trim(), notPushed: this.notPushed, estimatedRows: this.estimatedRows };
  }

  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const leftAhead = prefetch(this.left.execute(ctx), 4);
    const keys = new Set<unknown>();
    let rows = 0;
    let sawNull = false;
    let held = 0;
    try {
      for await (const batch of this.right.execute(ctx)) {
        checkAborted(ctx.signal);
        rows += batch.length;
        let added = 0;
        for (const r of batch) {
          const k = this.rightKey(r);
          if (k === null) sawNull = true;
          else if (!keys.has(k)) {
            keys.add(k);
            added += typeof k === 'string' ? 48 + k.length * 2 : 48;
          }
        }
        ctx.memory.reserve(added, 'NOT IN');
        held += added;
        if (sawNull) break;
      }
      // a NULL among the values makes NOT IN NULL or false for every row: nothing survives
      if (sawNull) return;
      for await (const batch of leftAhead) {
        checkAborted(ctx.signal);
        if (rows === 0) {
          yield batch;
          continue;
        }
        const out: Row[] = [];
        for (const l of batch) {
          const k = this.leftKey(l);
          if (k !== null && !keys.has(k)) out.push(l);
        }
        if (out.length > 0) yield out;
      }
    } finally {
      await leftAhead.close();
      ctx.memory.release(held);
    }
  }
}
