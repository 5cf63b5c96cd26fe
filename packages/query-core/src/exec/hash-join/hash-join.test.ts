import { describe, expect, it, vi } from 'vitest';
import { rowBytes, t, type Row } from '@junction/connectors';
import { makeKeyFn } from '../hash-key.js';
import { RowsOp, bag, run, testContext } from '../test-support.js';
import type { OperatorInfo } from '../operator.js';
import { SpillFile } from '../spill/spill-file.js';
import { HashJoinOp } from './index.js';
import type { HashJoinType, JoinSpec } from './join-core.js';

const L: Row[] = [
  [1, 'a'],
  [2, 'b'],
  [null, 'c'],
  [2, 'b2'],
];
const R: Row[] = [
  [2n, 'x'],
  [3n, 'y'],
  [null, 'z'],
  [2n, 'x2'],
];

function spec(type: HashJoinType, buildSide: 'left' | 'right', residual?: (r: Row) => boolean): JoinSpec {
  return {
    type,
    buildSide,
    // int32 on the left, int64 on the right: 2 = 2n must match
    leftKey: makeKeyFn([0], [t.int32], false),
    rightKey: makeKeyFn([0], [t.int64], false),
    residual,
    leftWidth: 2,
    rightWidth: 2,
  };
}

const inner: Row[] = [
  [2, 'b', 2n, 'x'],
  [2, 'b', 2n, 'x2'],
  [2, 'b2', 2n, 'x'],
  [2, 'b2', 2n, 'x2'],
];
const expected: Record<HashJoinType, Row[]> = {
  inner,
  left: [...inner, [1, 'a', null, null], [null, 'c', null, null]],
  right: [...inner, [null, null, 3n, 'y'], [null, null, null, 'z']],
  full: [...inner, [1, 'a', null, null], [null, 'c', null, null], [null, null, 3n, 'y'], [null, null, null, 'z']],
  semi: [
    [2, 'b'],
    [2, 'b2'],
  ],
  anti: [
    [1, 'a'],
    [null, 'c'],
  ],
};

