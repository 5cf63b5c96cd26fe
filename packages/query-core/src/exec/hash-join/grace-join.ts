import type { Row } from '@junction/connectors';
import { checkAborted, rowBytes, type ExecContext } from '../context.js';
import type { KeyFn } from '../expr-fn.js';
import { partitionOf } from '../spill/partition-hash.js';
import type { SpillFile } from '../spill/spill-file.js';
import type { SpillMetrics } from '../spill/spill-metrics.js';
import { SPILL_FANOUT, SpillPartitions } from '../spill/spill-partitions.js';
import { blockJoin } from './block-join.js';
import { JoinCore, type JoinSpec } from './join-core.js';
import { ParallelProbe } from './parallel-probe.js';

/** Splits deeper than this are not tried: the partition is joined block by block instead. */
export const MAX_SPILL_DEPTH = 4;

const OPERATOR = 'HashJoin';

/**
 * The hash join once its build side passed the memory budget (grace hash join): both
 * sides are written to disk in hash partitions of the join key, then each partition pair
 * is joined in memory. Rows that can match share a key, hence a partition, so every join
 * type keeps its meaning partition by partition; NULL keys, which match nothing, go to
 * one partition where the in-memory join treats them as usual. A partition still too big
 * is split again with the next level's hash; one that splitting cannot shrink (a single
 * key holds its rows) is joined in blocks of the build side that fit.
 */
export class GraceJoin {
  private readonly build: SpillPartitions<Row>;
  private readonly shape: JoinCore;
  private readonly buildKey: KeyFn;
  private readonly probeKey: KeyFn;

  constructor(
    private readonly spec: JoinSpec,
    private readonly ctx: ExecContext,
    private readonly report: SpillMetrics,
    /** tests: partitions take the worker path whatever their size */
    private readonly forceWorkers = false,
  ) {
    this.build = new SpillPartitions<Row>(ctx, OPERATOR);
    // holds no rows: answers what an unmatched row becomes
    this.shape = new JoinCore(spec, ctx.memory);
    this.buildKey = spec.buildSide === 'right' ? spec.rightKey : spec.leftKey;
    this.probeKey = spec.buildSide === 'right' ? spec.leftKey : spec.rightKey;
    report.depth = Math.max(report.depth, 1);
  }

  async addBuild(rows: readonly Row[]): Promise<void> {
    checkAborted(this.ctx.signal);
    const key = this.buildKey;
    const parts = this.build;
    for (const r of rows) parts.add(partitionOf(key(r), 0, parts.fanout), r, rowBytes(r));
    await parts.flushFull();
  }

  /** Removes the build side's files (the join ended before run(), or after it). */
  async close(): Promise<void> {
    await this.build.remove();
  }

  /** Partitions the probe side, then joins partition by partition. Removes every file it wrote, whatever ends it. */
  async *run(probe: AsyncIterable<Row[]>): AsyncIterable<Row[]> {
    const probeParts = new SpillPartitions<Row>(this.ctx, OPERATOR);
    try {
      await this.build.flushAll();
      this.count(this.build);
      const key = this.probeKey;
      const fanout = this.build.fanout;
      for await (const batch of probe) {
        checkAborted(this.ctx.signal);
        const out: Row[] = [];
        for (const r of batch) {
          const p = partitionOf(key(r), 0, fanout);
          // no build row can match: the row's fate is known now, it need not wait on disk
          if (this.build.records(p) === 0) {
            const o = this.shape.probeOutcome(r, false);
            if (o) out.push(o);
          } else probeParts.add(p, r, rowBytes(r));
        }
        await probeParts.flushFull();
        if (out.length > 0) yield out;
      }
      await probeParts.flushAll();
      this.count(probeParts);
      for (let p = 0; p < fanout; p++) {
        const b = this.build.files[p];
        if (!b) continue;
        yield* this.joinPartition(b, this.build.sizes[p], probeParts.files[p], 0);
        // free the disk as soon as a pair is done
        await b.remove();
        await probeParts.files[p]?.remove();
      }
    } finally {
      await Promise.all([this.build.remove(), probeParts.remove()]);
    }
  }

