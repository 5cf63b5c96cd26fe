import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { t, type Row, type Value } from '@junction/connectors';
import { DiskTracker } from './context.js';
import { DistinctOp } from './distinct.js';
import { HashAggregateOp, type AggregateSpec } from './hash-aggregate/index.js';
import { makeKeyFn } from './hash-key.js';
import { LimitOp } from './limit.js';
import { NestedLoopJoinOp } from './nested-loop-join.js';
import { SetOpOp } from './set-op.js';
import { RowsOp, bag, run, testContext } from './test-support.js';
import { TopNOp } from './top-n.js';
import { WindowOp } from './window.js';
import { FilterOp } from './filter.js';
import { ProjectOp } from './project.js';

const sumSpec = (col: number): AggregateSpec => ({
  create() {
    let s: number | null = null;
    return {
      add: (r: Row) => {
        const v = r[col];
        if (v !== null) s = (s ?? 0) + (v as number);
      },
      result: (): Value => s,
    };
  },
});
const countStar: AggregateSpec = {
  create() {
    let n = 0n;
    return { add: () => void n++, result: () => n };
  },
};

describe('LimitOp', () => {
  it('stops and closes its child once satisfied', async () => {
    const child = new RowsOp([[[1], [2]], [[3], [4]], [[5], [6]], [[7]]]);
    const op = new LimitOp(child, 3, 1);
    expect(await run(op)).toEqual([[2], [3], [4]]);
    expect(child.pulled).toBe(2);
    expect(child.closed).toBe(true);
  });
  it('LIMIT 0 never reads its child', async () => {
    const child = new RowsOp([[[1]]]);
    expect(await run(new LimitOp(child, 0, 0))).toEqual([]);
    expect(child.pulled).toBe(0);
  });
});

describe('TopNOp', () => {
  it('keeps the best n rows, ties in input order, with offset', async () => {
    const rows: Row[] = [[5, 'a'], [1, 'b'], [null, 'c'], [3, 'd'], [1, 'e'], [4, 'f']];
    const op = new TopNOp(new RowsOp([rows.slice(0, 3), rows.slice(3)]), [{ column: 0, type: t.int32, desc: false, nullsFirst: false }], 3, 1, '');
    expect(await run(op)).toEqual([
      [1, 'e'],
      [3, 'd'],
      [4, 'f'],
    ]);
  });
});

describe('DistinctOp', () => {
  it('treats NULLs as equal and decimals by value', async () => {
    const op = new DistinctOp(new RowsOp([[[null, '1.0'], [null, '1.00'], [1, '2'], [1, '2.0'], [null, null], [null, null]]]), makeKeyFn([0, 1], [t.int32, t.decimal()], true));
    expect(await run(op)).toEqual([
      [null, '1.0'],
      [1, '2'],
      [null, null],
    ]);
  });
});

describe('SetOpOp', () => {
  const L: Row[] = [[1], [1], [2], [null], [null], [3]];
  const R: Row[] = [[1], [null], [4], [4]];
  const key = makeKeyFn([0], [t.int32], true);
  const cases: [string, 'union' | 'intersect' | 'except', boolean, Row[]][] = [
    ['UNION', 'union', false, [[1], [2], [null], [3], [4]]],
    ['UNION ALL', 'union', true, [...L, ...R]],
    ['INTERSECT', 'intersect', false, [[1], [null]]],
    ['INTERSECT ALL', 'intersect', true, [[1], [null]]],
    ['EXCEPT', 'except', false, [[2], [3]]],
    ['EXCEPT ALL', 'except', true, [[1], [2], [null], [3]]],
  ];
  for (const [name, op, all, want] of cases) {
    it(name, async () => {
      expect(bag(await run(new SetOpOp(op, all, new RowsOp([L]), new RowsOp([R]), key)))).toEqual(bag(want));
    });
  }
});

describe('NestedLoopJoinOp', () => {
  const L: Row[] = [[1], [5], [null]];
  const R: Row[] = [[3], [4]];
  const lt = (r: Row): Value => (r[0] === null || r[1] === null ? null : (r[0] as number) < (r[1] as number));
  it('inner join on a < b', async () => {
    expect(bag(await run(new NestedLoopJoinOp(new RowsOp([L]), new RowsOp([R]), 'inner', lt, 1, 1, '')))).toEqual(bag([[1, 3], [1, 4]]));
  });
  it('full join on a < b keeps both sides unmatched rows', async () => {
    const R2: Row[] = [[0], [3]];
    expect(bag(await run(new NestedLoopJoinOp(new RowsOp([L]), new RowsOp([R2]), 'full', lt, 1, 1, '')))).toEqual(
      bag([[1, 3], [5, null], [null, null], [null, 0]]),
    );
  });
  it('anti join keeps rows with no match (NULL included)', async () => {
    expect(bag(await run(new NestedLoopJoinOp(new RowsOp([L]), new RowsOp([R]), 'anti', lt, 1, 1, '')))).toEqual(bag([[5], [null]]));
  });
  it('cross join without a condition', async () => {
    expect((await run(new NestedLoopJoinOp(new RowsOp([L]), new RowsOp([R]), 'inner', undefined, 1, 1, ''))).length).toBe(6);
  });
});

