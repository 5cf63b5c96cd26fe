import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import { checkAborted, type ExecContext } from './context.js';
import type { RowFn } from './expr-fn.js';
import { Operator, type OperatorInfo } from './operator.js';

/**
 * Computes output columns. Plain column references are copied by position, which is most
 * projections; only real expressions go through their compiled function.
 */
export class ProjectOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly input: Operator,
    /** per output column: an input position to copy, or a function to evaluate */
    private readonly columns: readonly (number | RowFn)[],
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [input];
  }
  info(): OperatorInfo {
    return { operator: 'Project', runsIn: 'junction', detail: this.detail, notPushed: this.notPushed };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const cols = this.columns;
    const n = cols.length;
    for await (const batch of this.input.execute(ctx)) {
      checkAborted(ctx.signal);
      const out: Row[] = new Array(batch.length);
      for (let i = 0; i < batch.length; i++) {
        const row = batch[i];
        const r: Row = new Array(n);
        for (let c = 0; c < n; c++) {
          const col = cols[c];
          r[c] = typeof col === 'number' ? row[col] : col(row);
        }
        out[i] = r;
      }
      yield out;
    }
  }
}
