import type { Row } from '@junction/connectors';
import type { NotPushed } from '../plan/logical.js';
import type { ExecContext } from './context.js';
import { Operator, type OperatorInfo } from './operator.js';

/**
 * OFFSET/LIMIT. Once satisfied it returns, which closes its child's iterator: the child
 * stops, and a remote cursor below is closed instead of being read to the end.
 */
export class LimitOp extends Operator {
  readonly children: readonly Operator[];
  constructor(
    private readonly input: Operator,
    private readonly limit: number | undefined,
    private readonly offset: number,
    private readonly notPushed?: readonly NotPushed[],
  ) {
    super();
    this.children = [input];
  }
  info(): OperatorInfo {
    return {
      operator: 'Limit',
      runsIn: 'junction',
      detail: `${this.limit ?? 'ALL'}${this.offset ? ` OFFSET ${this.offset}` : ''}`,
      notPushed: this.notPushed,
    };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    let skip = this.offset;
    let left = this.limit ?? Infinity;
    if (left <= 0) return;
    for await (let batch of this.input.execute(ctx)) {
      if (skip > 0) {
        if (batch.length <= skip) {
          skip -= batch.length;
          continue;
        }
        batch = batch.slice(skip);
        skip = 0;
      }
      if (batch.length >= left) {
        yield batch.length === left ? batch : batch.slice(0, left);
        return;
      }
      left -= batch.length;
      yield batch;
    }
  }
}
