import type { JType, Row, Value } from '@junction/connectors';
import { checkAborted, type ExecContext } from '../context.js';
import type { RowFn } from '../expr-fn.js';
import { columnBuffers, columnBytes, decodeColumn, encodeColumn } from '../workers/columns.js';
import type { WorkerPool } from '../workers/pool.js';
import type { GroupTable, MergeableAggregate } from './group-table.js';
import { unpackStates, workerError, type PartialAggregateResult, type PartialAggregateTask } from './partial-task.js';

/** Input rows aggregated in-thread before the worker path starts: below it a worker round trip costs more than it saves (bench/worker-aggregate.ts). */
export const WORKER_MIN_ROWS = 65_536;
/** Rows per worker task. */
export const AGGREGATE_CHUNK_ROWS = 32_768;
/**
 * A chunk yielding more groups than this share of its rows sends the rest of the input
 * back in-thread: merging a partial group (exact decimal rescaling, a structured clone)
 * costs the main thread several rows' worth of in-thread aggregation. At 10,000 groups
 * per 32,768-row chunk the worker path took twice the in-thread time in the benchmark.
 */
export const MAX_GROUPS_PER_ROW = 0.1;

/** Chunks merged before the worker path is timed: the first ones wait for threads to start and warm up. */
const WARMUP_CHUNKS = 2;
/** Chunks timed before the worker path is judged against the in-thread rate. */
const JUDGED_CHUNKS = 2;

export interface ParallelReport {
  chunks: number;
  /** why the rest of the input went back in-thread: a chunk had about one group per row, or the main thread waited longer per row than aggregating in-thread took */
  fellBack: false | 'groups' | 'slower';
}

type Source = number | RowFn;

/**
 * The hash aggregate's worker path: input rows are cut into chunks whose group key values
 * and aggregate arguments, evaluated here, move to a worker as typed-array columns; the
 * worker answers with partial groups (key values + accumulator states) that are merged
 * into the main table with the accumulators' exact `merge`. Up to pool-size chunks run at
 * once; partials are merged in input order, so groups keep their first row's key values.
 */
export class ParallelAggregate {
  private readonly sources: Source[] = [];
  /** per row: which sources to evaluate, in the in-thread path's order (key columns, then each aggregate's filter and arguments) */
  private readonly plan: { readonly source: number; readonly filter?: number }[] = [];
  private readonly task: Omit<PartialAggregateTask, 'rows' | 'columns'>;
  private readonly inflight: { readonly result: Promise<PartialAggregateResult>; readonly bytes: number }[] = [];
  private pending: Row[] = [];
  private held = 0;
  private merged = 0;
  private timedMs = 0;
  private timedRows = 0;

  constructor(
    private readonly table: GroupTable,
    aggs: readonly MergeableAggregate[],
    groupColumns: readonly Source[],
    groupTypes: readonly JType[],
    private readonly pool: WorkerPool,
    private readonly ctx: ExecContext,
    private readonly report: ParallelReport,
    private readonly chunkRows = AGGREGATE_CHUNK_ROWS,
    /** main-thread ms per row of the in-thread path before the switch; undefined: never judge (tests) */
    private readonly inThreadMsPerRow?: number,
  ) {
    const positions = new Map<number, number>();
    const add = (s: Source, filter?: number): number => {
      // plain columns are read once however many aggregates use them; expressions are evaluated per use, as in-thread
      if (typeof s === 'number' && filter === undefined) {
        const known = positions.get(s);
        if (known !== undefined) return known;
        positions.set(s, this.sources.length);
      }
      this.sources.push(s);
      this.plan.push({ source: this.sources.length - 1, filter });
      return this.sources.length - 1;
    };
    const keyColumns = groupColumns.map((c) => add(c));
    const aggregates = aggs.map((a) => {
      const filter = a.filter === undefined ? undefined : add(a.filter);
      return { fn: a.fn, argType: a.argType, distinct: a.distinct, args: a.args.map((x) => add(x, filter)), filter };
    });
    this.task = { keyColumns, keyTypes: groupTypes, aggregates };
  }

