import { describe, expect, it } from 'vitest';
import { t, type Row } from '@junction/connectors';
import { makeKeyFn } from './hash-key.js';
import { NullAwareAntiJoinOp } from './null-aware-anti-join.js';
import { RowsOp, run, testContext } from './test-support.js';

const key = makeKeyFn([0], [t.int32], false);
const notIn = (left: Row[], right: Row[]) => run(new NullAwareAntiJoinOp(new RowsOp([left]), new RowsOp([right]), key, key, ''));
const left: Row[] = [[1, 'a'], [2, 'b'], [null, 'c'], [4, 'd']];

describe('NOT IN (NULL-aware anti join)', () => {
  it('keeps rows whose value is not NULL and not among the values', async () => {
    expect(await notIn(left, [[2], [3], [2]])).toEqual([[1, 'a'], [4, 'd']]);
  });

  it('keeps every row, NULL ones too, when the subquery is empty', async () => {
    expect(await notIn(left, [])).toEqual(left);
  });

  it('keeps no row when a value is NULL', async () => {
    expect(await notIn(left, [[3], [null]])).toEqual([]);
  });

  it('matches across integer widths and decimals as = does', async () => {
    const op = new NullAwareAntiJoinOp(new RowsOp([[[1n], [2n], [3n]]]), new RowsOp([[['2.00']]]), makeKeyFn([0], [t.int64], false), makeKeyFn([0], [t.decimal(5, 2)], false), '');
    expect(await run(op)).toEqual([[1n], [3n]]);
  });

  it('counts its hash set against the memory budget', async () => {
    const many: Row[] = Array.from({ length: 10_000 }, (_, i) => [i]);
    const op = new NullAwareAntiJoinOp(new RowsOp([left]), new RowsOp([many]), key, key, '');
    await expect(run(op, testContext({ budget: 1000 }))).rejects.toMatchObject({ code: 'memory_budget_exceeded' });
  });
});
