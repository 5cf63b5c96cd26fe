import { describe, expect, it } from 'vitest';
import { t } from '@junction/connectors';
import { HashJoinOp } from '../exec/hash-join/index.js';
import { makeKeyFn } from '../exec/hash-key.js';
import { LimitOp } from '../exec/limit.js';
import { RowsOp, run } from '../exec/test-support.js';
import { buildExplain, sqlFields, summariseParams, summariseSql } from './build.js';
import { explainText } from './text.js';

describe('EXPLAIN summaries', () => {
  it('collapses long IN lists in SQL and parameters', () => {
    const placeholders = Array.from({ length: 1000 }, (_, i) => `$${i + 2}`).join(', ');
    expect(summariseSql(`SELECT a FROM t WHERE b = $1 AND a IN (${placeholders})`)).toBe('SELECT a FROM t WHERE b = $1 AND a IN ($2, $3, $4, … $1001 (1000 values))');
    expect(summariseSql('SELECT a FROM t WHERE a IN (?, ?, ?)')).toBe('SELECT a FROM t WHERE a IN (?, ?, ?)');
    const typed = Array.from({ length: 20 }, (_, i) => `$${i + 1}::integer`).join(', ');
    expect(summariseSql(`SELECT a FROM t WHERE (a IN (${typed}))`)).toBe('SELECT a FROM t WHERE (a IN ($1::integer, $2::integer, $3::integer, … $20::integer (20 values)))');
    const qs = Array.from({ length: 12 }, () => '?').join(', ');
    expect(summariseSql(`SELECT a FROM t WHERE a IN (${qs})`)).toBe('SELECT a FROM t WHERE a IN (?, ?, ?, … ? (12 values))');
    expect(summariseParams(Array.from({ length: 1000 }, (_, i) => BigInt(i + 1)))).toEqual(['[1000 values: 1, 2, 3, …]']);
    expect(summariseParams([1n, 'x'])).toEqual(['1', 'x']);
    const array = `{${Array.from({ length: 100 }, (_, i) => i + 1).join(',')}}`;
    expect(summariseParams([array])).toEqual([`{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23… (${array.length} characters)`]);
  });

  it('keeps the parameters whole beside the summary when a value was cut, and not otherwise', () => {
    const array = `{${Array.from({ length: 100 }, (_, i) => i + 1).join(',')}}`;
    const sql = 'SELECT a FROM t WHERE (a = ANY($1::integer[])) AND b = $2';
    expect(sqlFields(sql, [array, 7n])).toEqual({ sql, params: [`{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23… (${array.length} characters)`, '7'], fullParams: [array, '7'] });
    expect(sqlFields('SELECT a FROM t WHERE b = $1', [7n])).toEqual({ sql: 'SELECT a FROM t WHERE b = $1', params: ['7'] });
  });
});

describe('EXPLAIN tree and text', () => {
  const plan = () =>
    new LimitOp(
      new HashJoinOp(
        new RowsOp([[[1], [2]]], 'Left'),
        new RowsOp([[[2]]], 'Right'),
        { type: 'inner', buildSide: 'right', leftKey: makeKeyFn([0], [t.int32], false), rightKey: makeKeyFn([0], [t.int32], false), leftWidth: 1, rightWidth: 1 },
        'on a = b',
        undefined,
        [{ what: 'a = b', reason: 'spans sources' }],
      ),
      10,
      0,
    );

  it('prints shape, details and notPushed reasons without volatile numbers', () => {
    const tree = buildExplain(plan());
    expect(explainText(tree)).toBe(
      ['Limit 10', '  HashJoin inner build=right on a = b', '    not pushed: a = b: spans sources', '    Left [test]', '    Right [test]'].join('\n'),
    );
    expect(tree.actual).toBeUndefined();
  });

  it('ANALYZE adds actual rows and batches per node', async () => {
    const op = plan();
    await run(op);
    const tree = buildExplain(op, { analyze: true, statements: [] });
    expect(tree.actual?.rows).toBe(1);
    expect(tree.children[0].actual?.rows).toBe(1);
    expect(tree.children[0].children[0].actual?.rows).toBe(2);
    expect(explainText(tree)).toMatch(/^Limit 10 \(actual rows=1 batches=1 time=\d+\.\d{3}ms\)/);
  });

  it("prints a backend engine's own plan of its statement under the operator that sends it", () => {
    const op = plan();
    const right = op.children[0].children[1];
    const tree = buildExplain(op, { remotePlans: new Map([[right.id, 'Fragment 0 [SINGLE]\n    Output: b\n']]) });
    expect(tree.children[0].children[1].remotePlan).toBe('Fragment 0 [SINGLE]\n    Output: b\n');
    expect(explainText(tree).split('\n').slice(-4)).toEqual(['    Right [test]', '      plan in test:', '        Fragment 0 [SINGLE]', '            Output: b']);
  });
});
