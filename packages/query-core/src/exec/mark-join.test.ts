import { describe, expect, it } from 'vitest';
import { t, type Row, type Value } from '@junction/connectors';
import { makeKeyFn } from './hash-key.js';
import { MarkJoinOp, type MarkJoinSpec } from './mark-join.js';
import { RowsOp, run, testContext } from './test-support.js';

const col = (i: number) => makeKeyFn([i], [t.int32], false);
const marks = async (left: Row[], right: Row[], spec: MarkJoinSpec) =>
  (await run(new MarkJoinOp(new RowsOp([left]), new RowsOp([right]), spec, ''))).map((r) => r[r.length - 1]);

// left rows [x, k], right rows [y, k]
const left: Row[] = [[1, 10], [2, 10], [null, 10], [3, 20], [4, null]];
const inSpec: MarkJoinSpec = { compare: { kind: 'equal', left: col(0), right: col(0) } };

describe('MarkJoin', () => {
  it('x IN (subquery): TRUE on a match, FALSE otherwise, NULL for a NULL x when the subquery has rows', async () => {
    expect(await marks(left, [[1, 0], [3, 0]], inSpec)).toEqual([true, false, null, true, false]);
  });

  it('x IN (subquery) with a NULL among the values: NULL instead of FALSE', async () => {
    expect(await marks(left, [[1, 0], [null, 0]], inSpec)).toEqual([true, null, null, null, null]);
  });

  it('x IN (empty subquery) is FALSE, even for a NULL x', async () => {
    expect(await marks(left, [], inSpec)).toEqual([false, false, false, false, false]);
  });

  it('EXISTS correlated on an equality: TRUE where the group has rows; a NULL key matches nothing', async () => {
    const spec: MarkJoinSpec = { leftKey: col(1), rightKey: col(1) };
    expect(await marks(left, [[0, 10], [0, null]], spec)).toEqual([true, true, true, false, false]);
  });

  it('IN correlated on an equality: each left row sees only its group', async () => {
    const spec: MarkJoinSpec = { leftKey: col(1), rightKey: col(1), compare: { kind: 'equal', left: col(0), right: col(0) } };
    expect(await marks(left, [[1, 10], [null, 20], [4, 30]], spec)).toEqual([true, false, null, null, false]);
  });

  it('a residual correlation is tested per row, three-valued: only TRUE counts', async () => {
    // right row counts when left.x < right.y
    const residual = (r: Row): Value => (r[0] === null || r[2] === null ? null : (r[0] as number) < (r[2] as number));
    expect(await marks(left, [[2, 0], [null, 0]], { residual })).toEqual([true, false, false, false, false]);
    const spec: MarkJoinSpec = { residual, compare: { kind: 'equal', left: col(1), right: col(1) } };
    expect(await marks([[1, 5], [1, null]], [[2, 5], [3, 6]], spec)).toEqual([true, null]);
  });

  it('a general comparison (x < ANY): TRUE, else NULL when one comparison is NULL', async () => {
    const lt = (r: Row): Value => (r[0] === null || r[1] === null ? null : (r[0] as number) < (r[1] as number));
    const spec: MarkJoinSpec = { compare: { kind: 'row', fn: lt } };
    expect(await marks([[1], [5], [null]], [[3], [null]], spec)).toEqual([true, null, null]);
    expect(await marks([[1], [5]], [[3]], spec)).toEqual([true, false]);
  });

  it('keeps every left row once and leaves the input rows untouched', async () => {
    const rows: Row[] = [[1, 10]];
    const out = await run(new MarkJoinOp(new RowsOp([rows, [[2, 10]]]), new RowsOp([[[1, 0], [1, 0]]]), inSpec, ''));
    expect(out).toEqual([[1, 10, true], [2, 10, false]]);
    expect(rows).toEqual([[1, 10]]);
  });

  it('counts what it holds against the memory budget', async () => {
    const many: Row[] = Array.from({ length: 10_000 }, (_, i) => [i, i]);
    const op = new MarkJoinOp(new RowsOp([left]), new RowsOp([many]), inSpec, '');
    await expect(run(op, testContext({ budget: 1000 }))).rejects.toMatchObject({ code: 'memory_budget_exceeded' });
  });
});
