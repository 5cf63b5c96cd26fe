import { describe, expect, it } from 'vitest';
import type { AggFn } from '@junction/connectors';
import type { LogicalPlan } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, call, col, eq, gt, lit, sources } from '../test-support.js';
import { globalAggregateAsWindow } from './global-aggregate-as-window.js';

/** partsupp ⋈ supplier of one nation, built afresh (new field ids) on each call, as the binder binds a repeated subquery. */
function stock(b: PlanBuilder, nation = 7, rows = 800_000): LogicalPlan {
  const ps = b.scan(
    'dbA',
    'partsupp',
    { ps_partkey: 'int64', ps_suppkey: 'int64', ps_cost: 'decimal(15,2)', ps_weight: 'float64' },
    rows,
  );
  const s = b.scan('dbB', 'supplier', { s_suppkey: 'int64', s_nationkey: 'int64' }, 10_000);
  const j = b.join('inner', ps, s, eq(col(ps, 'ps_suppkey'), col(s, 's_suppkey')));
  return b.filter(j, eq(col(j, 's_nationkey'), lit(nation)));
}

/** TPC-H Q11: each part's total against a fraction of the total over the same rows. */
function q11(fn: AggFn = 'sum', arg = 'ps_cost', opts: { nation?: number; rows?: number; totalFn?: AggFn } = {}) {
  const b = new PlanBuilder();
  const outer = stock(b, 7, opts.rows);
  const groups = b.aggregate(outer, ['ps_partkey'], [['value', fn, fn === 'count_star' ? [] : [col(outer, arg)]]]);
  const inner = stock(b, opts.nation ?? 7, opts.rows);
  const fn2 = opts.totalFn ?? fn;
  const total = b.aggregate(inner, [], [['total', fn2, fn2 === 'count_star' ? [] : [col(inner, arg)]]]);
  const threshold = b.project(total, [['threshold', call('mul', col(total, 'total'), lit('0.0001', 'decimal'))]]);
  return b.join('inner', groups, threshold, gt(col(groups, 'value'), col(threshold, 'threshold')));
}

