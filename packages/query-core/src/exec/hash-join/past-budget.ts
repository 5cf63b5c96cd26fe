import type { Row } from '@junction/connectors';
import { checkAborted, rowBytes, type ExecContext } from '../context.js';
import { SpillFile } from '../spill/spill-file.js';
import type { SpillMetrics } from '../spill/spill-metrics.js';
import { GraceJoin } from './grace-join.js';
import { JoinCore, type JoinSpec } from './join-core.js';
import { ParallelProbe } from './parallel-probe.js';
import { concat } from '../concat.js';

const STASH_CHUNK = 1024;

export interface PastBudget {
  readonly spec: JoinSpec;
  /** the join's own share of the budget */
  readonly ctx: ExecContext;
  readonly report: SpillMetrics;
  /** build rows read so far; emptied once they are on disk */
  readonly read: Row[];
  /** what `read` holds reserved in the join's share (the last batch, which did not fit, is not); given back once on disk */
  readonly readBytes: number;
  /** the rest of the build side */
  readonly buildRest: AsyncIterator<Row[]>;
  /** the other side, whole */
  readonly other: AsyncIterable<Row[]>;
  readonly forceWorkers?: boolean;
}

/**
 * A hash join whose build side passed its budget. The rows read so far go to disk, and
 * the other side is read: if it fits, the roles swap (it becomes the hash table, the
 * build side streams past it, what was written first), which costs one write and read
 * of the part read so far instead of partitioning both sides. Swapping is always
 * allowed: the join core keeps every join type's meaning whichever side it builds. If the
 * other side does not fit either, both are partitioned (grace-join.ts).
 */
export async function* joinPastBudget(p: PastBudget): AsyncIterable<Row[]> {
  const { spec, ctx } = p;
  const memory = ctx.memory;
  const stash = await SpillFile.create(ctx.spillDir, ctx.disk, 'HashJoin');
  const other = p.other[Symbol.asyncIterator]();
  let held = p.readBytes;
  let grace: GraceJoin | undefined;
  try {
    for (let i = 0; i < p.read.length; i += STASH_CHUNK) await stash.write(p.read.slice(i, i + STASH_CHUNK));
    // the rows are on disk now: holding them too would double what this join keeps
    p.read.length = 0;
    memory.release(held);
    held = 0;
    p.report.bytes += stash.bytes;
    p.report.depth = Math.max(p.report.depth, 1);
    const swapped: JoinSpec = { ...spec, buildSide: spec.buildSide === 'right' ? 'left' : 'right' };
    const otherRows: Row[] = [];
    let fits = true;
    for (;;) {
      const r = await other.next();
      if (r.done) break;
      checkAborted(ctx.signal);
      let b = 0;
      for (const row of r.value) b += rowBytes(row);
      for (const row of r.value) otherRows.push(row);
      if (!memory.tryReserve(b)) {
        fits = false;
        break;
      }
      held += b;
    }
    if (fits) {
      p.report.swapped = true;
      const probe = concat(stash.read(), p.buildRest);
      const parallel = ParallelProbe.tryCreate(swapped, otherRows, ctx.workers, p.forceWorkers);
      if (parallel) {
        yield* parallel.run(probe, ctx);
        return;
      }
      const core = new JoinCore(swapped, memory);
      core.addBuild(otherRows, false);
      otherRows.length = 0;
      try {
        for await (const batch of probe) {
          checkAborted(ctx.signal);
          const out = core.probe(batch);
          if (out.length > 0) yield out;
        }
        yield* core.finish(ctx.batchSize);
      } finally {
        core.release();
      }
      return;
    }
    // neither side fits: partition both
    grace = new GraceJoin(spec, ctx, p.report, p.forceWorkers);
    for await (const chunk of stash.read()) await grace.addBuild(chunk);
    await stash.remove();
    for (;;) {
      const r = await p.buildRest.next();
      if (r.done) break;
      await grace.addBuild(r.value);
    }
    // the other side's rows read so far are the first to be partitioned: their memory is as good as free
    memory.release(held);
    held = 0;
    yield* grace.run(concat(once(otherRows), other));
  } finally {
    memory.release(held);
    await grace?.close();
    await stash.remove();
    await other.return?.();
  }
}

/** Yields the rows as one batch and lets go of them. */
async function* once(rows: Row[]): AsyncIterable<Row[]> {
  const batch = rows.splice(0);
  if (batch.length > 0) yield batch;
}
