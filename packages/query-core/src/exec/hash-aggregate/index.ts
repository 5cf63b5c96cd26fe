import type { JType, Row, Value } from '@junction/connectors';
import type { NotPushed } from '../../plan/logical.js';
import { checkAborted, rowBytes, type ExecContext } from '../context.js';
import type { KeyFn, RowFn } from '../expr-fn.js';
import { makeKeyFn } from '../hash-key.js';
import { Operator, chunk, type OperatorInfo } from '../operator.js';
import { emptySpill, spillText, type SpillMetrics } from '../spill/spill-metrics.js';
import { GroupSpill } from './group-spill.js';
import { GroupTable, type MergeableAggregate } from './group-table.js';
import { AGGREGATE_CHUNK_ROWS, ParallelAggregate, WORKER_MIN_ROWS, type ParallelReport } from './parallel-aggregate.js';

export type { MergeableAggregate } from './group-table.js';

/** One aggregate's running state for one group. */
export interface AggState {
  add(row: Row): void;
  result(): Value;
}

export interface AggregateSpec {
  create(): AggState;
  /** the same aggregate as accumulator + inputs: set when partial states can be merged (worker path) */
  readonly mergeable?: MergeableAggregate;
}

/**
 * GROUP BY with a hash table of groups. Groups are emitted once the input ends (group
 * order is the order groups were first seen). Without GROUP BY, an empty input still
 * yields one row (count 0, sum NULL), as SQL requires.
 *
 * When every aggregate is mergeable (accumulator + inputs, as the compiler builds them)
 * groups hold the accumulators' states (group-table.ts); then, with a worker pool, a large
 * input is aggregated in worker threads past the first WORKER_MIN_ROWS rows
 * (parallel-aggregate.ts), and groups that pass the memory budget spill to disk in hash
 * partitions of the group key (group-spill.ts).
 */
export class HashAggregateOp extends Operator {
  readonly children: readonly Operator[];
  readonly report: ParallelReport = { chunks: 0, fellBack: false };
  /** what the last run wrote to disk */
  readonly spill: SpillMetrics = emptySpill();
  /** tests: start the worker path at the first row */
  forceWorkers = false;
  /** tests: rows per worker task */
  chunkRows = AGGREGATE_CHUNK_ROWS;

  constructor(
    private readonly input: Operator,
    private readonly groupColumns: readonly (number | RowFn)[],
    private readonly groupKey: KeyFn,
    private readonly aggregates: readonly AggregateSpec[],
    private readonly detail: string,
    private readonly notPushed?: readonly NotPushed[],
    private readonly estimatedRows?: number,
    /** the group key columns' types; without them the worker path is off */
    private readonly groupTypes?: readonly JType[],
  ) {
    super();
    this.children = [input];
  }

  info(): OperatorInfo {
    const r = this.report;
    const back = r.fellBack === 'groups' ? ', then in-thread: about one group per row' : r.fellBack === 'slower' ? ', then in-thread: faster here' : '';
    const workers = r.chunks === 0 ? '' : `, in worker threads (${r.chunks} chunks)${back}`;
    return {
      operator: 'HashAggregate',
      runsIn: 'junction',
      detail: this.detail + workers + spillText(this.spill),
      notPushed: this.notPushed,
      estimatedRows: this.estimatedRows,
      spill: this.spill,
    };
  }

  protected run(ctx: ExecContext): AsyncIterable<Row[]> {
    // a cached plan runs the same operator again: report this run only
    this.report.chunks = 0;
    this.report.fellBack = false;
    Object.assign(this.spill, emptySpill());
    const mergeable = this.aggregates.map((a) => a.mergeable);
    // the accumulators' own states cost fewer objects per group than closures: taken whenever given
    if (this.groupTypes && mergeable.every((m) => m !== undefined)) return this.runMergeable(ctx, mergeable as MergeableAggregate[], this.groupTypes);
    return this.runInThread(ctx);
  }

