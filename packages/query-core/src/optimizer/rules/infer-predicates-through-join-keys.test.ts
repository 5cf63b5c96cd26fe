import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, col, eq, lit, lt, param } from '../test-support.js';
import { inferPredicatesThroughJoinKeys } from './infer-predicates-through-join-keys.js';

function tables(type: 'inner' | 'left' | 'right' | 'full', keyType = 'int64') {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', { c_custkey: keyType });
  const o = b.scan('dbA', 'orders', { o_custkey: keyType, o_orderkey: 'int64' });
  const cf = b.filter(c, lt(col(c, 'c_custkey'), keyType === 'int64' ? lit(10000) : lit('m', keyType)));
  return b.join(type, cf, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
}

describe('infer-predicates-through-join-keys', () => {
  it('copies c_custkey < 10000 to o_custkey through an inner equi-join', () => {
    expect(fire(inferPredicatesThroughJoinKeys, tables('inner'))).toMatchInlineSnapshot(`
      "Join inner ON (c_custkey#1 = o_custkey#2)
        Filter (c_custkey#1 < 10000)
          Scan dbB.public.customer AS customer [c_custkey#1]
        Filter (o_custkey#2 < 10000)
          Scan dbA.public.orders AS orders [o_custkey#2, o_orderkey#3]"
    `);
  });

  it('copies from the preserved side of a left join to the null-supplying side', () => {
    expect(fire(inferPredicatesThroughJoinKeys, tables('left'))).toMatchInlineSnapshot(`
      "Join left ON (c_custkey#1 = o_custkey#2)
        Filter (c_custkey#1 < 10000)
          Scan dbB.public.customer AS customer [c_custkey#1]
        Filter (o_custkey#2 < 10000)
          Scan dbA.public.orders AS orders [o_custkey#2, o_orderkey#3]"
    `);
  });

  it('does not copy into the preserved side of a right join, nor through a full join', () => {
    expect(fire(inferPredicatesThroughJoinKeys, tables('right'))).toBe('did not fire');
    expect(fire(inferPredicatesThroughJoinKeys, tables('full'))).toBe('did not fire');
  });

  it('does not copy through char(n) keys (equality ignores trailing blanks)', () => {
    expect(fire(inferPredicatesThroughJoinKeys, tables('inner', 'char(5)'))).toBe('did not fire');
  });

  it('does not fire again once the other side already has the predicate', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64' });
    const j = b.join(
      'inner',
      b.filter(c, eq(col(c, 'c_custkey'), param(0, 'int64'))),
      b.filter(o, eq(col(o, 'o_custkey'), param(0, 'int64'))),
      eq(col(c, 'c_custkey'), col(o, 'o_custkey')),
    );
    expect(fire(inferPredicatesThroughJoinKeys, j)).toBe('did not fire');
  });

  it('sees a predicate it copied earlier below a projection, so it does not copy it again', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64' });
    const projected = b.project(b.filter(o, lt(col(o, 'o_custkey'), lit(10000))), [['k', col(o, 'o_custkey')]]);
    const j = b.join(
      'left',
      b.filter(c, lt(col(c, 'c_custkey'), lit(10000))),
      projected,
      eq(col(c, 'c_custkey'), col(projected, 'k')),
    );
    expect(fire(inferPredicatesThroughJoinKeys, j)).toBe('did not fire');
  });

  it('sees a predicate pushed into both inputs of a UNION, so it does not copy it again', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
    const x = b.scan('dbB', 'x', { k: 'int64' });
    const y = b.scan('dbD', 'y', { k: 'int64' });
    const u = {
      kind: 'SetOp' as const,
      op: 'union' as const,
      all: true,
      left: b.filter(x, lt(col(x, 'k'), lit(10000))),
      right: b.filter(y, lt(col(y, 'k'), lit(10000))),
      fields: [b.field('k', 'int64')],
    };
    const j = b.join(
      'inner',
      b.filter(c, lt(col(c, 'c_custkey'), lit(10000))),
      u,
      eq(col(c, 'c_custkey'), col(u, 'k')),
    );
    expect(fire(inferPredicatesThroughJoinKeys, j)).toBe('did not fire');
  });
});
