import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, col, eq, remote, sources, withTable } from '../test-support.js';
import { absorbAggregateIntoRemote } from './absorb-aggregate-into-remote.js';

describe('absorb-aggregate-into-remote', () => {
  it('absorbs a GROUP BY the source runs exactly', () => {
    const b = new PlanBuilder();
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_totalprice: 'decimal(15,2)' });
    const a = b.aggregate(
      remote(o),
      ['o_custkey'],
      [
        ['total', 'sum', [col(o, 'o_totalprice')]],
        ['n', 'count_star', []],
      ],
    );
    expect(fire(absorbAggregateIntoRemote, a)).toMatchInlineSnapshot(`
      "Remote dbA [o_custkey#3, total#4, n#5]
        Aggregate group=[o_custkey#3 := o_custkey#1] aggs=[total#4 := sum(o_totalprice#2), n#5 := count_star()]
          Scan dbA.public.orders AS orders [o_custkey#1, o_totalprice#2]"
    `);
  });

  it('keeps GROUP BY on a string column under a case-insensitive collation (residual kept)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbD', 'customer', { c_mktsegment: 'char(10)' });
    const a = b.aggregate(remote(c), ['c_mktsegment'], [['n', 'count_star', []]]);
    expect(fire(absorbAggregateIntoRemote, a, sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Aggregate group=[c_mktsegment#2 := c_mktsegment#1] aggs=[n#3 := count_star()]
        ! not pushed: GROUP BY c_mktsegment: string comparison under a case-insensitive or pad-space collation
        Remote dbD [c_mktsegment#1]
          Scan dbD.public.customer AS customer [c_mktsegment#1]"
    `);
  });

  it('splits into a partial aggregate in the source below a federated inner join and a final one above', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    expect(fire(absorbAggregateIntoRemote, a)).toMatchInlineSnapshot(`
      "Project c_custkey#5 := c_custkey#5, c_count#6 := CAST(c_count#8 AS int64)
        Aggregate group=[c_custkey#5 := c_custkey#1] aggs=[c_count#8 := sum(partial_c_count#7)]
          Join inner ON (c_custkey#1 = o_custkey#4)
            Remote dbB [c_custkey#1, c_name#2]
              Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
            Remote dbA [o_custkey#4, partial_c_count#7]
              Aggregate group=[o_custkey#4 := o_custkey#4] aggs=[partial_c_count#7 := count(o_orderkey#3)]
                Scan dbA.public.orders AS orders [o_orderkey#3, o_custkey#4]"
    `);
  });

  it('does not split when the whole join can run in one source (it is absorbed there, aggregate and all)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbA', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    expect(fire(absorbAggregateIntoRemote, a)).toBe('did not fire');
  });

  it('splits a count across a left join on its NULL-supplying side, a customer without orders counting 0 (Q13)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 150_000);
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
    const j = b.join('left', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    expect(fire(absorbAggregateIntoRemote, a, sources({ dbA: PG_CAPS, dbB: PG_CAPS }))).toMatchInlineSnapshot(`
      "Project c_custkey#4 := c_custkey#4, c_count#5 := coalesce(CAST(c_count#7 AS int64), 0)
        Aggregate group=[c_custkey#4 := c_custkey#1] aggs=[c_count#7 := sum(partial_c_count#6)]
          Join left ON (c_custkey#1 = o_custkey#3)
            Remote dbB [c_custkey#1]
              Scan dbB.public.customer AS customer [c_custkey#1]
            Remote dbA [o_custkey#3, partial_c_count#6]
              Aggregate group=[o_custkey#3 := o_custkey#3] aggs=[partial_c_count#6 := count(o_orderkey#2)]
                Scan dbA.public.orders AS orders [o_orderkey#2, o_custkey#3]"
    `);
  });

  it('does not split a count(*) onto the NULL-supplying side of a left join (it counts the NULL-extended row)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 150_000);
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
    const j = b.join('left', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [
      ['n', 'count_star', []],
      ['s', 'sum', [col(o, 'o_orderkey')]],
    ]);
    expect(fire(absorbAggregateIntoRemote, a, sources({ dbA: PG_CAPS, dbB: PG_CAPS }))).toBe('did not fire');
  });

  it('does not split a DISTINCT aggregate (partials do not merge exactly)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    const distinct =
      a.kind === 'Aggregate' ? { ...a, aggregates: a.aggregates.map((x) => ({ ...x, distinct: true })) } : a;
    expect(fire(absorbAggregateIntoRemote, distinct, sources({ dbA: PG_CAPS, dbB: PG_CAPS }))).toBe('did not fire');
  });

  it('puts the partial count(*) on the side it reduces, never grouped by a unique key', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_nationkey: 'int32' }, 150_000);
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_nationkey'], [['n', 'count_star', []]]);
    const input = sources({
      dbB: withTable(PG_CAPS, { name: 'customer', primaryKey: ['c_custkey'], rowCount: 150_000 }),
      dbA: withTable(PG_CAPS, { name: 'orders', primaryKey: ['o_orderkey'], rowCount: 1_500_000 }),
    });
    expect(fire(absorbAggregateIntoRemote, a, input)).toMatchInlineSnapshot(`
      "Project c_nationkey#5 := c_nationkey#5, n#6 := CAST(n#8 AS int64)
        Aggregate group=[c_nationkey#5 := c_nationkey#2] aggs=[n#8 := sum(partial_n#7)]
          Join inner ON (c_custkey#1 = o_custkey#4)
            Remote dbB [c_custkey#1, c_nationkey#2]
              Scan dbB.public.customer AS customer [c_custkey#1, c_nationkey#2]
            Remote dbA [o_custkey#4, partial_n#7]
              Aggregate group=[o_custkey#4 := o_custkey#4] aggs=[partial_n#7 := count_star()]
                Scan dbA.public.orders AS orders [o_orderkey#3, o_custkey#4]"
    `);
  });

  it("does not split where the source's statistics say the groups keep nearly every row (Q11: nation and part)", () => {
    const q11 = (partKeys: number) => {
      const b = new PlanBuilder();
      const n = b.scan('dbB', 'nation', { n_nationkey: 'int32' }, 25);
      const ps = b.scan('dbA', 'partsupp', { ps_partkey: 'int64', ps_nationkey: 'int32', ps_cost: 'decimal(15,2)' }, 800_000);
      const j = b.join('inner', remote(n), remote(ps), eq(col(n, 'n_nationkey'), col(ps, 'ps_nationkey')));
      const a = b.aggregate(j, ['ps_partkey'], [['value', 'sum', [col(ps, 'ps_cost')]]]);
      const column = (name: string, distinct: number) => ({ name, type: { kind: 'int64' as const }, nativeType: 'bigint', nullable: false, stats: { distinct } });
      const partsupp = { name: 'partsupp', rowCount: 800_000, columns: [column('ps_partkey', partKeys), column('ps_nationkey', 25)] };
      return fire(absorbAggregateIntoRemote, a, sources({ dbB: PG_CAPS, dbA: withTable(PG_CAPS, partsupp) }));
    };
    // 25 nations × 200,000 parts: 800,000 rows fall into about 740,000 groups
    expect(q11(200_000)).toBe('did not fire');
    // 25 × 70,000: about 640,000 groups, four fifths of the rows (Q10's estimate is 0.77)
    expect(q11(70_000)).toContain('aggs=[partial_value#7 := sum(ps_cost#4)]');
    // 25 × 2,000: 50,000 groups, a sixteenth of the rows
    expect(q11(2_000)).toContain('Aggregate group=[ps_partkey#2 := ps_partkey#2, ps_nationkey#3 := ps_nationkey#3] aggs=[partial_value#7 := sum(ps_cost#4)]');
  });

  it('looks through a renaming projection between the aggregate and the join', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_totalprice: 'decimal(15,2)' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const p = b.project(j, [
      ['name', col(j, 'c_name')],
      ['price', col(j, 'o_totalprice')],
    ]);
    const a = b.aggregate(p, ['name'], [['total', 'sum', [col(p, 'price')]]]);
    expect(fire(absorbAggregateIntoRemote, a)).toMatchInlineSnapshot(`
      "Aggregate group=[name#7 := c_name#2] aggs=[total#8 := sum(partial_total#9)]
        Join inner ON (c_custkey#1 = o_custkey#3)
          Remote dbB [c_custkey#1, c_name#2]
            Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
          Remote dbA [o_custkey#3, partial_total#9]
            Aggregate group=[o_custkey#3 := o_custkey#3] aggs=[partial_total#9 := sum(o_totalprice#4)]
              Scan dbA.public.orders AS orders [o_custkey#3, o_totalprice#4]"
    `);
  });

  describe('through a tree of joins (eager aggregation)', () => {
    /** TPC-H Q10's shape: lineitem ⋈ orders in dbA, then customer from dbB, then nation from dbD. */
    function q10(leftJoinCustomer = false) {
      const b = new PlanBuilder();
      const lo = b.scan('dbA', 'orders', { o_custkey: 'int64', l_extendedprice: 'decimal(15,2)' }, 1_000_000);
      const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_nationkey: 'int32', c_name: 'varchar(25)' }, 150_000);
      const n = b.scan('dbD', 'nation', { n_nationkey: 'int32', n_name: 'char(25)' }, 25);
      const inner = leftJoinCustomer
        ? b.join('left', remote(c), remote(lo), eq(col(c, 'c_custkey'), col(lo, 'o_custkey')))
        : b.join('inner', remote(lo), remote(c), eq(col(c, 'c_custkey'), col(lo, 'o_custkey')));
      const j = b.join('inner', inner, remote(n), eq(col(c, 'c_nationkey'), col(n, 'n_nationkey')));
      return { b, j, lo };
    }
    const input = sources({ dbA: PG_CAPS, dbB: PG_CAPS, dbD: PG_CAPS });

    it('sums in the source two joins down, grouped by the key the join above it reads (Q10)', () => {
      const { b, j, lo } = q10();
      const a = b.aggregate(j, ['c_custkey', 'c_name', 'n_name'], [['revenue', 'sum', [col(lo, 'l_extendedprice')]]]);
      expect(fire(absorbAggregateIntoRemote, a, input)).toMatchInlineSnapshot(`
        "Aggregate group=[c_custkey#8 := c_custkey#3, c_name#9 := c_name#5, n_name#10 := n_name#7] aggs=[revenue#11 := sum(partial_revenue#12)]
          Join inner ON (c_nationkey#4 = n_nationkey#6)
            Join inner ON (c_custkey#3 = o_custkey#1)
              Remote dbA [o_custkey#1, partial_revenue#12]
                Aggregate group=[o_custkey#1 := o_custkey#1] aggs=[partial_revenue#12 := sum(l_extendedprice#2)]
                  Scan dbA.public.orders AS orders [o_custkey#1, l_extendedprice#2]
              Remote dbB [c_custkey#3, c_nationkey#4, c_name#5]
                Scan dbB.public.customer AS customer [c_custkey#3, c_nationkey#4, c_name#5]
            Remote dbD [n_nationkey#6, n_name#7]
              Scan dbD.public.nation AS nation [n_nationkey#6, n_name#7]"
      `);
    });

    it('groups the partial by every column of the source a join higher up reads', () => {
      const b = new PlanBuilder();
      const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_shipnation: 'int32', o_totalprice: 'decimal(15,2)' }, 1_000_000);
      const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 150_000);
      const n = b.scan('dbD', 'nation', { n_nationkey: 'int32', n_name: 'char(25)' }, 25);
      const inner = b.join('inner', remote(o), remote(c), eq(col(o, 'o_custkey'), col(c, 'c_custkey')));
      const j = b.join('inner', inner, remote(n), eq(col(o, 'o_shipnation'), col(n, 'n_nationkey')));
      const a = b.aggregate(j, ['n_name'], [['total', 'sum', [col(o, 'o_totalprice')]], ['n', 'count', [col(o, 'o_totalprice')]]]);
      expect(fire(absorbAggregateIntoRemote, a, input)).toMatchInlineSnapshot(`
        "Project n_name#7 := n_name#7, total#8 := total#8, n#9 := CAST(n#12 AS int64)
          Aggregate group=[n_name#7 := n_name#6] aggs=[total#8 := sum(partial_total#10), n#12 := sum(partial_n#11)]
            Join inner ON (o_shipnation#2 = n_nationkey#5)
              Join inner ON (o_custkey#1 = c_custkey#4)
                Remote dbA [o_custkey#1, o_shipnation#2, partial_total#10, partial_n#11]
                  Aggregate group=[o_custkey#1 := o_custkey#1, o_shipnation#2 := o_shipnation#2] aggs=[partial_total#10 := sum(o_totalprice#3), partial_n#11 := count(o_totalprice#3)]
                    Scan dbA.public.orders AS orders [o_custkey#1, o_shipnation#2, o_totalprice#3]
                Remote dbB [c_custkey#4]
                  Scan dbB.public.customer AS customer [c_custkey#4]
              Remote dbD [n_nationkey#5, n_name#6]
                Scan dbD.public.nation AS nation [n_nationkey#5, n_name#6]"
      `);
    });

    it("below a left join's NULL-supplying side, a count is 0 where no partial row meets the preserved one", () => {
      const { b, j, lo } = q10(true);
      const a = b.aggregate(j, ['n_name'], [['orders', 'count', [col(lo, 'o_custkey')]], ['revenue', 'sum', [col(lo, 'l_extendedprice')]]]);
      expect(fire(absorbAggregateIntoRemote, a, input)).toMatchInlineSnapshot(`
        "Project n_name#8 := n_name#8, orders#9 := coalesce(CAST(orders#13 AS int64), 0), revenue#10 := revenue#10
          Aggregate group=[n_name#8 := n_name#7] aggs=[orders#13 := sum(partial_orders#11), revenue#10 := sum(partial_revenue#12)]
            Join inner ON (c_nationkey#4 = n_nationkey#6)
              Join left ON (c_custkey#3 = o_custkey#1)
                Remote dbB [c_custkey#3, c_nationkey#4, c_name#5]
                  Scan dbB.public.customer AS customer [c_custkey#3, c_nationkey#4, c_name#5]
                Remote dbA [o_custkey#1, partial_orders#11, partial_revenue#12]
                  Aggregate group=[o_custkey#1 := o_custkey#1] aggs=[partial_orders#11 := count(o_custkey#1), partial_revenue#12 := sum(l_extendedprice#2)]
                    Scan dbA.public.orders AS orders [o_custkey#1, l_extendedprice#2]
              Remote dbD [n_nationkey#6, n_name#7]
                Scan dbD.public.nation AS nation [n_nationkey#6, n_name#7]"
      `);
    });

    it("does not put count(*) below a left join's NULL-supplying side, however deep (it counts the NULL-extended row)", () => {
      const { b, j, lo } = q10(true);
      const a = b.aggregate(j, ['n_name'], [['n', 'count_star', []], ['revenue', 'sum', [col(lo, 'l_extendedprice')]]]);
      expect(fire(absorbAggregateIntoRemote, a, input)).toBe('did not fire');
    });

    it('without GROUP BY, counts merge to 0 when no row is left (a sum over nothing is NULL, a count 0)', () => {
      const { b, j, lo } = q10();
      const a = b.aggregate(j, [], [['n', 'count_star', []], ['revenue', 'sum', [col(lo, 'l_extendedprice')]]]);
      expect(fire(absorbAggregateIntoRemote, a, input)).toMatchInlineSnapshot(`
        "Project n#8 := coalesce(CAST(n#12 AS int64), 0), revenue#9 := revenue#9
          Aggregate group=[] aggs=[n#12 := sum(partial_n#10), revenue#9 := sum(partial_revenue#11)]
            Join inner ON (c_nationkey#4 = n_nationkey#6)
              Join inner ON (c_custkey#3 = o_custkey#1)
                Remote dbA [o_custkey#1, partial_n#10, partial_revenue#11]
                  Aggregate group=[o_custkey#1 := o_custkey#1] aggs=[partial_n#10 := count_star(), partial_revenue#11 := sum(l_extendedprice#2)]
                    Scan dbA.public.orders AS orders [o_custkey#1, l_extendedprice#2]
                Remote dbB [c_custkey#3, c_nationkey#4, c_name#5]
                  Scan dbB.public.customer AS customer [c_custkey#3, c_nationkey#4, c_name#5]
              Remote dbD [n_nationkey#6, n_name#7]
                Scan dbD.public.nation AS nation [n_nationkey#6, n_name#7]"
      `);
    });

    it('does not enter a join that runs whole in one source: it is absorbed there first, aggregate and all', () => {
      const b = new PlanBuilder();
      const l = b.scan('dbA', 'lineitem', { l_orderkey: 'int64', l_extendedprice: 'decimal(15,2)' }, 6_000_000);
      const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
      const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' }, 150_000);
      const lo = b.join('inner', remote(l), remote(o), eq(col(l, 'l_orderkey'), col(o, 'o_orderkey')));
      const j = b.join('inner', lo, remote(c), eq(col(o, 'o_custkey'), col(c, 'c_custkey')));
      const a = b.aggregate(j, ['c_name'], [['revenue', 'sum', [col(l, 'l_extendedprice')]]]);
      expect(fire(absorbAggregateIntoRemote, a, input)).toBe('did not fire');
    });
  });
});
