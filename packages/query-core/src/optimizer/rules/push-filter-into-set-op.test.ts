import { describe, expect, it } from 'vitest';
import type { LogicalPlan } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, col, lit, lt } from '../test-support.js';
import { pushFilterIntoSetOp } from './push-filter-into-set-op.js';

function union(rightType: string): { b: PlanBuilder; u: LogicalPlan } {
  const b = new PlanBuilder();
  const l = b.scan('dbB', 'customer', { c_custkey: 'int64' });
  const r = b.scan('dbD', 'customer', { c_custkey: rightType });
  const u: LogicalPlan = {
    kind: 'SetOp',
    op: 'union',
    all: false,
    left: l,
    right: r,
    fields: [b.field('c_custkey', 'int64')],
  };
  return { b, u };
}

describe('push-filter-into-set-op', () => {
  it('filters each input of a UNION with the predicate mapped to its columns', () => {
    const { b, u } = union('int64');
    expect(fire(pushFilterIntoSetOp, b.filter(u, lt(col(u, 'c_custkey'), lit(10))))).toMatchInlineSnapshot(`
      "UNION [c_custkey#3]
        Filter (c_custkey#1 < 10)
          Scan dbB.public.customer AS customer [c_custkey#1]
        Filter (c_custkey#2 < 10)
          Scan dbD.public.customer AS customer [c_custkey#2]"
    `);
  });

  it('does not fire when an input column has another type than the output (the predicate could mean something else)', () => {
    const { b, u } = union('int32');
    expect(fire(pushFilterIntoSetOp, b.filter(u, lt(col(u, 'c_custkey'), lit(10))))).toBe('did not fire');
  });
});
