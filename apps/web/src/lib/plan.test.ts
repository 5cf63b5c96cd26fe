import { describe, expect, it } from 'vitest';
import { flattenPlan, formatParams, type PlanNode } from './plan.js';

const plan: PlanNode = {
  operator: 'DependentJoin',
  runsIn: 'junction',
  detail: 'o_custkey = c_custkey',
  estimatedRows: 120.4,
  actual: { rows: 118, batches: 2, timeMs: 42.7 },
  notPushed: [{ what: 'join dbA.orders with dbB.customer', reason: 'spans sources' }],
  children: [
    {
      operator: 'RemoteQuery',
      runsIn: 'dbB',
      sql: 'SELECT "c_custkey", "c_name" FROM "public"."customer" WHERE "c_nationkey" = $1',
      params: [1],
      estimatedRows: 12,
      actual: { rows: 12, batches: 1, timeMs: 3.25 },
      children: [],
    },
    {
      operator: 'RemoteQuery',
      runsIn: 'dbA',
      sql: 'SELECT "o_orderkey" FROM "public"."orders" WHERE "o_custkey" = ANY($1) AND "o_orderdate" < $2',
      params: [[3, 5], '1998-01-01 00:00:00', null],
      children: [],
    },
  ],
};

describe('flattenPlan', () => {
  it('walks depth-first with depth, ids, join strategy and rows', () => {
    const rows = flattenPlan(plan);
    expect(rows.map((r) => [r.id, r.depth, r.operator, r.runsIn, r.isRemote, r.joinStrategy, r.rows, r.time])).toEqual([
      ['0', 0, 'DependentJoin', 'junction', false, 'Dependent', 'est 120 / actual 118', '43 ms'],
      ['0.0', 1, 'RemoteQuery', 'dbB', true, undefined, 'est 12 / actual 12', '3.25 ms'],
      ['0.1', 1, 'RemoteQuery', 'dbA', true, undefined, 'est ?', undefined],
    ]);
    expect(rows[0].notPushed).toEqual(['join dbA.orders with dbB.customer: spans sources']);
    expect(rows[2].params).toBe("$1 = [3,5], $2 = '1998-01-01 00:00:00', $3 = NULL");
  });
});

describe('formatParams', () => {
  it('numbers parameters like PostgreSQL placeholders', () => {
    expect(formatParams([1, 'x', true])).toBe("$1 = 1, $2 = 'x', $3 = true");
  });
});
