import type { Row } from '@junction/connectors';
import type { ExecContext } from './context.js';
import type { KeyFn } from './expr-fn.js';
import { distinctRows } from './hash-set.js';
import { Operator, type OperatorInfo } from './operator.js';
import { emptySpill, spillText, type SpillMetrics } from './spill/spill-metrics.js';

/**
 * SELECT DISTINCT: streams each row the first time its key (NULLs equal) is seen; past the
 * memory budget the rows of keys not yet seen wait on disk (hash-set.ts).
 */
export class DistinctOp extends Operator {
  readonly children: readonly Operator[];
  readonly spill: SpillMetrics = emptySpill();
  constructor(
    private readonly input: Operator,
    private readonly key: KeyFn,
  ) {
    super();
    this.children = [input];
  }
  info(): OperatorInfo {
    return { operator: 'HashDistinct', runsIn: 'junction', ...(this.spill.bytes > 0 ? { detail: ` (${spillText(this.spill).slice(2)})`, spill: this.spill } : {}) };
  }
  protected run(ctx: ExecContext): AsyncIterable<Row[]> {
    Object.assign(this.spill, emptySpill());
    return distinctRows(ctx, this.input.execute(ctx), this.key, 'HashDistinct', this.spill);
  }
}
