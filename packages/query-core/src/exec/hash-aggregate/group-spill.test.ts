import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isJunctionError, t, type AggFn, type JType, type Row } from '@junction/connectors';
import { makeAccumulator } from '../../expr/aggregates.js';
import { buildExplain } from '../../explain/build.js';
import { DiskTracker, type ExecContext } from '../context.js';
import type { RowFn } from '../expr-fn.js';
import { makeKeyFn } from '../hash-key.js';
import { AbortingOp, RowsOp, bag, run, testContext } from '../test-support.js';
import { WorkerPool } from '../workers/pool.js';
import { HashAggregateOp, type AggregateSpec } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'jt-aggspill-'));
const pool = new WorkerPool(2);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pool.close();
});

// 0 int32 key (NULL every 97th), 1 int64 value past 2^53, 2 decimal text, 3 text, 4 float, 5 int32 small key
const TYPES: JType[] = [t.int32, t.int64, t.decimal(12, 2), t.string, t.float64, t.int32];

function data(n: number, groups: number, batch = 500): Row[][] {
  const out: Row[][] = [];
  let b: Row[] = [];
  for (let i = 0; i < n; i++) {
    b.push([i % 97 === 0 ? null : (i * 7919) % groups, 2n ** 60n + BigInt(i), `${i % 1000}.${String(i % 100).padStart(2, '0')}`, `t${(i * 31) % 500}`, i * 0.1, i % 5]);
    if (b.length === batch) {
      out.push(b);
      b = [];
    }
  }
  if (b.length) out.push(b);
  return out;
}

function agg(fn: AggFn, arg?: number, opts: { distinct?: boolean; arg2?: number } = {}): AggregateSpec {
  const argType = arg === undefined ? undefined : TYPES[arg];
  const distinct = opts.distinct ?? false;
  const acc = makeAccumulator(fn, argType, { distinct });
  const args = [arg, opts.arg2].filter((x): x is number => x !== undefined);
  return {
    create() {
      let s = acc.init();
      return {
        add(row: Row) {
          s = acc.add(s, arg === undefined ? null : row[arg], opts.arg2 === undefined ? undefined : row[opts.arg2]);
        },
        result: () => acc.finish(s),
      };
    },
    mergeable: { fn, argType, distinct, acc, args },
  };
}

const PLAIN: AggregateSpec[] = [agg('count_star'), agg('count', 3), agg('sum', 1), agg('avg', 2), agg('min', 3), agg('max', 3), agg('sum', 4)];
const GROWING: AggregateSpec[] = [agg('count_star'), agg('count', 3, { distinct: true }), agg('sum', 2, { distinct: true }), agg('string_agg', 3, { arg2: 3 })];

function aggregate(input: Row[][], keys: (number | RowFn)[], types: JType[], aggs: AggregateSpec[]): HashAggregateOp {
  return new HashAggregateOp(new RowsOp(input), keys, makeKeyFn(keys, types, true), aggs, 'detail', undefined, undefined, types);
}

function spillContext(budget: number, extra: Partial<ExecContext> = {}): ExecContext {
  return testContext({ budget, spillDir: dir, batchSize: 256, disk: new DiskTracker(1 << 30), ...extra });
}

async function compare(input: Row[][], keys: (number | RowFn)[], types: JType[], aggs: AggregateSpec[], budget: number, extra: Partial<ExecContext> = {}, force = false) {
  const expected = await run(aggregate(input, keys, types, aggs));
  const op = aggregate(input, keys, types, aggs);
  op.forceWorkers = force;
  op.chunkRows = 1000;
  const ctx = spillContext(budget, extra);
  const got = await run(op, ctx);
  expect(bag(got)).toEqual(bag(expected));
  expect(readdirSync(dir)).toEqual([]);
  expect(ctx.memory.usedBytes).toBe(0);
  expect(ctx.disk!.usedBytes).toBe(0);
  return { op, got, expected, ctx };
}

