import type { Row } from '@junction/connectors';
import type { ExecContext } from './context.js';
import { Operator, chunk, type OperatorInfo } from './operator.js';

/** Literal rows (VALUES, constant SELECTs); rows are computed at planning time. */
export class ValuesOp extends Operator {
  readonly children = [];
  constructor(private readonly rows: Row[]) {
    super();
  }
  info(): OperatorInfo {
    return { operator: 'Values', runsIn: 'junction', detail: `${this.rows.length} rows`, estimatedRows: this.rows.length };
  }
  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    yield* chunk(this.rows.map((r) => r.slice()), ctx.batchSize);
  }
}