describe('global-aggregate-as-window', () => {
  it('TPC-H Q11: the total over the same rows is the sum of the groups’ sums, a window over the groups', () => {
    expect(fire(globalAggregateAsWindow, q11())).toMatchInlineSnapshot(`
      "Project ps_partkey#7 := ps_partkey#7, value#8 := value#8, threshold#16 := threshold#16
        Filter (value#8 > threshold#16)
          Project ps_partkey#7 := ps_partkey#7, value#8 := value#8, threshold#16 := (total#15 * '0.0001'::decimal)
            Window total#15 := sum(value#8) OVER ()
              Aggregate group=[ps_partkey#7 := ps_partkey#1] aggs=[value#8 := sum(ps_cost#3)]
                Filter (s_nationkey#6 = 7)
                  Join inner ON (ps_suppkey#2 = s_suppkey#5)
                    Scan dbA.public.partsupp AS partsupp [ps_partkey#1, ps_suppkey#2, ps_cost#3, ps_weight#4]
                    Scan dbB.public.supplier AS supplier [s_suppkey#5, s_nationkey#6]"
    `);
  });

  it('a count over all rows is the sum of the groups’ counts, cast back to bigint', () => {
    expect(fire(globalAggregateAsWindow, q11('count_star'))).toMatchInlineSnapshot(`
      "Project ps_partkey#7 := ps_partkey#7, value#8 := value#8, threshold#16 := threshold#16
        Filter (value#8 > threshold#16)
          Project ps_partkey#7 := ps_partkey#7, value#8 := value#8, threshold#16 := (total#15 * '0.0001'::decimal)
            Project ps_partkey#7 := ps_partkey#7, value#8 := value#8, total#15 := CAST(total#17 AS int64)
              Window total#17 := sum(value#8) OVER ()
                Aggregate group=[ps_partkey#7 := ps_partkey#1] aggs=[value#8 := count_star()]
                  Filter (s_nationkey#6 = 7)
                    Join inner ON (ps_suppkey#2 = s_suppkey#5)
                      Scan dbA.public.partsupp AS partsupp [ps_partkey#1, ps_suppkey#2, ps_cost#3, ps_weight#4]
                      Scan dbB.public.supplier AS supplier [s_suppkey#5, s_nationkey#6]"
    `);
  });

  it('TPC-H Q15: a view read again for its maximum becomes a window over the view’s rows, below the join that uses them', () => {
    const b = new PlanBuilder();
    const view = () => {
      const l = b.scan('dbA', 'lineitem', { l_suppkey: 'int64', l_price: 'decimal(15,2)' }, 50_000);
      const g = b.aggregate(l, ['l_suppkey'], [['revenue', 'sum', [col(l, 'l_price')]]]);
      return b.select(g, ['l_suppkey', 'revenue']);
    };
    const supplier = b.scan('dbB', 'supplier', { s_suppkey: 'int64', s_name: 'varchar(25)' }, 10_000);
    const revenue = view();
    const j = b.join('inner', supplier, revenue, eq(col(supplier, 's_suppkey'), col(revenue, 'l_suppkey')));
    const again = view();
    const best = b.aggregate(again, [], [['best', 'max', [col(again, 'revenue')]]]);
    const plan = b.join('inner', j, best, eq(col(j, 'revenue'), col(best, 'best')));
    expect(fire(globalAggregateAsWindow, plan)).toMatchInlineSnapshot(`
      "Project s_suppkey#1 := s_suppkey#1, s_name#2 := s_name#2, l_suppkey#7 := l_suppkey#7, revenue#8 := revenue#8, best#15 := best#15
        Filter (revenue#8 = best#15)
          Join inner ON (s_suppkey#1 = l_suppkey#7)
            Scan dbB.public.supplier AS supplier [s_suppkey#1, s_name#2]
            Window best#15 := max(revenue#8) OVER ()
              Project l_suppkey#7 := l_suppkey#5, revenue#8 := revenue#6
                Aggregate group=[l_suppkey#5 := l_suppkey#3] aggs=[revenue#6 := sum(l_price#4)]
                  Scan dbA.public.lineitem AS lineitem [l_suppkey#3, l_price#4]"
    `);
  });

  it('leaves a total over other rows alone (another nation)', () => {
    expect(fire(globalAggregateAsWindow, q11('sum', 'ps_cost', { nation: 8 }))).toBe('did not fire');
  });

  it('leaves a total no group computes alone (max of the rows, groups summed)', () => {
    expect(fire(globalAggregateAsWindow, q11('sum', 'ps_cost', { totalFn: 'max' }))).toBe('did not fire');
  });

  it('does not add up floats per group: the rounding would differ from one sum over the rows', () => {
    expect(fire(globalAggregateAsWindow, q11('sum', 'ps_weight'))).toBe('did not fire');
  });

  it('keeps the aggregate when more groups are expected than a window in Junction should hold, unless their source computes the window', () => {
    const perOrder = (rows: number) => {
      const b = new PlanBuilder();
      const orders = () => b.scan('dbA', 'orders', { o_orderkey: 'int64', o_price: 'decimal(15,2)' }, rows);
      const o1 = orders();
      const groups = b.aggregate(o1, ['o_orderkey'], [['value', 'sum', [col(o1, 'o_price')]]]);
      const o2 = orders();
      const total = b.aggregate(o2, [], [['total', 'sum', [col(o2, 'o_price')]]]);
      return b.join('inner', groups, total, gt(col(groups, 'value'), col(total, 'total')));
    };
    // pushdown off: the window would hold 1.5M groups in Junction
    const inJunction = sources({ dbA: PG_CAPS, dbB: PG_CAPS }, false);
    expect(fire(globalAggregateAsWindow, perOrder(1_500_000), inJunction)).toBe('did not fire');
    expect(fire(globalAggregateAsWindow, perOrder(15_000), inJunction)).toContain('Window total#7 := sum(value#4) OVER ()');
    // a source without window aggregates: the same
    const noWindows = sources({ dbA: { ...PG_CAPS, aggregates: Object.fromEntries(Object.entries(PG_CAPS.aggregates).filter(([fn]) => fn !== 'sum')) } });
    expect(fire(globalAggregateAsWindow, perOrder(1_500_000), noWindows)).toBe('did not fire');
    // PostgreSQL computes the window over its own groups (TPC-H Q15 at SF 10: 100,000 suppliers)
    expect(fire(globalAggregateAsWindow, perOrder(1_500_000))).toContain('Window total#7 := sum(value#4) OVER ()');
  });

  it('does not look below a left join, whose NULL-extended rows hold no total', () => {
    const b = new PlanBuilder();
    const nation = b.scan('dbB', 'nation', { n_nationkey: 'int64' }, 25);
    const groupsOf = () => {
      const s = b.scan('dbA', 'supplier', { s_nationkey: 'int64', s_acctbal: 'decimal(15,2)' }, 10_000);
      return { s, g: b.aggregate(s, ['s_nationkey'], [['bal', 'sum', [col(s, 's_acctbal')]]]) };
    };
    const { g } = groupsOf();
    const lj = b.join('left', nation, g, eq(col(nation, 'n_nationkey'), col(g, 's_nationkey')));
    const { s } = groupsOf();
    const total = b.aggregate(s, [], [['total', 'sum', [col(s, 's_acctbal')]]]);
    expect(fire(globalAggregateAsWindow, b.join('inner', lj, total))).toBe('did not fire');
  });
});
