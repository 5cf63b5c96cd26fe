import { describe, expect, it } from 'vitest';
import { formatParams, planNotes } from './plan.js';

describe('formatParams', () => {
  it('numbers parameters like PostgreSQL placeholders', () => {
    expect(formatParams([1, 'x', true])).toBe("$1 = 1, $2 = 'x', $3 = true");
  });
});

describe('planNotes', () => {
  const plan = { operator: 'Project', runsIn: 'junction', children: [] } as const;
  it('reads what the server says before the plan tree: stored rows of a materialized view, caches', () => {
    const text = [
      'Served from cache, 4 s old',
      'Materialized view sales.big_orders read from its stored rows, refreshed 12 s ago',
      'Project o_orderkey',
      '  RemoteScan [junction_store] junction_mv.sales__big_orders',
    ].join('\n');
    expect(planNotes(text, plan)).toEqual([
      'Served from cache, 4 s old',
      'Materialized view sales.big_orders read from its stored rows, refreshed 12 s ago',
    ]);
  });
  it('has none for a plain plan, or a text it cannot place', () => {
    expect(planNotes('Project o_orderkey\n  Scan [dbA] orders', plan)).toEqual([]);
    expect(planNotes('Something else', plan)).toEqual([]);
  });
});