describe('HashJoinOp', () => {
  for (const type of Object.keys(expected) as HashJoinType[]) {
    for (const build of ['left', 'right'] as const) {
      it(`${type} join, build ${build}: NULL keys never match`, async () => {
        const op = new HashJoinOp(new RowsOp([L.slice(0, 2), L.slice(2)]), new RowsOp([R.slice(0, 1), R.slice(1)]), spec(type, build), '');
        expect(bag(await run(op))).toEqual(bag(expected[type]));
      });
    }
  }

  it('applies the residual condition as part of the match (left join keeps unmatched rows)', async () => {
    const op = new HashJoinOp(new RowsOp([L]), new RowsOp([R]), spec('left', 'right', (r) => r[3] !== 'x2'), '');
    expect(bag(await run(op))).toEqual(
      bag([
        [2, 'b', 2n, 'x'],
        [2, 'b2', 2n, 'x'],
        [1, 'a', null, null],
        [null, 'c', null, null],
      ]),
    );
  });

  it('semi join with the left side built honours the residual', async () => {
    const op = new HashJoinOp(new RowsOp([L]), new RowsOp([R]), spec('semi', 'left', (r) => r[1] === 'b2'), '');
    expect(await run(op)).toEqual([[2, 'b2']]);
  });

  it('matches decimal text against integers and char(n) ignoring trailing blanks', async () => {
    const op = new HashJoinOp(
      new RowsOp([
        [
          ['5.00', 'ab  '],
          ['6.5', 'cd'],
        ],
      ]),
      new RowsOp([
        [
          [5n, 'ab'],
          [6, 'cd'],
        ],
      ]),
      {
        type: 'inner',
        buildSide: 'right',
        leftKey: makeKeyFn([0, 1], [t.decimal(10, 2), t.char(4)], false),
        rightKey: makeKeyFn([0, 1], [t.int64, t.varchar(4)], false),
        leftWidth: 2,
        rightWidth: 2,
      },
      '',
    );
    expect(await run(op)).toEqual([['5.00', 'ab  ', 5n, 'ab']]);
  });

  it('does not read the probe side past its start when the build side is empty (inner join)', async () => {
    const probe = new RowsOp([[[1, 'a']], [[2, 'b']], [[3, 'c']], [[4, 'd']], [[5, 'e']], [[6, 'f']], [[7, 'g']]]);
    const op = new HashJoinOp(probe, new RowsOp([]), spec('inner', 'right'), '');
    expect(await run(op)).toEqual([]);
    expect(probe.closed).toBe(true);
    expect(probe.pulled).toBeLessThan(7);
  });

  it('stops reading the build side once the probe side has ended empty (inner join)', async () => {
    const build = new SlowRowsOp(Array.from({ length: 50 }, (_, i) => [[i, 'x']]));
    const op = new HashJoinOp(new RowsOp([]), build, spec('inner', 'right'), '');
    expect(await run(op)).toEqual([]);
    expect(build.closed).toBe(true);
    expect(build.pulled).toBeLessThan(50);
    expect(op.info().detail).toContain('build side left unread: the probe side was empty');
  });

  it('reads the whole build side when its rows come out unmatched (left join, left built; anti join, left built)', async () => {
    for (const type of ['left', 'anti'] as const) {
      const build = new SlowRowsOp(Array.from({ length: 5 }, (_, i) => [[i, 'x']]));
      const op = new HashJoinOp(build, new RowsOp([]), spec(type, 'left'), '');
      expect(await run(op)).toHaveLength(5);
      expect(build.pulled).toBe(5);
    }
  });

  it('swaps sides instead of failing when the build side passes the budget and the probe side fits', async () => {
    const big: Row[] = Array.from({ length: 5000 }, (_, i) => [i, 'x'.repeat(100)]);
    const op = new HashJoinOp(new RowsOp([L]), new RowsOp([big]), spec('inner', 'right'), '');
    const ctx = testContext({ budget: 100_000 });
    expect(bag(await run(op, ctx))).toEqual(bag([[1, 'a', 1, 'x'.repeat(100)], [2, 'b', 2, 'x'.repeat(100)], [2, 'b2', 2, 'x'.repeat(100)]]));
    expect(op.spill.swapped).toBe(true);
    expect(ctx.memory.usedBytes).toBe(0);
  });

  it('keeps the build rows read before the budget was passed reserved until they are on disk', async () => {
    const batches: Row[][] = [0, 1, 2].map((b) => Array.from({ length: 500 }, (_, i) => [b * 500 + i, 'x'.repeat(100)]));
    const bytes = (rows: Row[]): number => rows.reduce((n, r) => n + rowBytes(r), 0);
    const fitted = bytes(batches[0]) + bytes(batches[1]);
    const ctx = testContext({ budget: fitted + bytes(batches[2]) / 2 });
    const atWrites: number[] = [];
    const original = SpillFile.prototype.write;
    const write = vi.spyOn(SpillFile.prototype, 'write').mockImplementation(function (this: SpillFile<unknown>, rows) {
      atWrites.push(ctx.memory.usedBytes);
      return original.call(this, rows);
    });
    try {
      const op = new HashJoinOp(new RowsOp([L]), new RowsOp(batches), spec('inner', 'right'), '');
      expect(await run(op, ctx)).toHaveLength(3);
      expect(op.spill.swapped).toBe(true);
    } finally {
      write.mockRestore();
    }
    // while the stash is written the rows it holds still count (the probe side's rows read ahead may too)
    expect(atWrites.length).toBeGreaterThan(0);
    expect(atWrites[0]).toBeGreaterThanOrEqual(fitted);
    expect(atWrites[0]).toBeLessThanOrEqual(fitted + bytes(L));
    expect(ctx.memory.usedBytes).toBe(0);
  });

  it('counts rows and batches for EXPLAIN ANALYZE', async () => {
    const op = new HashJoinOp(new RowsOp([L]), new RowsOp([R]), spec('inner', 'right'), '');
    await run(op);
    expect(op.metrics.rows).toBe(4);
    expect(op.metrics.batches).toBeGreaterThan(0);
  });
});

/** A side whose batches arrive slowly, as from a source: the other side's statement ends first. */
class SlowRowsOp extends RowsOp {
  constructor(private readonly slow: Row[][]) {
    super([]);
  }
  override info(): OperatorInfo {
    return { operator: 'SlowRows', runsIn: 'test' };
  }
  protected override async *run(): AsyncIterable<Row[]> {
    try {
      for (const b of this.slow) {
        await new Promise((r) => setTimeout(r, 2));
        this.pulled++;
        yield b;
      }
    } finally {
      this.closed = true;
    }
  }
}
