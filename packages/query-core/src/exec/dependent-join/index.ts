import type { JType, Row } from '@junction/connectors';
import type { NotPushed } from '../../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from '../context.js';
import type { RowFn } from '../expr-fn.js';
import { joinPastBudget } from '../hash-join/past-budget.js';
import { JoinCore, type JoinSpec } from '../hash-join/join-core.js';
import { Operator, type OperatorInfo } from '../operator.js';
import type { RemoteScanOp } from '../remote-scan.js';
import { emptySpill, spillText, type SpillMetrics } from '../spill/spill-metrics.js';
import { distinctKeys } from './distinct-keys.js';
import { fetchByKeys, narrowByKeyFilter, testsOnly, type FetchReport } from './fetch-by-keys.js';

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
 * rows. No keys: the other source is never asked. A driver side that passes the
 * memory budget has too many keys to send anyway: the other statement is read whole and
 * joined as a hash join past its budget does (past-budget.ts).
 */
export class DependentJoinOp extends Operator {
  readonly children: readonly Operator[];
  readonly report: FetchReport = { statements: 0, keys: 0 };
  /** what the last run wrote to disk */
  readonly spill: SpillMetrics = emptySpill();

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
    const spilledAny = this.spill.bytes > 0;
    const ran = this.metrics.started && !spilledAny ? `, ${this.report.keys} keys in ${this.report.statements} statements` : '';
    const spilled = spilledAny ? `, driver past the budget: other side read whole${spillText(this.spill)}` : '';
    return {
      operator: 'DependentJoin',
      runsIn: 'junction',
      detail: `${this.spec.type} driver=${this.spec.buildSide} maxInList=${this.options.maxInList} ${this.detail}${ran}${spilled}`,
      notPushed: this.notPushed,
      estimatedRows: this.estimatedRows,
      spill: this.spill,
    };
  }

  protected async *run(outer: ExecContext): AsyncIterable<Row[]> {
    // the inputs run under the query's budget; the driver rows under this join's share of it
    const memory = outer.memory.consumer();
    const ctx: ExecContext = { ...outer, memory };
    const core = new JoinCore(this.spec, memory);
    let held = 0;
    Object.assign(this.spill, emptySpill());
    const driverIt = this.driver.execute(outer)[Symbol.asyncIterator]();
    try {
      const rows: Row[] = [];
      for (;;) {
        const next = await driverIt.next();
        if (next.done) break;
        const batch = next.value;
        checkAborted(ctx.signal);
        let b = 0;
        for (const r of batch) b += rowBytes(r);
        if (!memory.tryReserve(b)) {
          const read = rows.splice(0);
          for (const r of batch) read.push(r);
          const readBytes = held;
          held = 0;
          yield* joinPastBudget({ spec: this.spec, ctx, report: this.spill, read, readBytes, buildRest: driverIt, other: this.remote.execute(outer) });
          return;
        }
        held += b;
        for (const r of batch) rows.push(r);
      }
      core.addBuild(rows, false);
      const driverKeys = distinctKeys(rows, this.options.driverColumn, this.options.driverType);
      const driverExtra = (this.options.extraKeys ?? []).map((x) => ({ column: x.remoteColumn, keys: distinctKeys(rows, x.driverColumn, x.driverType) }));
      const { keys, extra } = narrowByKeyFilter(ctx, this.remote, this.options.remoteColumn, driverKeys, driverExtra);
      rows.length = 0;
      for await (const batch of fetchByKeys(ctx, this.remote, this.options.remoteColumn, keys, { ...this.options, existenceOnly: testsOnly(this.spec) }, this.report, extra)) {
        checkAborted(ctx.signal);
        const out = core.probe(batch);
        if (out.length > 0) yield out;
      }
      yield* core.finish(ctx.batchSize);
    } finally {
      await driverIt.return?.();
      core.release();
      memory.release(held);
      memory.close();
    }
  }
}