describe('HashAggregateOp spilling to disk', () => {
  const input = data(20_000, 4000);

  it('many groups: the same rows as in memory (exact bigint, decimal and float sums), NULL keys one group', async () => {
    const { op, got } = await compare(input, [0], [t.int32], PLAIN, 150_000);
    expect(op.spill.partitions).toBeGreaterThan(1);
    expect(op.spill.depth).toBe(1);
    expect(got.length).toBe(4001);
    expect(got.filter((r) => r[0] === null).length).toBe(1);
  });

  it('splits partitions again when they still do not fit', async () => {
    const { op } = await compare(input, [0], [t.int32], PLAIN, 40_000);
    expect(op.spill.depth).toBeGreaterThan(1);
  });

  it('two key columns, one an expression', async () => {
    const keys: (number | RowFn)[] = [5, (r: Row) => (r[0] === null ? null : (r[0] as number) % 700)];
    const { op } = await compare(input, keys, [t.int32, t.int32], PLAIN, 60_000);
    expect(op.spill.partitions).toBeGreaterThan(1);
  });

  it('DISTINCT and string_agg states that outgrow the budget are evicted and merged back, order kept', async () => {
    // about 430 kB of states per group: one fits, five do not
    const { op, got, expected } = await compare(input, [5], [t.int32], GROWING, 1_000_000);
    expect(op.spill.partitions).toBeGreaterThan(0);
    expect(got.length).toBe(5);
    // string_agg's order is the input order, whatever went through the disk
    const byKey = (rows: Row[]) => new Map(rows.map((r) => [r[0], r[4]]));
    expect(byKey(got)).toEqual(byKey(expected));
  });

  it('many groups with DISTINCT aggregates', async () => {
    const { op } = await compare(input, [0], [t.int32], GROWING, 100_000);
    expect(op.spill.partitions).toBeGreaterThan(1);
  });

  it('merges worker partials that find no room through the disk', async () => {
    // a float sum keeps an aggregate in-thread (its result would depend on the merge order)
    const { op } = await compare(input, [0], [t.int32], PLAIN.slice(0, -1), 150_000, { workers: pool }, true);
    expect(op.report.chunks).toBeGreaterThan(0);
    expect(op.spill.partitions).toBeGreaterThan(1);
  });

  it('a global aggregate whose one DISTINCT set passes the budget cannot spill: memory_budget_exceeded, files removed', async () => {
    const op = aggregate(input, [], [], [agg('count', 1, { distinct: true })]);
    const ctx = spillContext(100_000);
    const err = await run(op, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && [err.code, err.kind]).toEqual(['memory_budget_exceeded', 'resources']);
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.memory.usedBytes).toBe(0);
  });

  it('shows the spill in EXPLAIN ANALYZE', async () => {
    const op = aggregate(input, [0], [t.int32], PLAIN);
    await run(op, spillContext(150_000));
    const node = buildExplain(op, { analyze: true });
    expect(node.actual?.spill).toEqual({ bytes: op.spill.bytes, partitions: op.spill.partitions, depth: 1, blocks: 0, swapped: false });
    expect(node.detail).toMatch(new RegExp(`^detail, spilled [0-9.]+ kB in ${op.spill.partitions} partitions, depth 1$`));
  });

  it('a cancel stops it and removes its files', async () => {
    const controller = new AbortController();
    const op = new HashAggregateOp(new AbortingOp(input, 30, controller), [0], makeKeyFn([0], [t.int32], true), PLAIN, '', undefined, undefined, [t.int32]);
    const ctx = spillContext(50_000, { signal: controller.signal });
    const err = await run(op, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && err.code).toBe('query_cancelled');
    expect(op.spill.depth).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.memory.usedBytes).toBe(0);
    expect(ctx.disk!.usedBytes).toBe(0);
  });

  it('stops with spill_limit_exceeded past maxSpillBytes', async () => {
    const op = aggregate(input, [0], [t.int32], PLAIN);
    const ctx = spillContext(50_000, { disk: new DiskTracker(30_000) });
    const err = await run(op, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJunctionError(err) && [err.code, err.message]).toEqual([
      'spill_limit_exceeded',
      'The query needs more than its 30000 bytes of spill space on disk (in HashAggregate). Add filters or let more of the work run in the sources.',
    ]);
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.disk!.usedBytes).toBe(0);
  });
});
