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

  it('also orders the join trees inside its leaves (a subquery below an aggregate)', () => {
    const b = new PlanBuilder();
    const ps = b.scan('dbC', 'partsupp', { ps_partkey: 'int64', ps_suppkey: 'int64' }, 800_000);
    const s = b.scan('dbC', 'supplier', { s_suppkey: 'int64', s_nationkey: 'int64' }, 10_000);
    const n = b.scan('dbD', 'nation', { n_nationkey: 'int64', n_regionkey: 'int64' }, 25);
    const region = b.scan('dbD', 'region', { r_regionkey: 'int64' }, 5);
    const r = b.filter(region, eq(col(region, 'r_regionkey'), lit(3)));
    // the query's order: partsupp ⋈ supplier ⋈ nation ⋈ region, region's filter coming last
    const inner = b.join(
      'inner',
      b.join('inner', b.join('inner', ps, s, eq(col(s, 's_suppkey'), col(ps, 'ps_suppkey'))), n, eq(col(s, 's_nationkey'), col(n, 'n_nationkey'))),
      r,
      eq(col(n, 'n_regionkey'), col(r, 'r_regionkey')),
    );
    const agg = b.aggregate(inner, ['ps_partkey'], []);
    const p = b.scan('dbC', 'part', { p_partkey: 'int64' }, 200_000);
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64' }, 6_000_000);
    const outer = b.join('inner', b.join('inner', p, l, eq(col(p, 'p_partkey'), col(l, 'l_partkey'))), agg, eq(col(p, 'p_partkey'), col(agg, 'ps_partkey')));
    expect(fire(reorderJoins, outer, sources({ dbA: PG_CAPS, dbC: PG_CAPS, dbD: PG_CAPS }))).toMatchInlineSnapshot(`
      "Project p_partkey#9 := p_partkey#9, l_partkey#10 := l_partkey#10, ps_partkey#8 := ps_partkey#8
        Join inner ON (p_partkey#9 = l_partkey#10)
          Join inner ON (p_partkey#9 = ps_partkey#8)
            Aggregate group=[ps_partkey#8 := ps_partkey#1] aggs=[]
              Project ps_partkey#1 := ps_partkey#1, ps_suppkey#2 := ps_suppkey#2, s_suppkey#3 := s_suppkey#3, s_nationkey#4 := s_nationkey#4, n_nationkey#5 := n_nationkey#5, n_regionkey#6 := n_regionkey#6, r_regionkey#7 := r_regionkey#7
                Join inner ON (s_nationkey#4 = n_nationkey#5)
                  Join inner ON (n_regionkey#6 = r_regionkey#7)
                    Filter (r_regionkey#7 = 3)
                      Scan dbD.public.region AS region [r_regionkey#7]
                    Scan dbD.public.nation AS nation [n_nationkey#5, n_regionkey#6]
                  Join inner ON (s_suppkey#3 = ps_suppkey#2)
                    Scan dbC.public.supplier AS supplier [s_suppkey#3, s_nationkey#4]
                    Scan dbC.public.partsupp AS partsupp [ps_partkey#1, ps_suppkey#2]
            Scan dbC.public.part AS part [p_partkey#9]
          Scan dbA.public.lineitem AS lineitem [l_partkey#10]"
    `);
  });

  it('adds the implied equality even where another predicate already relates the two tables (Q17)', () => {
    const b = new PlanBuilder();
    const p = b.scan('dbC', 'part', { p_partkey: 'int64' }, 2000);
    const l1 = b.scan('dbA', 'lineitem', { l_partkey: 'int64', l_quantity: 'int64' }, 6_000_000);
    const l2 = b.scan('dbA', 'lineitem', { l_partkey: 'int64', l_quantity: 'int64' }, 6_000_000);
    const on = { kind: 'call' as const, fn: 'and' as const, args: [eq(col(p, 'p_partkey'), col(l2, 'l_partkey')), { kind: 'call' as const, fn: 'lt' as const, args: [col(l1, 'l_quantity'), col(l2, 'l_quantity')], type: { kind: 'bool' as const } }], type: { kind: 'bool' as const } };
    const j = b.join('inner', b.join('inner', p, l1, eq(col(p, 'p_partkey'), col(l1, 'l_partkey'))), l2, on);
    // without l_partkey = l_partkey the two lineitems would meet on l_quantity < l_quantity alone
    expect(fire(reorderJoins, j, sources({ dbA: PG_CAPS, dbC: PG_CAPS }))).toContain('((l_quantity#3 < l_quantity#5) AND (l_partkey#2 = l_partkey#4))');
  });
});
