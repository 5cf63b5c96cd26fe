import type { Row } from '@junction/connectors';
import { Operator, type OperatorInfo } from '../src/exec/operator.js';

/** Benchmark input: prepared batches handed out as they are (no copy, unlike the tests' RowsOp). */
export class InputOp extends Operator {
  readonly children = [];
  constructor(private readonly batches: Row[][]) {
    super();
  }
  info(): OperatorInfo {
    return { operator: 'Input', runsIn: 'bench' };
  }
  protected async *run(): AsyncIterable<Row[]> {
    yield* this.batches;
  }
}