  private async *runMergeable(outer: ExecContext, aggs: readonly MergeableAggregate[], groupTypes: readonly JType[]): AsyncIterable<Row[]> {
    // the input runs under the query's budget; the groups under this aggregate's share of it
    const memory = outer.memory.consumer();
    const ctx: ExecContext = { ...outer, memory };
    const keysKey = makeKeyFn(this.groupColumns.map((_, i) => i), groupTypes, true);
    const newTable = (): GroupTable => new GroupTable(aggs, this.groupColumns, this.groupKey, keysKey, ctx.memory);
    const table = newTable();
    const spill = new GroupSpill(0, newTable, ctx, this.spill);
    table.spillTo(spill.sink);
    const threshold = this.forceWorkers ? 0 : WORKER_MIN_ROWS;
    const workers = aggs.every(orderFree) ? ctx.workers : undefined;
    let parallel: ParallelAggregate | undefined;
    let seen = 0;
    let inThreadMs = 0;
    try {
      for await (const batch of this.input.execute(outer)) {
        checkAborted(ctx.signal);
        if (parallel) {
          await parallel.push(batch);
          await spill.drain(table);
          continue;
        }
        // a pool still starting its threads would keep this input waiting longer than aggregating it here
        if (workers && seen >= threshold && (this.forceWorkers || workers.ready())) {
          const msPerRow = this.forceWorkers || seen === 0 ? undefined : inThreadMs / seen;
          parallel = new ParallelAggregate(table, aggs, this.groupColumns, groupTypes, workers, ctx, this.report, this.chunkRows, msPerRow);
          await parallel.push(batch);
          await spill.drain(table);
          continue;
        }
        const t0 = performance.now();
        table.addRows(batch);
        inThreadMs += performance.now() - t0;
        seen += batch.length;
        await spill.drain(table);
      }
      if (parallel) {
        await parallel.finish();
        await spill.drain(table);
      }
      yield* spill.finish(table);
    } finally {
      if (parallel) await parallel.close();
      table.release();
      await spill.remove();
      memory.close();
    }
  }

  private async *runInThread(ctx: ExecContext): AsyncIterable<Row[]> {
    const groups = new Map<unknown, { keys: Row; states: AggState[] }>();
    const cols = this.groupColumns;
    const aggs = this.aggregates;
    const global = cols.length === 0;
    let held = 0;
    try {
      for await (const batch of this.input.execute(ctx)) {
        checkAborted(ctx.signal);
        let added = 0;
        for (const row of batch) {
          const k = global ? 0 : this.groupKey(row);
          let g = groups.get(k);
          if (!g) {
            const keys: Row = cols.map((c) => (typeof c === 'number' ? row[c] : c(row)));
            g = { keys, states: aggs.map((a) => a.create()) };
            groups.set(k, g);
            added += rowBytes(keys) + 96 + aggs.length * 64;
          }
          const states = g.states;
          for (let i = 0; i < states.length; i++) states[i].add(row);
        }
        if (added > 0) {
          ctx.memory.reserve(added, 'HashAggregate');
          held += added;
        }
      }
      if (global && groups.size === 0) groups.set(0, { keys: [], states: aggs.map((a) => a.create()) });
      const out: Row[] = [];
      for (const g of groups.values()) {
        const r: Row = g.keys.slice();
        for (const s of g.states) r.push(s.result());
        out.push(r);
      }
      groups.clear();
      yield* chunk(out, ctx.batchSize);
    } finally {
      ctx.memory.release(held);
    }
  }
}

/**
 * Whether the result is the same whatever order partial states are merged in. A float sum
 * or average is not (float addition does not associate): merged from worker partials it
 * could differ in the last digits from the in-thread answer, and with the worker path
 * chosen at run time the same query would answer differently from run to run.
 */
function orderFree(a: MergeableAggregate): boolean {
  return !((a.fn === 'sum' || a.fn === 'avg') && (a.argType?.kind === 'float32' || a.argType?.kind === 'float64'));
}
