import { afterAll, describe, expect, it } from 'vitest';
import { t, type Row } from '@junction/connectors';
import { makeKeyFn } from '../hash-key.js';
import { RowsOp, bag, run, testContext } from '../test-support.js';
import { HashJoinOp } from './index.js';
import type { HashJoinType, JoinSpec } from './join-core.js';
import { WorkerPool } from '../workers/pool.js';

const pool = new WorkerPool(2);
afterAll(() => pool.close());

function data(): { left: Row[][]; right: Row[][] } {
  const left: Row[][] = [];
  for (let b = 0; b < 10; b++) {
    const batch: Row[] = [];
    for (let i = 0; i < 5000; i++) {
      const k = (b * 5000 + i) % 7001;
      batch.push([k % 13 === 0 ? null : BigInt(k), `l${b}-${i}`]);
    }
    left.push(batch);
  }
  const right: Row[][] = [];
  for (let b = 0; b < 3; b++) {
    const batch: Row[] = [];
    for (let i = 0; i < 2000; i++) {
      const k = b * 2000 + i;
      batch.push([k % 17 === 0 ? null : k * 2, `r${k}`]);
    }
    right.push(batch);
  }
  return { left, right };
}

function spec(type: HashJoinType, residual?: (r: Row) => boolean): JoinSpec {
  return {
    type,
    buildSide: 'right',
    leftKey: makeKeyFn([0], [t.int64], false),
    rightKey: makeKeyFn([0], [t.int32], false),
    residual,
    leftWidth: 2,
    rightWidth: 2,
  };
}

describe('hash join in worker threads', () => {
  for (const type of ['inner', 'left', 'semi', 'anti'] as const) {
    it(`${type} join gives exactly the in-thread rows`, async () => {
      const { left, right } = data();
      const residual = type === 'left' ? (r: Row) => !String(r[3]).endsWith('7') : undefined;
      const inThread = new HashJoinOp(new RowsOp(left), new RowsOp(right), spec(type, residual), '');
      const expected = await run(inThread, testContext());
      expect(inThread.report.workers).toBe(false);
      const worker = new HashJoinOp(new RowsOp(left), new RowsOp(right), spec(type, residual), '');
      worker.forceWorkers = true;
      const got = await run(worker, testContext({ workers: pool }));
      expect(worker.report.workers).toBe(true);
      expect(got.length).toBe(expected.length);
      expect(bag(got)).toEqual(bag(expected));
    });
  }

  it('float keys: NaN joins NaN, -0 joins 0, NULL joins nothing (as PostgreSQL and the in-thread join)', async () => {
    const floatSpec: JoinSpec = { ...spec('inner'), leftKey: makeKeyFn([0], [t.float64], false), rightKey: makeKeyFn([0], [t.float64], false) };
    const left = [[[NaN, 'l-nan'], [0, 'l-zero'], [null, 'l-null'], [2.5, 'l-2.5'], [Infinity, 'l-inf']] as Row[]];
    const right = [[[NaN, 'r-nan'], [-0, 'r-negzero'], [null, 'r-null'], [2.5, 'r-2.5'], [7, 'r-7']] as Row[]];
    const expected = [
      [NaN, 'l-nan', NaN, 'r-nan'],
      [0, 'l-zero', -0, 'r-negzero'],
      [2.5, 'l-2.5', 2.5, 'r-2.5'],
    ];
    const inThread = new HashJoinOp(new RowsOp(left), new RowsOp(right), floatSpec, '');
    expect(await run(inThread, testContext())).toEqual(expected);
    const worker = new HashJoinOp(new RowsOp(left), new RowsOp(right), floatSpec, '');
    worker.forceWorkers = true;
    expect(await run(worker, testContext({ workers: pool }))).toEqual(expected);
    expect(worker.report.workers).toBe(true);
  });

  it('keeps string keys in-thread', async () => {
    const op = new HashJoinOp(
      new RowsOp([[['a', 1]]]),
      new RowsOp([[['a', 2]]]),
      { ...spec('inner'), leftKey: makeKeyFn([0], [t.string], false), rightKey: makeKeyFn([0], [t.string], false) },
      '',
    );
    op.forceWorkers = true;
    expect(await run(op, testContext({ workers: pool }))).toEqual([['a', 1, 'a', 2]]);
    expect(op.report.workers).toBe(false);
  });
});
