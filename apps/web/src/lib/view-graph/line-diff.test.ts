import { describe, expect, it } from 'vitest';
import { diffLines } from './line-diff.js';
import { sourcesText, summarizePlan } from './plan-parts.js';

describe('diffLines', () => {
  it('keeps common lines and marks removed and added ones in order', () => {
    expect(diffLines('SELECT\n  a\nFROM t', 'SELECT\n  a,\n  b\nFROM t')).toEqual([
      { op: 'same', text: 'SELECT' },
      { op: 'del', text: '  a' },
      { op: 'add', text: '  a,' },
      { op: 'add', text: '  b' },
      { op: 'same', text: 'FROM t' },
    ]);
    expect(diffLines('', 'x')).toEqual([{ op: 'add', text: 'x' }]);
  });
});

describe('summarizePlan', () => {
  it('collects the SQL sent to each source, what Junction runs itself and what is not pushed', () => {
    const plan = {
      operator: 'HashJoin',
      runsIn: 'junction',
      detail: 'inner o_custkey = c_custkey',
      notPushed: [{ what: 'join', reason: 'the tables are in different sources' }],
      children: [
        { operator: 'Remote', runsIn: 'dbA', sql: 'SELECT o_custkey FROM orders', children: [] },
        { operator: 'Remote', runsIn: 'dbB', sql: 'SELECT c_custkey FROM customer', children: [] },
      ],
    };
    const s = summarizePlan(plan);
    expect(s).toEqual({
      parts: [
        { source: 'dbA', sql: 'SELECT o_custkey FROM orders' },
        { source: 'dbB', sql: 'SELECT c_custkey FROM customer' },
      ],
      local: ['HashJoin (inner o_custkey = c_custkey)'],
      notPushed: ['join: the tables are in different sources'],
    });
    expect(sourcesText([...s.parts].reverse())).toBe(
      '-- dbA\nSELECT o_custkey FROM orders\n-- dbB\nSELECT c_custkey FROM customer',
    );
  });
});
