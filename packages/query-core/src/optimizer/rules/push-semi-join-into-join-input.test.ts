import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, col, eq } from '../test-support.js';
import { pushSemiJoinIntoJoinInput } from './push-semi-join-into-join-input.js';

function tables() {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
  const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
  const l = b.scan('dbA', 'lineitem', { l_orderkey: 'int64' });
  return { b, c, o, l };
}

describe('push-semi-join-into-join-input', () => {
  it('moves an IN over a join onto the input whose columns it tests (Q18)', () => {
    const { b, c, o, l } = tables();
    const j = b.join('inner', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const semi = b.join('semi', j, l, eq(col(o, 'o_orderkey'), col(l, 'l_orderkey')));
    expect(fire(pushSemiJoinIntoJoinInput, semi)).toMatchInlineSnapshot(`
      "Join inner ON (c_custkey#1 = o_custkey#3)
        Scan dbB.public.customer AS customer [c_custkey#1]
        Join semi ON (o_orderkey#2 = l_orderkey#4)
          Scan dbA.public.orders AS orders [o_orderkey#2, o_custkey#3]
          Scan dbA.public.lineitem AS lineitem [l_orderkey#4]"
    `);
  });

  it('moves through a projection, rewriting the condition over its expressions, but not onto a bare projection', () => {
    const { b, c, o, l } = tables();
    const j = b.join('inner', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const p = b.project(j, [['k', col(o, 'o_orderkey')]]);
    expect(fire(pushSemiJoinIntoJoinInput, b.join('anti', p, l, eq(col(p, 'k'), col(l, 'l_orderkey'))))).toMatchInlineSnapshot(`
      "Project k#5 := o_orderkey#2
        Join inner ON (c_custkey#1 = o_custkey#3)
          Scan dbB.public.customer AS customer [c_custkey#1]
          Join anti ON (o_orderkey#2 = l_orderkey#4)
            Scan dbA.public.orders AS orders [o_orderkey#2, o_custkey#3]
            Scan dbA.public.lineitem AS lineitem [l_orderkey#4]"
    `);
    const bare = b.project(o, [['k', col(o, 'o_orderkey')]]);
    expect(fire(pushSemiJoinIntoJoinInput, b.join('anti', bare, l, eq(col(bare, 'k'), col(l, 'l_orderkey'))))).toBe('did not fire');
  });

  it('stays above a join when it tests both inputs, or the null-supplying side of a left join', () => {
    const { b, c, o, l } = tables();
    const inner = b.join('inner', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const both = { kind: 'call' as const, fn: 'and' as const, args: [eq(col(o, 'o_orderkey'), col(l, 'l_orderkey')), eq(col(c, 'c_custkey'), col(l, 'l_orderkey'))], type: { kind: 'bool' as const } };
    expect(fire(pushSemiJoinIntoJoinInput, b.join('semi', inner, l, both))).toBe('did not fire');
    const left = b.join('left', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    expect(fire(pushSemiJoinIntoJoinInput, b.join('semi', left, l, eq(col(o, 'o_orderkey'), col(l, 'l_orderkey'))))).toBe('did not fire');
  });

  it('goes to the preserved side of a left join', () => {
    const { b, c, o, l } = tables();
    const left = b.join('left', o, c, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    expect(fire(pushSemiJoinIntoJoinInput, b.join('anti', left, l, eq(col(o, 'o_orderkey'), col(l, 'l_orderkey'))))).toMatchInlineSnapshot(`
      "Join left ON (c_custkey#1 = o_custkey#3)
        Join anti ON (o_orderkey#2 = l_orderkey#4)
          Scan dbA.public.orders AS orders [o_orderkey#2, o_custkey#3]
          Scan dbA.public.lineitem AS lineitem [l_orderkey#4]
        Scan dbB.public.customer AS customer [c_custkey#1]"
    `);
  });

  it('stays above a join when the tested rows are in another source than the input', () => {
    const { b, c, o } = tables();
    const j = b.join('inner', o, c, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const other = b.scan('dbB', 'complaints', { k: 'int64' });
    expect(fire(pushSemiJoinIntoJoinInput, b.join('semi', j, other, eq(col(o, 'o_orderkey'), col(other, 'k'))))).toBe('did not fire');
  });
});
