import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, col, eq, lit, sources } from '../test-support.js';
import { reorderJoins } from './reorder-joins.js';

describe('reorder-joins', () => {
  it('groups same-source tables into one unit and starts from the smallest join', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 150_000);
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
    const l = b.scan('dbA', 'lineitem', { l_orderkey: 'int64' }, 6_000_000);
    const cf = b.filter(c, eq(col(c, 'c_custkey'), lit(7)));
    // the query's order: lineitem ⋈ customer is a cross product, orders joins both
    const j = b.join('inner', b.join('cross', l, cf), o, {
      kind: 'call',
      fn: 'and',
      args: [eq(col(c, 'c_custkey'), col(o, 'o_custkey')), eq(col(l, 'l_orderkey'), col(o, 'o_orderkey'))],
      type: { kind: 'bool' },
    });
    expect(fire(reorderJoins, j, sources({ dbA: PG_CAPS, dbB: PG_CAPS }))).toMatchInlineSnapshot(`
      "Project l_orderkey#4 := l_orderkey#4, c_custkey#1 := c_custkey#1, o_orderkey#2 := o_orderkey#2, o_custkey#3 := o_custkey#3
        Join inner ON (c_custkey#1 = o_custkey#3)
          Filter (c_custkey#1 = 7)
            Scan dbB.public.customer AS customer [c_custkey#1]
          Join inner ON (l_orderkey#4 = o_orderkey#2)
            Scan dbA.public.orders AS orders [o_orderkey#2, o_custkey#3]
            Scan dbA.public.lineitem AS lineitem [l_orderkey#4]"
    `);
  });

  it('does not cross an outer join, and does not fire for two tables', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64' });
    expect(fire(reorderJoins, b.join('left', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey'))))).toBe('did not fire');
    expect(fire(reorderJoins, b.join('inner', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey'))))).toBe(
      'did not fire',
    );
  });

  it('does not fire when the order is already the greedy one', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 10);
    const o = b.scan('dbB', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 100);
    const l = b.scan('dbB', 'lineitem', { l_orderkey: 'int64' }, 1000);
    const j = b.join(
      'inner',
      b.join('inner', c, o, eq(col(c, 'c_custkey'), col(o, 'o_custkey'))),
      l,
      eq(col(l, 'l_orderkey'), col(o, 'o_orderkey')),
    );
    expect(fire(reorderJoins, j, sources({ dbB: PG_CAPS }))).toBe('did not fire');
  });

  it('joins two tables of one source met only through another source by the equality their keys imply', () => {
    const b = new PlanBuilder();
    const p = b.scan('dbC', 'part', { p_partkey: 'int64' }, 200_000);
    const ps = b.scan('dbC', 'partsupp', { ps_partkey: 'int64' }, 800_000);
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64' }, 6_000_000);
    const j = b.join(
      'inner',
      b.join('inner', p, l, eq(col(p, 'p_partkey'), col(l, 'l_partkey'))),
      ps,
      eq(col(ps, 'ps_partkey'), col(l, 'l_partkey')),
    );
    expect(fire(reorderJoins, j, sources({ dbA: PG_CAPS, dbC: PG_CAPS }))).toMatchInlineSnapshot(`
      "Project p_partkey#1 := p_partkey#1, l_partkey#3 := l_partkey#3, ps_partkey#2 := ps_partkey#2
        Join inner ON ((p_partkey#1 = l_partkey#3) AND (ps_partkey#2 = l_partkey#3))
          Join inner ON (p_partkey#1 = ps_partkey#2)
            Scan dbC.public.part AS part [p_partkey#1]
            Scan dbC.public.partsupp AS partsupp [ps_partkey#2]
          Scan dbA.public.lineitem AS lineitem [l_partkey#3]"
    `);
  });

  it('adds no equality between tables of different sources', () => {
    const b = new PlanBuilder();
    const p = b.scan('dbC', 'part', { p_partkey: 'int64' }, 200_000);
    const ps = b.scan('dbD', 'partsupp', { ps_partkey: 'int64' }, 800_000);
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64' }, 6_000_000);
    const j = b.join(
      'inner',
      b.join('inner', p, l, eq(col(p, 'p_partkey'), col(l, 'l_partkey'))),
      ps,
      eq(col(ps, 'ps_partkey'), col(l, 'l_partkey')),
    );
    expect(fire(reorderJoins, j, sources({ dbA: PG_CAPS, dbC: PG_CAPS, dbD: PG_CAPS }))).not.toContain('p_partkey#1 = ps_partkey');
  });
});
