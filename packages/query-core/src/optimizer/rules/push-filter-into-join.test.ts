import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, and, col, eq, lit, lt, call } from '../test-support.js';
import { pushFilterIntoJoin } from './push-filter-into-join.js';

function tables() {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
  const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64', o_comment: 'varchar(79)' });
  return { b, c, o };
}

describe('push-filter-into-join', () => {
  it('splits conjuncts, moves one-side ones down and turns cross join + equality into an inner join', () => {
    const { b, c, o } = tables();
    const j = b.join('cross', c, o);
    const plan = b.filter(
      j,
      and(
        lt(col(j, 'c_custkey'), lit(10)),
        eq(col(j, 'c_custkey'), col(j, 'o_custkey')),
        lt(col(j, 'o_orderkey'), lit(7)),
      ),
    );
    expect(fire(pushFilterIntoJoin, plan)).toMatchInlineSnapshot(`
      "Join inner ON (c_custkey#1 = o_custkey#4)
        Filter (c_custkey#1 < 10)
          Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
        Filter (o_orderkey#3 < 7)
          Scan dbA.public.orders AS orders [o_orderkey#3, o_custkey#4, o_comment#5]"
    `);
  });

  it('keeps a WHERE conjunct on the null-supplying side of a left join above it (residual kept)', () => {
    const { b, c, o } = tables();
    const j = b.join('left', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const plan = b.filter(j, and(lt(col(j, 'c_custkey'), lit(10)), call('is_null', col(j, 'o_comment'))));
    expect(fire(pushFilterIntoJoin, plan)).toMatchInlineSnapshot(`
      "Filter (o_comment#5 IS NULL)
        Join left ON (c_custkey#1 = o_custkey#4)
          Filter (c_custkey#1 < 10)
            Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
          Scan dbA.public.orders AS orders [o_orderkey#3, o_custkey#4, o_comment#5]"
    `);
  });

  it('moves an ON conjunct on the null-supplying side into it, but not one on the preserved side', () => {
    const { b, c, o } = tables();
    const cond = and(
      eq(col(c, 'c_custkey'), col(o, 'o_custkey')),
      lt(col(o, 'o_orderkey'), lit(7)),
      lt(col(c, 'c_custkey'), lit(3)),
    );
    expect(fire(pushFilterIntoJoin, b.join('left', c, o, cond))).toMatchInlineSnapshot(`
      "Join left ON ((c_custkey#1 = o_custkey#4) AND (c_custkey#1 < 3))
        Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
        Filter (o_orderkey#3 < 7)
          Scan dbA.public.orders AS orders [o_orderkey#3, o_custkey#4, o_comment#5]"
    `);
  });

  it('does not fire when every conjunct reads both sides of an outer join', () => {
    const { b, c, o } = tables();
    const j = b.join('left', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    expect(fire(pushFilterIntoJoin, b.filter(j, eq(col(j, 'c_custkey'), col(j, 'o_orderkey'))))).toBe('did not fire');
    expect(fire(pushFilterIntoJoin, j)).toBe('did not fire');
  });
});
