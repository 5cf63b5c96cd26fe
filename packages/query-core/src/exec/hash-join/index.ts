import type { JType, Row } from '@junction/connectors';
import type { NotPushed } from '../../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from '../context.js';
import { KeyCounter } from '../dependent-join/distinct-keys.js';
import { fetchByKeys, narrowByKeyFilter, testsOnly, type FetchReport } from '../dependent-join/fetch-by-keys.js';
import type { RowFn } from '../expr-fn.js';
import { Operator, type OperatorInfo } from '../operator.js';
import { prefetch } from '../prefetch.js';
import type { RemoteScanOp } from '../remote-scan.js';
import { emptySpill, spillText, type SpillMetrics } from '../spill/spill-metrics.js';
import { JoinCore, type JoinSpec } from './join-core.js';
import { joinPastBudget } from './past-budget.js';
import { ParallelProbe } from './parallel-probe.js';

/**
 * The probe side reads ahead into at most this share of the query's memory budget: enough for
 * TPC-H Q10's 150,000 customers to be decoded while PostgreSQL aggregates lineitem, and still
 * leaving the build side three quarters before it has to spill.
 */
const READ_AHEAD_SHARE = 4;

/**
 * When the probe side is a statement on a source that takes IN lists, a hash join can
 * turn dependent at run time: if the build side, fully read, has few distinct keys, the
 * probe statement is sent restricted to those keys instead of read whole. When the statement
 * lies deeper in the probe side (under projections, grouping by the key, inner joins), the
 * keys go down to it as a dynamic filter (ExecContext.keyFilters) and the probe side runs
 * as planned over the fewer rows.
 */
export interface DependentSwitch {
  /** the probe side itself, or a statement inside it whose `probeColumn` carries the probe key unchanged */
  readonly scan: RemoteScanOp;
  /** probe output column restricted by the IN lists */
  readonly probeColumn: number;
  /** the matching build-side key column */
  readonly buildColumn: number | RowFn;
  readonly buildType: JType;
  /** at most this many distinct keys turn the join dependent */
  readonly maxKeys: number;
  readonly maxInList: number;
  readonly maxParallel: number;
}

/**
 * Hash join: reads the build side into a hash table while the probe side's statement
 * already runs (prefetched, bounded), then streams the probe side through it. A build
 * side that passes what the query's memory budget has left is partitioned to disk with
 * the probe side and joined partition by partition (grace-join.ts).
 */
export class HashJoinOp extends Operator {
  readonly children: readonly Operator[];
  /** set when the join turned dependent at run time */
  readonly report: FetchReport & { switched: boolean; filtered: boolean; workers: boolean; stoppedEarly: boolean } = {
    statements: 0,
    keys: 0,
    switched: false,
    filtered: false,
    workers: false,
    stoppedEarly: false,
  };
  /** what the last run wrote to disk */
  readonly spill: SpillMetrics = emptySpill();
  /** tests: take the worker path whatever the build size */
  forceWorkers = false;

  constructor(
    private readonly left: Operator,
    private readonly right: Operator,
    private readonly spec: JoinSpec,
    private readonly detail: string,
    private readonly dependent?: DependentSwitch,
    private readonly notPushed?: readonly NotPushed[],
    private readonly estimatedRows?: number,
  ) {
    super();
    this.children = [left, right];
  }

  info(): OperatorInfo {
    const switchText =
      (this.report.switched ? `, switched to dependent: ${this.report.keys} keys in ${this.report.statements} statements` : '') +
      (this.report.filtered ? `, ${this.report.keys} build keys passed down to the probe side's ${this.dependent?.scan.source} statement` : '') +
      (this.report.workers ? ', probed in worker threads' : '') +
      (this.report.stoppedEarly ? ', build side left unread: the probe side was empty' : '') +
      spillText(this.spill);
    return {
      operator: 'HashJoin',
      runsIn: 'junction',
      detail: `${this.spec.type} build=${this.spec.buildSide} ${this.detail}${switchText}`,
      notPushed: this.notPushed,
      estimatedRows: this.estimatedRows,
      spill: this.spill,
    };
  }