describe('HashAggregateOp', () => {
  it('groups with NULL as its own group', async () => {
    const rows: Row[] = [['a', 1], ['b', 2], [null, 3], ['a', null], [null, 4]];
    const op = new HashAggregateOp(new RowsOp([rows.slice(0, 2), rows.slice(2)]), [0], makeKeyFn([0], [t.string], true), [countStar, sumSpec(1)], '');
    expect(bag(await run(op))).toEqual(bag([['a', 2n, 1], ['b', 1n, 2], [null, 2n, 7]]));
  });
  it('an empty input without GROUP BY still yields one row', async () => {
    const op = new HashAggregateOp(new RowsOp([]), [], makeKeyFn([], [], true), [countStar, sumSpec(0)], '');
    expect(await run(op)).toEqual([[0n, null]]);
  });
  it('an empty input with GROUP BY yields nothing', async () => {
    const op = new HashAggregateOp(new RowsOp([]), [0], makeKeyFn([0], [t.int32], true), [countStar], '');
    expect(await run(op)).toEqual([]);
  });
});

describe('WindowOp', () => {
  const rows: Row[] = [['x', 10], ['x', 20], ['x', 20], ['y', 5], ['x', 30]];
  it('row_number, rank, dense_rank and a running sum over peers', async () => {
    const order = [{ column: 1, type: t.int32, desc: false, nullsFirst: false }];
    const part = { partition: [0], partitionKey: makeKeyFn([0], [t.string], true), order, args: [] };
    const op = new WindowOp(
      new RowsOp([rows]),
      [
        { fn: 'row_number', ...part },
        { fn: 'rank', ...part },
        { fn: 'dense_rank', ...part },
        { fn: 'sum', ...part, args: [1], aggregate: sumSpec(1) },
      ],
      '',
    );
    expect(await run(op)).toEqual([
      ['x', 10, 1n, 1n, 1n, 10],
      ['x', 20, 2n, 2n, 2n, 50],
      ['x', 20, 3n, 2n, 2n, 50],
      ['x', 30, 4n, 4n, 3n, 80],
      ['y', 5, 1n, 1n, 1n, 5],
    ]);
  });
  it('an aggregate without ORDER BY covers the whole partition; lag reads the previous row', async () => {
    const order = [{ column: 1, type: t.int32, desc: false, nullsFirst: false }];
    const op = new WindowOp(
      new RowsOp([rows]),
      [
        { fn: 'sum', partition: [0], partitionKey: makeKeyFn([0], [t.string], true), order: [], args: [1], aggregate: sumSpec(1) },
        { fn: 'lag', partition: [0], partitionKey: makeKeyFn([0], [t.string], true), order, args: [1] },
      ],
      '',
    );
    expect(bag(await run(op))).toEqual(bag([['x', 10, 80, null], ['x', 20, 80, 10], ['x', 20, 80, 20], ['x', 30, 80, 20], ['y', 5, 5, null]]));
  });

  describe('aggregates over the whole input (OVER ())', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'junction-window-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const whole = { partition: [], order: [], args: [1] };
    const input = (n: number) =>
      Array.from({ length: n / 100 }, (_, b) => Array.from({ length: 100 }, (_, i): Row => [`row ${b * 100 + i}`, b * 100 + i]));

    it('holds the rows in memory while the budget lasts: input order, each with the totals', async () => {
      const op = new WindowOp(new RowsOp(input(500)), [{ fn: 'sum', ...whole, aggregate: sumSpec(1) }, { fn: 'count_star', ...whole, aggregate: countStar }], '');
      const out = await run(op, testContext({ spillDir: dir }));
      expect(out.length).toBe(500);
      expect(out[0]).toEqual(['row 0', 0, 124750, 500n]);
      expect(out[499]).toEqual(['row 499', 499, 124750, 500n]);
      expect(op.spill.bytes).toBe(0);
    });

    it('past the budget the rows wait on disk instead of failing, in input order, and the file is removed', async () => {
      const op = new WindowOp(new RowsOp(input(20_000)), [{ fn: 'sum', ...whole, aggregate: sumSpec(1) }], '');
      const disk = new DiskTracker(1 << 30);
      const ctx = testContext({ budget: 100_000, spillDir: dir, batchSize: 1000, disk });
      const out = await run(op, ctx);
      expect(out.map((r) => r[1])).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
      expect(new Set(out.map((r) => r[2]))).toEqual(new Set([199990000]));
      expect(op.spill.bytes).toBeGreaterThan(0);
      expect(op.info().detail).toBe(' (rows past the memory budget waited on disk)');
      expect(readdirSync(dir)).toEqual([]);
      expect(ctx.memory.usedBytes).toBe(0);
      expect(disk.usedBytes).toBe(0);
    });

    it('an empty input gives no rows', async () => {
      const op = new WindowOp(new RowsOp([]), [{ fn: 'count_star', ...whole, aggregate: countStar }], '');
      expect(await run(op)).toEqual([]);
    });
  });
});

describe('FilterOp and ProjectOp', () => {
  it('filter keeps only TRUE; project copies positions and evaluates functions', async () => {
    const f = new FilterOp(new RowsOp([[[1, 'a'], [null, 'b'], [3, 'c']]]), (r) => (r[0] === null ? null : (r[0] as number) > 1), '');
    const p = new ProjectOp(f, [1, (r) => (r[0] as number) * 2], '');
    expect(await run(p, testContext())).toEqual([['c', 6]]);
  });
});
