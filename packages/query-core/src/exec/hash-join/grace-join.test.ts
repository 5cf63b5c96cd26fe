import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isJunctionError, t, type Row } from '@junction/connectors';
import { DiskTracker, type ExecContext } from '../context.js';
import { buildExplain } from '../../explain/build.js';
import { explainText } from '../../explain/text.js';
import { makeKeyFn } from '../hash-key.js';
import { AbortingOp, RowsOp, bag, run, testContext } from '../test-support.js';
import { WorkerPool } from '../workers/pool.js';
import { HashJoinOp } from './index.js';
import type { HashJoinType, JoinSpec } from './join-core.js';

const dir = mkdtempSync(join(tmpdir(), 'jt-grace-'));
const pool = new WorkerPool(2);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pool.close();
});

function batches(rows: Row[], size = 100): Row[][] {
  const out: Row[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * Left: 1200 rows over keys 0..299 (duplicates), every 37th key NULL, 40 rows of the hot key 7.
 * Right: 900 rows over keys 0..399 as int64, every 41st NULL, and 900 more of the hot key 7,
 * so a right build side has one partition that no split can shrink.
 */
function data(): { left: Row[]; right: Row[] } {
  const left: Row[] = [];
  for (let i = 0; i < 1200; i++) left.push([i % 37 === 0 ? null : i % 300, `l${i}`]);
  for (let i = 0; i < 40; i++) left.push([7, `hot-l${i}`]);
  const right: Row[] = [];
  for (let i = 0; i < 900; i++) right.push([i % 41 === 0 ? null : BigInt(i % 400), `r${i}`]);
  for (let i = 0; i < 900; i++) right.push([7n, `hot-r${i}`]);
  return { left, right };
}

function spec(type: HashJoinType, buildSide: 'left' | 'right', residual?: (r: Row) => boolean): JoinSpec {
  return {
    type,
    buildSide,
    leftKey: makeKeyFn([0], [t.int32], false),
    rightKey: makeKeyFn([0], [t.int64], false),
    residual,
    leftWidth: 2,
    rightWidth: 2,
  };
}

function spillContext(budget: number, extra: Partial<ExecContext> = {}): ExecContext {
  return testContext({ budget, spillDir: dir, batchSize: 256, disk: new DiskTracker(1 << 30), ...extra });
}

const types: HashJoinType[] = ['inner', 'left', 'right', 'full', 'semi', 'anti'];
// the residual drops every pair whose right text ends in 3 and every pair of a left row ending in 9:
// rows with matching keys still come out unmatched, in the blocks of the hot key too
const residual = (r: Row): boolean => !(r[3] as string).endsWith('3') && !(r[1] as string).endsWith('9');

describe('HashJoinOp spilling to disk (grace hash join)', () => {
  const { left, right } = data();
  for (const type of types) {
    for (const build of ['left', 'right'] as const) {
      for (const withResidual of [false, true]) {
        it(`${type} join, build ${build}${withResidual ? ', with a residual' : ''}: the same rows as in memory, files removed`, async () => {
          const s = spec(type, build, withResidual ? residual : undefined);
          const inMemory = await run(new HashJoinOp(new RowsOp(batches(left)), new RowsOp(batches(right)), s, ''));
          const op = new HashJoinOp(new RowsOp(batches(left)), new RowsOp(batches(right)), s, '');
          const ctx = spillContext(24_000);
          const spilled = await run(op, ctx);
          expect(bag(spilled)).toEqual(bag(inMemory));
          expect(op.spill.partitions).toBeGreaterThan(1);
          expect(op.spill.bytes).toBeGreaterThan(0);
          if (build === 'right') {
            // the hot key's partition is split again, then joined in blocks
            expect(op.spill.depth).toBeGreaterThan(1);
            expect(op.spill.blocks).toBeGreaterThan(0);
          }
          expect(readdirSync(dir)).toEqual([]);
          expect(ctx.memory.usedBytes).toBe(0);
          expect(ctx.disk!.usedBytes).toBe(0);
          expect(ctx.disk!.writtenBytes).toBeGreaterThanOrEqual(op.spill.bytes);
        });
      }
    }
  }

  for (const type of types) {
    for (const build of ['left', 'right'] as const) {
      it(`${type} join, build ${build} past the budget, the other side small: sides swap, same rows`, async () => {
        const big = build === 'right' ? right : left;
        const small = (build === 'right' ? left : right).slice(0, 150);
        const [l, r] = build === 'right' ? [small, big] : [big, small];
        const s = spec(type, build, residual);
        const inMemory = await run(new HashJoinOp(new RowsOp(batches(l)), new RowsOp(batches(r)), s, ''));
        const op = new HashJoinOp(new RowsOp(batches(l)), new RowsOp(batches(r)), s, '');
        const ctx = spillContext(24_000);
        expect(bag(await run(op, ctx))).toEqual(bag(inMemory));
        expect(op.spill).toMatchObject({ swapped: true, partitions: 0 });
        expect(op.spill.bytes).toBeGreaterThan(0);
        expect(op.info().detail).toMatch(/, build side past the budget: sides swapped, spilled [0-9.]+ kB$/);
        expect(readdirSync(dir)).toEqual([]);
        expect(ctx.memory.usedBytes).toBe(0);
      });
    }
  }

  it('decides rows whose partition has no rows of the other side without writing them', async () => {
    // two build keys fill two of 32 partitions; most probe rows meet an empty one
    const l: Row[] = Array.from({ length: 1000 }, (_, i) => [i % 50 === 0 ? null : i % 100, `l${i}`]);
    const r: Row[] = Array.from({ length: 600 }, (_, i) => [BigInt(i % 2) * 3n, `r${i}`]);
    for (const type of types) {
      for (const build of ['left', 'right'] as const) {
        const inMemory = await run(new HashJoinOp(new RowsOp(batches(l)), new RowsOp(batches(r)), spec(type, build), ''));
        const op = new HashJoinOp(new RowsOp(batches(l)), new RowsOp(batches(r)), spec(type, build), '');
        const ctx = spillContext(8_000);
        expect(bag(await run(op, ctx)), `${type} build ${build}`).toEqual(bag(inMemory));
        expect(op.spill.partitions).toBeGreaterThan(1);
        expect(readdirSync(dir)).toEqual([]);
        expect(ctx.memory.usedBytes).toBe(0);
      }
    }
  });

  it('exact values survive the disk: bigint past 2^53, decimals as text, dates, bytes', async () => {
    const big = 2n ** 60n + 1n;
    const l: Row[] = [];
    const r: Row[] = [];
    for (let i = 0; i < 400; i++) {
      l.push([BigInt(i) + big, '12345678901234567890.000001', '2024-02-29']);
      r.push([BigInt(i) + big, new Uint8Array([i & 255, 0, 255]), null]);
    }
    const s: JoinSpec = {
      type: 'inner',
      buildSide: 'right',
      leftKey: makeKeyFn([0], [t.int64], false),
      rightKey: makeKeyFn([0], [t.int64], false),
      leftWidth: 3,
      rightWidth: 3,
    };
    const op = new HashJoinOp(new RowsOp(batches(l)), new RowsOp(batches(r)), s, '');
    const out = await run(op, spillContext(8_000));
    expect(op.spill.partitions).toBeGreaterThan(0);
    expect(bag(out)).toEqual(bag(l.map((x, i) => [...x, ...r[i]])));
    expect(out.find((x) => x[0] === big + 5n)).toEqual([big + 5n, '12345678901234567890.000001', '2024-02-29', big + 5n, new Uint8Array([5, 0, 255]), null]);
  });

  it('probes big partitions in worker threads', async () => {
    const l: Row[] = Array.from({ length: 3000 }, (_, i) => [i % 11 === 0 ? null : i % 1000, `l${i}`]);
    const r: Row[] = Array.from({ length: 2000 }, (_, i) => [i % 13 === 0 ? null : BigInt(i), `r${i}`]);
    for (const type of ['inner', 'left', 'semi', 'anti'] as const) {
      const inMemory = await run(new HashJoinOp(new RowsOp(batches(l)), new RowsOp(batches(r)), spec(type, 'right'), ''));
      const op = new HashJoinOp(new RowsOp(batches(l)), new RowsOp(batches(r)), spec(type, 'right'), '');
      op.forceWorkers = true;
      const ctx = spillContext(60_000, { workers: pool });
      expect(bag(await run(op, ctx))).toEqual(bag(inMemory));
      expect(op.spill.partitions).toBeGreaterThan(1);
      expect(readdirSync(dir)).toEqual([]);
      expect(ctx.memory.usedBytes).toBe(0);
    }
  });

  it('shows partitions, bytes and depth in EXPLAIN ANALYZE', async () => {
    const op = new HashJoinOp(new RowsOp(batches(left)), new RowsOp(batches(right)), spec('inner', 'right'), 'on l.k = r.k');
    await run(op, spillContext(24_000));
    const node = buildExplain(op, { analyze: true });
    expect(node.actual?.spill).toEqual({ bytes: op.spill.bytes, partitions: op.spill.partitions, depth: op.spill.depth, blocks: op.spill.blocks, swapped: false });
    expect(explainText(node).split('\n')[0]).toMatch(
      new RegExp(`^HashJoin inner build=right on l\\.k = r\\.k, spilled [0-9.]+ kB in ${op.spill.partitions} partitions, depth ${op.spill.depth}, ${op.spill.blocks} joined in blocks \\(actual rows=`),
    );
  });

  it('a cancel during the probe side stops the join and removes its files', async () => {
    const controller = new AbortController();
    // past what the probe side's read-ahead pulls on its own (4 batches and a quarter of the
    // budget) while the build side is still being read: only the join itself gets this far
    const probe = new AbortingOp(batches(left), 10, controller);
    const op = new HashJoinOp(probe, new RowsOp(batches(right)), spec('inner', 'right'), '');
    const ctx = spillContext(24_000, { signal: controller.signal });
    const err = await run(op, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && err.code).toBe('query_cancelled');
    // the build side went to disk before the probe side was cut short
    expect(op.spill.bytes).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.memory.usedBytes).toBe(0);
    expect(ctx.disk!.usedBytes).toBe(0);
  });

  it('a consumer that stops after the first batch leaves no files behind', async () => {
    const op = new HashJoinOp(new RowsOp(batches(left)), new RowsOp(batches(right)), spec('full', 'right'), '');
    const ctx = spillContext(24_000);
    for await (const b of op.execute(ctx)) {
      expect(b.length).toBeGreaterThan(0);
      break;
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.memory.usedBytes).toBe(0);
  });

  it('stops with spill_limit_exceeded past maxSpillBytes and removes what it wrote', async () => {
    const op = new HashJoinOp(new RowsOp(batches(left)), new RowsOp(batches(right)), spec('inner', 'right'), '');
    const ctx = spillContext(24_000, { disk: new DiskTracker(20_000) });
    const err = await run(op, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && [err.code, err.kind, err.message]).toEqual([
      'spill_limit_exceeded',
      'resources',
      'The query needs more than its 20000 bytes of spill space on disk (in HashJoin). Add filters or let more of the work run in the sources.',
    ]);
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.disk!.usedBytes).toBe(0);
    expect(ctx.memory.usedBytes).toBe(0);
  });

  it('fails with memory_budget_exceeded only when one build row is bigger than the whole budget', async () => {
    const op = new HashJoinOp(new RowsOp([[[1, 'y'.repeat(50_000)]]]), new RowsOp([[[1n, 'x'.repeat(50_000)]]]), spec('inner', 'right'), '');
    const ctx = spillContext(20_000);
    const err = await run(op, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && [err.code, err.kind, err.message]).toEqual([
      'memory_budget_exceeded',
      'resources',
      'The query needs more than its memory budget of 20000 bytes (in HashJoin build block). Add filters, raise memoryBudgetBytes, or let more of the work run in the sources.',
    ]);
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.memory.usedBytes).toBe(0);
  });
});