  private async *joinPartition(build: SpillFile<Row>, buildBytes: number, probe: SpillFile<Row> | undefined, level: number): AsyncIterable<Row[]> {
    const ctx = this.ctx;
    if (!probe || probe.records === 0) {
      // no probe row can match: each build row is decided without a hash table
      for await (const chunk of build.read()) {
        checkAborted(ctx.signal);
        const out: Row[] = [];
        for (const b of chunk) {
          const o = this.shape.buildOutcomeUnmatched(b);
          if (o) out.push(o);
        }
        if (out.length > 0) yield out;
      }
      return;
    }
    if (ctx.memory.tryReserve(buildBytes)) {
      const core = new JoinCore(this.spec, ctx.memory);
      try {
        const rows: Row[] = [];
        for await (const chunk of build.read()) for (const r of chunk) rows.push(r);
        // a big partition probes in worker threads like an unspilled build side would
        const parallel = ParallelProbe.tryCreate(this.spec, rows, ctx.workers, this.forceWorkers);
        if (parallel) {
          yield* parallel.run(probe.read(), ctx);
          return;
        }
        core.addBuild(rows, false);
        rows.length = 0;
        for await (const chunk of probe.read()) {
          checkAborted(ctx.signal);
          const out = core.probe(chunk);
          if (out.length > 0) yield out;
        }
        yield* core.finish(ctx.batchSize);
      } finally {
        core.release();
        ctx.memory.release(buildBytes);
      }
      return;
    }
    const next = level + 1;
    const free = ctx.memory.available;
    // splitting pays only if a part of 1/32 would fit what other operators leave free; else blocks use what there is
    if (next >= MAX_SPILL_DEPTH || buildBytes / SPILL_FANOUT > free) {
      this.report.blocks++;
      yield* blockJoin(this.spec, ctx, build, probe);
      return;
    }
    const subBuild = await this.split(build, this.buildKey, next);
    let subProbe: SpillPartitions<Row> | undefined;
    try {
      // one key holds every row: no further split can separate them
      if (subBuild.files.some((f) => f?.records === build.records)) {
        this.report.blocks++;
        yield* blockJoin(this.spec, ctx, build, probe);
        return;
      }
      this.count(subBuild);
      this.report.depth = Math.max(this.report.depth, next + 1);
      subProbe = await this.split(probe, this.probeKey, next);
      this.count(subProbe);
      for (let p = 0; p < subBuild.fanout; p++) {
        const b = subBuild.files[p];
        if (b) {
          yield* this.joinPartition(b, subBuild.sizes[p], subProbe.files[p], next);
          await b.remove();
        } else {
          const pf = subProbe.files[p];
          if (pf) yield* this.unmatchedProbe(pf);
        }
        await subProbe.files[p]?.remove();
      }
    } finally {
      await Promise.all([subBuild.remove(), subProbe?.remove()]);
    }
  }

  private async *unmatchedProbe(file: SpillFile<Row>): AsyncIterable<Row[]> {
    for await (const chunk of file.read()) {
      checkAborted(this.ctx.signal);
      const out: Row[] = [];
      for (const r of chunk) {
        const o = this.shape.probeOutcome(r, false);
        if (o) out.push(o);
      }
      if (out.length > 0) yield out;
    }
  }

  private async split(file: SpillFile<Row>, key: KeyFn, level: number): Promise<SpillPartitions<Row>> {
    const parts = new SpillPartitions<Row>(this.ctx, OPERATOR);
    try {
      for await (const chunk of file.read()) {
        checkAborted(this.ctx.signal);
        for (const r of chunk) parts.add(partitionOf(key(r), level, parts.fanout), r, rowBytes(r));
        await parts.flushFull();
      }
      await parts.flushAll();
    } catch (e) {
      await parts.remove();
      throw e;
    }
    return parts;
  }

  private count(parts: SpillPartitions<Row>): void {
    for (const f of parts.files) {
      if (!f) continue;
      this.report.partitions++;
      this.report.bytes += f.bytes;
    }
  }
}
