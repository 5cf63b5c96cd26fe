import { afterAll, describe, expect, it } from 'vitest';
import { JunctionError, t, type AggFn, type JType, type Row, type Value } from '@junction/connectors';
import { makeAccumulator } from '../../expr/aggregates.js';
import type { ExecContext } from '../context.js';
import type { RowFn } from '../expr-fn.js';
import { makeKeyFn } from '../hash-key.js';
import { Operator, type OperatorInfo } from '../operator.js';
import { RowsOp, run, testContext } from '../test-support.js';
import { WorkerPool } from '../workers/pool.js';
import { HashAggregateOp, type AggregateSpec } from './index.js';

const pool = new WorkerPool(2);
afterAll(() => pool.close());

// columns: 0 int32 key (NULL every 11th), 1 int64 key, 2 decimal key, 3 float key (NaN, -0, 0), 4 text key,
// 5 date key, 6 int32 value (NULL every 13th), 7 int64 value, 8 decimal 0.1, 9 float value, 10 char(3) key
const TYPES: JType[] = [t.int32, t.int64, t.decimal(5, 2), t.float64, t.string, t.date, t.int32, t.int64, t.decimal(3, 1), t.float64, t.char(3)];

function data(n: number, batch = 1000): Row[][] {
  const out: Row[][] = [];
  let b: Row[] = [];
  for (let i = 0; i < n; i++) {
    b.push([
      i % 11 === 0 ? null : i % 7,
      BigInt(i % 5),
      ['1.50', '2.00', '-0.25'][i % 3],
      [NaN, -0, 0, 1.5, null][i % 5],
      ['a', 'b ', 'ü€', '', null][(i >> 3) % 5],
      `2024-01-0${(i % 3) + 1}`,
      i % 13 === 0 ? null : i,
      BigInt(i) * 1_000_000_007n,
      '0.1',
      i * 0.5,
      ['ab ', 'ab', 'x  '][i % 3],
    ]);
    if (b.length === batch) {
      out.push(b);
      b = [];
    }
  }
  if (b.length) out.push(b);
  return out;
}

/** An aggregate as the compiler builds it: closures for the in-thread path, accumulator + inputs for the worker path. */
function agg(fn: AggFn, arg?: number | RowFn, opts: { distinct?: boolean; filter?: RowFn; arg2?: number } = {}): AggregateSpec {
  const argType = arg === undefined ? undefined : typeof arg === 'number' ? TYPES[arg] : t.int32;
  const distinct = opts.distinct ?? false;
  const acc = makeAccumulator(fn, argType, { distinct });
  const read = (a: number | RowFn | undefined) => (a === undefined ? undefined : typeof a === 'number' ? (r: Row) => r[a] : a);
  const a0 = read(arg);
  const a1 = read(opts.arg2);
  const f = opts.filter;
  const args = [arg, opts.arg2].filter((x) => x !== undefined);
  return {
    create() {
      let s = acc.init();
      return {
        add(row: Row) {
          if (f && f(row) !== true) return;
          s = acc.add(s, a0 ? a0(row) : null, a1 ? a1(row) : undefined);
        },
        result: () => acc.finish(s),
      };
    },
    mergeable: { fn, argType, distinct, acc, args, filter: f },
  };
}

const ALL: AggregateSpec[] = [
  agg('count_star'),
  agg('count', 6),
  agg('sum', 6),
  agg('avg', 6),
  agg('min', 6),
  agg('max', 6),
  agg('sum', 7),
  agg('avg', 7),
  agg('min', 7),
  agg('max', 7),
  agg('sum', 8),
  agg('avg', 8),
  agg('sum', 2),
  agg('min', 2),
  agg('max', 2),
  agg('min', 9),
  agg('max', 9),
  agg('min', 4),
  agg('max', 4),
  agg('min', 5),
  agg('count', 4, { distinct: true }),
  agg('string_agg', 4, { arg2: 2 }),
];