  protected async *run(outer: ExecContext): AsyncIterable<Row[]> {
    // the inputs run under the query's budget; this join's own tables under its share of it
    const memory = outer.memory.consumer();
    const ctx: ExecContext = { ...outer, memory };
    const buildOp = this.spec.buildSide === 'right' ? this.right : this.left;
    const probeOp = this.spec.buildSide === 'right' ? this.left : this.right;
    const core = new JoinCore(this.spec, ctx.memory);
    // with a possible dependent switch the probe statement must wait for the build side's keys,
    // but only until they outnumber what the switch takes: it then starts at once and reads
    // ahead while the rest of the build side arrives
    const readAhead = (): ReturnType<typeof prefetch> =>
      prefetch(probeOp.execute(outer), 4, { memory, maxBytes: memory.budgetBytes / READ_AHEAD_SHARE });
    // a preserved probe side is read whole whatever the build keys: the switch never applies
    const dep = core.probePreserved ? undefined : this.dependent;
    let probeAhead = dep ? undefined : readAhead();
    const keyCounter = dep ? new KeyCounter(dep.buildColumn, dep.buildType, dep.maxKeys) : undefined;
    const buildRows: Row[] = [];
    let held = 0;
    Object.assign(this.spill, emptySpill());
    const buildIt = buildOp.execute(outer)[Symbol.asyncIterator]();
    try {
      // the probe statement runs meanwhile: if it ends with no rows and no build row can come out
      // unmatched, the rest of the build side is not worth reading (an empty side ends the join)
      const buildUseless = (): boolean =>
        !!probeAhead?.endedEmpty() && !core.buildPreserved && !(this.spec.buildSide === 'left' && this.spec.type === 'anti');
      for (;;) {
        const next = await buildIt.next();
        if (next.done) break;
        const batch = next.value;
        checkAborted(ctx.signal);
        if (!probeAhead && keyCounter?.add(batch)) probeAhead = readAhead();
        if (buildUseless()) {
          this.report.stoppedEarly = true;
          break;
        }
        let b = 0;
        for (const r of batch) b += rowBytes(r);
        if (!memory.tryReserve(b)) {
          // past the budget: swap sides if the probe side fits, else partition both to disk;
          // the rows read so far stay reserved until they are on disk
          const read = buildRows.splice(0);
          for (const r of batch) read.push(r);
          const readBytes = held;
          held = 0;
          yield* joinPastBudget({ spec: this.spec, ctx, report: this.spill, read, readBytes, buildRest: buildIt, other: probeAhead ?? probeOp.execute(outer), forceWorkers: this.forceWorkers });
          return;
        }
        held += b;
        for (const r of batch) buildRows.push(r);
      }
      let probe: AsyncIterable<Row[]>;
      if (probeAhead) {
        if (this.report.stoppedEarly) return;
        if (buildRows.length === 0 && !core.probePreserved && this.spec.type !== 'anti') {
          // nothing can match and no probe row survives unmatched: never read the probe side
          await probeAhead.close();
          return;
        }
        probe = probeAhead;
      } else {
        // the build side ended within the switch's limit (past it the probe side was started):
        // its keys were gathered as it came
        const keys = keyCounter!.keys();
        if (dep!.scan !== probeOp) {
          this.report.filtered = true;
          this.report.keys = keys.length;
          probe = probeOp.execute({ ...outer, keyFilters: new Map(outer.keyFilters).set(dep!.scan.id, { column: dep!.probeColumn, keys }) });
        } else {
          this.report.switched = true;
          const narrowed = narrowByKeyFilter(outer, dep!.scan, dep!.probeColumn, keys, []);
          probe = fetchByKeys(ctx, dep!.scan, dep!.probeColumn, narrowed.keys, { ...dep!, existenceOnly: testsOnly(this.spec) }, this.report, narrowed.extra);
        }
      }
      const parallel = this.report.switched ? undefined : ParallelProbe.tryCreate(this.spec, buildRows, ctx.workers, this.forceWorkers);
      if (parallel) {
        this.report.workers = true;
        yield* parallel.run(probe, ctx);
        return;
      }
      core.addBuild(buildRows, false);
      buildRows.length = 0;
      for await (const batch of probe) {
        checkAborted(ctx.signal);
        const out = core.probe(batch);
        if (out.length > 0) yield out;
      }
      yield* core.finish(ctx.batchSize);
    } finally {
      if (probeAhead) await probeAhead.close();
      await buildIt.return?.();
      core.release();
      ctx.memory.release(held);
      memory.close();
    }
  }
}
