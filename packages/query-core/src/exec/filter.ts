import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, type ExecContext } from './context.js';
import type { RowFn } from './expr-fn.js';
import { Operator, type OperatorInfo } from './operator.js';

/** Keeps rows whose predicate is TRUE (NULL and FALSE drop the row). */
export class FilterOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly input: Operator,
    private readonly predicate: RowFn,
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [input];
  }
  info(): OperatorInfo {
    return { operator: 'Filter', runsIn: 'junction', detail: this.detail, notPushed: this.notPushed };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const pred = this.predicate;
    for await (const batch of this.input.execute(ctx)) {
      checkAborted(ctx.signal);
      const out: Row[] = [];
      for (const row of batch) if (pred(row) === true) out.push(row);
      if (out.length > 0) yield out;
    }
  }
}
