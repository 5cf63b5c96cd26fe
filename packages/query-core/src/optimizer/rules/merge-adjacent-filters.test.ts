import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, col, gt, lit, lt } from '../test-support.js';
import { mergeAdjacentFilters } from './merge-adjacent-filters.js';

describe('merge-adjacent-filters', () => {
  it('merges two filters and drops a duplicate conjunct', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const inner = b.filter(s, lt(col(s, 'o_orderkey'), lit(5)));
    const plan = b.filter(inner, call2(s));
    expect(fire(mergeAdjacentFilters, plan)).toMatchInlineSnapshot(`
      "Filter ((o_orderkey#1 < 5) AND (o_orderkey#1 > 1))
        Scan dbA.public.orders AS orders [o_orderkey#1]"
    `);
  });

  it('does not fire on a single filter', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    expect(fire(mergeAdjacentFilters, b.filter(s, lt(col(s, 'o_orderkey'), lit(5))))).toBe('did not fire');
  });
});

function call2(s: Parameters<typeof col>[0]) {
  return {
    kind: 'call' as const,
    fn: 'and' as const,
    args: [lt(col(s, 'o_orderkey'), lit(5)), gt(col(s, 'o_orderkey'), lit(1))],
    type: { kind: 'bool' as const },
  };
}
