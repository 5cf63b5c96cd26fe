import type { Row, Value } from '@junction/connectors';
import { checkAborted, type ExecContext } from '../context.js';
import type { WorkerPool } from '../workers/pool.js';
import { combine, type JoinSpec } from './join-core.js';
import { buildNumericTable, type NumericTable } from './numeric-table.js';
import type { ProbeTask } from './probe-task.js';

/** Build sides smaller than this join in-thread: below it a worker round trip costs more than it saves (measured in bench/worker-join.ts). */
export const WORKER_MIN_BUILD_ROWS = 50_000;
/** Probe rows per worker task. */
export const PROBE_CHUNK_ROWS = 32_768;

/**
 * The hash join's worker path for numeric keys: the build keys go into a hash table in
 * shared memory once; probe rows are cut into chunks whose keys (a Float64Array) are
 * transferred to a worker, which answers with matched (probe, build) index pairs. Rows
 * themselves never cross threads; the main thread assembles output rows from the pairs.
 * Chunks run on every worker at once and come back in probe order.
 */
export class ParallelProbe {
  private constructor(
    private readonly spec: JoinSpec,
    private readonly build: readonly Row[],
    private readonly table: NumericTable,
    private readonly pool: WorkerPool,
  ) {}

  /** undefined when the join does not fit the worker path (types, key kinds, size). */
  static tryCreate(spec: JoinSpec, build: readonly Row[], pool: WorkerPool | undefined, force = false): ParallelProbe | undefined {
    if (!pool || (!force && build.length < WORKER_MIN_BUILD_ROWS)) return undefined;
    // the build side must be the right one and unpreserved: its rows' fate never depends on matches
    if (spec.buildSide !== 'right' || !(spec.type === 'inner' || spec.type === 'left' || spec.type === 'semi' || spec.type === 'anti')) return undefined;
    const keys = numericKeys(build, spec.rightKey);
    if (!keys) return undefined;
    return new ParallelProbe(spec, build, buildNumericTable(keys.keys, keys.nulls, true), pool);
  }

  async *run(probe: AsyncIterable<Row[]>, ctx: ExecContext): AsyncIterable<Row[]> {
    const inflight: Promise<Row[]>[] = [];
    const parallel = Math.max(1, this.pool.size);
    let chunk: Row[] = [];
    const dispatch = (rows: Row[]): void => {
      const keys = new Float64Array(rows.length);
      const nulls = new Uint8Array(rows.length);
      const keyOf = this.spec.leftKey;
      for (let i = 0; i < rows.length; i++) {
        const k = keyOf(rows[i]);
        // a key of another kind (a big int64, a decimal string) cannot equal a number key
        if (typeof k === 'number') keys[i] = k;
        else nulls[i] = 1;
      }
      const task: ProbeTask = { table: this.table, probe: keys, probeNulls: nulls };
      const done = this.pool
        .run<{ probeIdx: Int32Array; buildIdx: Int32Array }>('probe', task, [keys.buffer as ArrayBuffer, nulls.buffer as ArrayBuffer], ctx.signal)
        .then((r) => this.assemble(rows, r.probeIdx, r.buildIdx));
      // it may fail (a cancel) before the loop awaits it: that must not count as unhandled
      done.catch(() => undefined);
      inflight.push(done);
    };
    try {
      for await (const batch of probe) {
        checkAborted(ctx.signal);
        for (const r of batch) chunk.push(r);
        if (chunk.length >= PROBE_CHUNK_ROWS) {
          dispatch(chunk);
          chunk = [];
          if (inflight.length >= parallel) {
            const out = await inflight.shift()!;
            if (out.length > 0) yield out;
          }
        }
      }
      if (chunk.length > 0) dispatch(chunk);
      while (inflight.length > 0) {
        const out = await inflight.shift()!;
        if (out.length > 0) yield out;
      }
    } finally {
      // let tasks still running settle so none rejects unobserved
      await Promise.allSettled(inflight);
    }
  }

  private assemble(probe: readonly Row[], probeIdx: Int32Array, buildIdx: Int32Array): Row[] {
    const { type, residual, rightWidth } = this.spec;
    const out: Row[] = [];
    const matched = type === 'inner' ? undefined : new Uint8Array(probe.length);
    for (let i = 0; i < probeIdx.length; i++) {
      const p = probe[probeIdx[i]];
      const b = this.build[buildIdx[i]];
      if (matched && (type === 'semi' || type === 'anti') && matched[probeIdx[i]]) continue;
      let combined: Row | undefined;
      if (residual) {
        combined = combine(p, b);
        if (residual(combined) !== true) continue;
      }
      if (matched) matched[probeIdx[i]] = 1;
      if (type === 'inner' || type === 'left') out.push(combined ?? combine(p, b));
    }
    if (matched) {
      const nulls = new Array<Value>(rightWidth).fill(null);
      for (let i = 0; i < probe.length; i++) {
        if (type === 'semi' && matched[i]) out.push(probe[i]);
        else if (type === 'anti' && !matched[i]) out.push(probe[i]);
        else if (type === 'left' && !matched[i]) out.push(combine(probe[i], nulls));
      }
    }
    return out;
  }
}

function numericKeys(rows: readonly Row[], key: (r: Row) => unknown): { keys: Float64Array; nulls: Uint8Array } | undefined {
  const keys = new Float64Array(rows.length);
  const nulls = new Uint8Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const k = key(rows[i]);
    if (k === null) nulls[i] = 1;
    else if (typeof k === 'number') keys[i] = k;
    else return undefined;
  }
  return { keys, nulls };
}