/** `closures`: without key types the operator keeps each aggregate's closures, the path independent of accumulator states */
function op(input: Row[][], keys: number[], aggs: AggregateSpec[], workers: boolean, chunkRows = 4096, closures = false): HashAggregateOp {
  const types = keys.map((k) => TYPES[k]);
  const o = new HashAggregateOp(new RowsOp(input), keys, makeKeyFn(keys, types, true), aggs, 'detail', undefined, undefined, closures ? undefined : types);
  o.forceWorkers = workers;
  o.chunkRows = chunkRows;
  return o;
}

/** The in-thread rows (closures) and the worker path's rows for the same input; the in-thread accumulator-state path must agree too. */
async function both(input: Row[][], keys: number[], aggs: AggregateSpec[] = ALL): Promise<{ expected: Row[]; got: Row[]; w: HashAggregateOp; ctx: ExecContext }> {
  const expected = await run(op(input, keys, aggs, false, undefined, true));
  expect(await run(op(input, keys, aggs, false))).toEqual(expected);
  const w = op(input, keys, aggs, true);
  const ctx = testContext({ workers: pool });
  const got = await run(w, ctx);
  return { expected, got, w, ctx };
}

describe('hash aggregate in worker threads', () => {
  const input = data(50_000);
  for (const [name, keys] of [
    ['int32 with NULLs', [0]],
    ['int64', [1]],
    ['decimal', [2]],
    ['float with NaN and -0', [3]],
    ['text with NULLs and trailing blanks', [4]],
    ['date', [5]],
    ['char(3), trailing blanks ignored', [10]],
    ['several columns', [0, 4, 3]],
    ['nothing (global aggregate)', []],
  ] as const) {
    it(`group by ${name} gives exactly the in-thread rows`, async () => {
      const { expected, got, w, ctx } = await both(input, [...keys]);
      // 50,000 rows in 4,096-row chunks: 12 chunks to workers, the last 848 rows in-thread
      expect(w.report).toEqual({ chunks: 12, fellBack: false });
      expect(got).toEqual(expected);
      expect(ctx.memory.usedBytes).toBe(0);
    });
  }

  it('groups NaN with NaN and -0 with 0, keeping the first key seen', async () => {
    const { got } = await both(input, [3], [agg('count_star')]);
    expect(got).toEqual([[NaN, 10_000n], [-0, 20_000n], [1.5, 10_000n], [null, 10_000n]]);
  });

  it('sums decimals exactly', async () => {
    const { got, w } = await both(data(100_000), [], [agg('sum', 8), agg('avg', 8), agg('count', 8), agg('sum', 7)]);
    expect(w.report.chunks).toBe(24);
    // sum(int64) is numeric, as in PostgreSQL: 1,000,000,007 × (0 + … + 99,999)
    expect(got).toEqual([['10000.0', '0.10000000000000000000', 100_000n, '4999950034999650000']]);
  });

  it('global aggregate over an empty input gives one row', async () => {
    const { expected, got } = await both([], [], ALL);
    expect(got).toEqual(expected);
    expect(got).toEqual([[0n, 0n, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, 0n, null]]);
  });

  it('evaluates FILTER clauses, and arguments only where the filter holds', async () => {
    const even = (r: Row) => r[6] !== null && (r[6] as number) % 2 === 0;
    const half = (r: Row): Value => {
      if ((r[6] as number) % 2 !== 0) throw new Error('argument evaluated outside its FILTER');
      return (r[6] as number) / 2;
    };
    const aggs = [agg('count_star', undefined, { filter: even }), agg('sum', half, { filter: even }), agg('max', 6, { filter: even })];
    const { expected, got, w } = await both(input, [1], aggs);
    expect(w.report.chunks).toBe(12);
    expect(got).toEqual(expected);
    // group 0: even i < 50,000 with i % 5 = 0 and i % 13 ≠ 0
    expect(got[0]).toEqual([0n, 4615n, 57_682_700n, 49_990]);
  });

  it('goes back in-thread when a chunk has about one group per row', async () => {
    const rows = data(50_000).map((b) => b.map((r) => [r[6], r[7]]));
    const aggs = [agg('count_star'), agg('sum', 1)];
    const expected = await run(new HashAggregateOp(new RowsOp(rows), [0], makeKeyFn([0], [t.int32], true), aggs, 'd'));
    const w = new HashAggregateOp(new RowsOp(rows), [0], makeKeyFn([0], [t.int32], true), aggs, 'd', undefined, undefined, [t.int32]);
    w.forceWorkers = true;
    w.chunkRows = 4096;
    const got = await run(w, testContext({ workers: pool }));
    // the first two chunks were already out when the first came back with 4,096 groups
    expect(w.report).toEqual({ chunks: 2, fellBack: 'groups' });
    expect(w.info().detail).toBe('d, in worker threads (2 chunks), then in-thread: about one group per row');
    expect(got).toEqual(expected);
  });

  it('keeps float sums and averages in-thread: their result would depend on the merge order', async () => {
    const o = op(input, [1], [agg('count_star'), agg('sum', 9)], true);
    const got = await run(o, testContext({ workers: pool }));
    expect(o.report.chunks).toBe(0);
    expect(got).toEqual(await run(op(input, [1], [agg('count_star'), agg('sum', 9)], false, undefined, true)));
    expect(got[0]).toEqual([0n, 10_000n, 124_987_500]);
  });

  it('EXPLAIN says how many chunks ran in worker threads', async () => {
    const { w } = await both(input, [1], [agg('count_star')]);
    expect(w.info().detail).toBe('detail, in worker threads (12 chunks)');
  });

  it('stays in-thread below the row threshold', async () => {
    const o = op(data(10_000), [1], [agg('count_star')], false);
    expect(await run(o, testContext({ workers: pool }))).toEqual([[0n, 2000n], [1n, 2000n], [2n, 2000n], [3n, 2000n], [4n, 2000n]]);
    expect(o.report.chunks).toBe(0);
    expect(o.info().detail).toBe('detail');
  });

  it('reports an error raised in a worker as the in-thread path does', async () => {
    const bad = data(50_000);
    bad[30][500][8] = 'abc';
    const inThread = await run(op(bad, [1], [agg('sum', 8)], false, undefined, true)).catch((e: unknown) => e);
    const w = op(bad, [1], [agg('sum', 8)], true);
    const ctx = testContext({ workers: pool });
    const inWorker = await run(w, ctx).catch((e: unknown) => e);
    expect(inThread).toBeInstanceOf(JunctionError);
    expect(inWorker).toBeInstanceOf(JunctionError);
    expect(inWorker).toMatchObject({ code: 'invalid_text_representation', kind: 'user', message: 'invalid input syntax for type numeric: "abc"' });
    expect((inWorker as JunctionError).message).toBe((inThread as JunctionError).message);
    expect(w.report.chunks).toBeGreaterThan(0);
    expect(ctx.memory.usedBytes).toBe(0);
  });

  it('stops when the query is cancelled mid-way', async () => {
    const controller = new AbortController();
    const batches = data(200_000);
    class Cancelling extends Operator {
      readonly children = [];
      info(): OperatorInfo {
        return { operator: 'Cancelling', runsIn: 'test' };
      }
      protected async *run(): AsyncIterable<Row[]> {
        for (let i = 0; i < batches.length; i++) {
          if (i === 100) controller.abort();
          yield batches[i];
        }
      }
    }
    const w = new HashAggregateOp(new Cancelling(), [1], makeKeyFn([1], [t.int64], true), [agg('sum', 8)], 'd', undefined, undefined, [t.int64]);
    w.forceWorkers = true;
    w.chunkRows = 4096;
    const ctx = testContext({ workers: pool, signal: controller.signal });
    const err = await run(w, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JunctionError);
    expect(err).toMatchObject({ code: 'query_cancelled', kind: 'cancelled' });
    expect(w.report.chunks).toBeGreaterThan(0);
    expect(w.report.chunks).toBeLessThan(30);
    expect(ctx.memory.usedBytes).toBe(0);
  });
});
