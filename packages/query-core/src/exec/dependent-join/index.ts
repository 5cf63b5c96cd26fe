import type { JType, Row } from '@junction/connectors';
import type { NotPushed } from '../../plan/logical.js';
import { checkAborted, type ExecContext } from '../context.js';
import type { RowFn } from '../expr-fn.js';
import { JoinCore, type JoinSpec } from '../hash-join/join-core.js';
import { Operator, type OperatorInfo } from '../operator.js';
import type { RemoteScanOp } from '../remote-scan.js';
import { distinctKeys } from './distinct-keys.js';
import { fetchByKeys, type FetchReport } from './fetch-by-keys.js';

export interface DependentJoinOptions {
  /** driver key column sent as IN values */
  readonly driverColumn: number | RowFn;
  readonly driverType: JType;
  /** output column of the dependent statement the IN lists restrict */
  readonly remoteColumn: number;
  readonly maxInList: number;
  readonly maxParallel: number;
  /** further key columns of a multi-column join that narrow the statement too */
  readonly extraKeys?: readonly { readonly driverColumn: number | RowFn; readonly driverType: JType; readonly remoteColumn: number }[];
}

/**
 * Dependent join (Teiid's): read the driver side, collect its distinct non-NULL join
 * keys, send them to the other source as bound IN lists (batched to its limits, a bounded
 * number of statements in parallel), and hash-join the answer locally against the driver
 * rows. No keys: the other source is never asked.
 */
export class DependentJoinOp extends Operator {
  readonly children: readonly Operator[];
  readonly report: FetchReport = { statements: 0, keys: 0 };

  constructor(
    private readonly driver: Operator,
    private readonly remote: RemoteScanOp,
    /** buildSide is the driver's side */
    private readonly spec: JoinSpec,
    private readonly options: DependentJoinOptions,
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
    private readonly estimatedRows?: number,
  ) {
    super();
    this.children = spec.buildSide === 'left' ? [driver, remote] : [remote, driver];
  }

  info(): OperatorInfo {
    const ran = this.metrics.started ? `, ${this.report.keys} keys in ${this.report.statements} statements` : '';
    return {
      operator: 'DependentJoin',
      runsIn: 'junction',
      detail: `${this.spec.type} driver=${this.spec.buildSide} maxInList=${this.options.maxInList} ${this.detail}${ran}`,
      notPushed: this.notPushed,
      estimatedRows: this.estimatedRows,
    };
  }

  protected async *run(ctx: ExecContext): AsyncIterable<Row[]> {
    const core = new JoinCore(this.spec, ctx.memory);
    try {
      const rows: Row[] = [];
      for await (const batch of this.driver.execute(ctx)) {
        checkAborted(ctx.signal);
        core.addBuild(batch);
        for (const r of batch) rows.push(r);
      }
      const keys = distinctKeys(rows, this.options.driverColumn, this.options.driverType);
      const extra = (this.options.extraKeys ?? []).map((x) => ({ column: x.remoteColumn, keys: distinctKeys(rows, x.driverColumn, x.driverType) }));
      rows.length = 0;
      for await (const batch of fetchByKeys(ctx, this.remote, this.options.remoteColumn, keys, this.options, this.report, extra)) {
        checkAborted(ctx.signal);
        const out = core.probe(batch);
        if (out.length > 0) yield out;
      }
      yield* core.finish(ctx.batchSize);
    } finally {
      core.release();
    }
  }
}