  /** Takes input rows; a full chunk goes to a worker, waiting for the oldest when all are busy. */
  async push(rows: readonly Row[]): Promise<void> {
    if (this.report.fellBack) {
      this.table.addRows(rows);
      return;
    }
    const t0 = performance.now();
    const timing = this.merged >= WARMUP_CHUNKS;
    for (const r of rows) this.pending.push(r);
    while (this.pending.length >= this.chunkRows && !this.report.fellBack) {
      const chunk = this.pending.slice(0, this.chunkRows);
      this.pending = this.pending.slice(this.chunkRows);
      this.dispatch(chunk);
      if (this.inflight.length >= this.pool.size) await this.mergeOldest();
    }
    if (timing) {
      this.timedMs += performance.now() - t0;
      this.timedRows += rows.length;
      this.judge();
    }
    if (this.report.fellBack) {
      await this.drain();
      const rest = this.pending;
      this.pending = [];
      this.table.addRows(rest);
    }
  }

  /** Merges every chunk still out, then aggregates the last partial chunk in-thread (after them: input order). */
  async finish(): Promise<void> {
    await this.drain();
    const rest = this.pending;
    this.pending = [];
    this.table.addRows(rest);
  }

  /** Lets tasks still running settle so none rejects unobserved, and gives their memory back. */
  async close(): Promise<void> {
    await Promise.allSettled(this.inflight.map((x) => x.result));
    this.inflight.length = 0;
    this.ctx.memory.release(this.held);
    this.held = 0;
  }

  private dispatch(rows: readonly Row[]): void {
    const n = rows.length;
    const values = this.sources.map(() => new Array<Value>(n));
    const sources = this.sources;
    const plan = this.plan;
    for (let i = 0; i < n; i++) {
      const row = rows[i];
      for (let j = 0; j < plan.length; j++) {
        const p = plan[j];
        const out = values[p.source];
        // an argument under FILTER is evaluated only where the filter holds, as in-thread
        if (p.filter !== undefined && values[p.filter][i] !== true) {
          out[i] = null;
          continue;
        }
        const s = sources[p.source];
        out[i] = typeof s === 'number' ? row[s] : s(row);
      }
    }
    const columns = values.map(encodeColumn);
    const transfer = columns.flatMap(columnBuffers);
    const bytes = columns.reduce((b, c) => b + columnBytes(c), 0);
    this.ctx.memory.reserve(bytes, 'HashAggregate (worker chunk)');
    this.held += bytes;
    const task: PartialAggregateTask = { ...this.task, rows: n, columns };
    const signal = this.ctx.signal;
    const result = this.pool.run<PartialAggregateResult>('aggregate', task, transfer, signal).catch((e: unknown) => {
      // an abort rejects the task with the pool's AbortError: report it as the query's cancellation
      checkAborted(signal);
      throw e;
    });
    // it may fail (a cancel) while nobody awaits it yet: mergeOldest or close() sees the error
    result.catch(() => undefined);
    this.inflight.push({ result, bytes });
    this.report.chunks++;
  }

  private async mergeOldest(): Promise<void> {
    const next = this.inflight[0];
    const r = await next.result;
    this.inflight.shift();
    this.ctx.memory.release(next.bytes);
    this.held -= next.bytes;
    checkAborted(this.ctx.signal);
    if ('error' in r) throw workerError(r.error);
    const keyCols = r.keys.map(decodeColumn);
    const perAgg = r.states.map((p) => unpackStates(p, r.groups));
    const keys: Row[] = new Array<Row>(r.groups);
    const states: unknown[][] = new Array<unknown[]>(r.groups);
    for (let g = 0; g < r.groups; g++) {
      keys[g] = keyCols.map((c) => c[g]);
      states[g] = perAgg.map((a) => a[g]);
    }
    this.table.merge(keys, states);
    this.merged++;
    if (r.groups > this.chunkRows * MAX_GROUPS_PER_ROW) this.report.fellBack = 'groups';
  }

  /**
   * Workers pay only when the main thread's share (evaluating and encoding columns,
   * merging partials, waiting) costs less per row than aggregating in-thread did: with
   * few cores, cheap aggregates or other queries busy, it may not.
   */
  private judge(): void {
    if (this.inThreadMsPerRow === undefined || this.report.fellBack || this.merged < WARMUP_CHUNKS + JUDGED_CHUNKS) return;
    if (this.timedMs / this.timedRows > this.inThreadMsPerRow) this.report.fellBack = 'slower';
  }

  private async drain(): Promise<void> {
    while (this.inflight.length > 0) await this.mergeOldest();
  }
}
