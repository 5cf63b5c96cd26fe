import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, call, col, eq, lit } from '../test-support.js';
import { simplifyOuterJoin } from './simplify-outer-join.js';

function leftJoin() {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
  const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_comment: 'varchar(79)' });
  return { b, j: b.join('left', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey'))) };
}

describe('simplify-outer-join', () => {
  it('turns a left join into an inner join when WHERE rejects NULLs of the right side (NOT LIKE)', () => {
    const { b, j } = leftJoin();
    const plan = b.filter(j, call('not', call('like', col(j, 'o_comment'), lit('%special%accounts%'))));
    expect(fire(simplifyOuterJoin, plan)).toMatchInlineSnapshot(`
      "Filter (NOT (o_comment#3 LIKE '%special%accounts%'))
        Join inner ON (c_custkey#1 = o_custkey#2)
          Scan dbB.public.customer AS customer [c_custkey#1]
          Scan dbA.public.orders AS orders [o_custkey#2, o_comment#3]"
    `);
  });

  it('does not fire for IS NULL on the right side (keeps the unmatched rows)', () => {
    const { b, j } = leftJoin();
    expect(fire(simplifyOuterJoin, b.filter(j, call('is_null', col(j, 'o_comment'))))).toBe('did not fire');
  });

  it('does not fire for coalesce, which is not strict', () => {
    const { b, j } = leftJoin();
    const plan = b.filter(j, eq(call('coalesce', col(j, 'o_comment'), lit('x')), lit('x')));
    expect(fire(simplifyOuterJoin, plan)).toBe('did not fire');
  });
});
