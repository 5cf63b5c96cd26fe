import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, col, eq, lit, lt } from '../test-support.js';
import { pruneColumns } from './prune-columns.js';

describe('prune-columns', () => {
  it('narrows scans below a projection to the columns read by it, the filter and the join', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)', c_address: 'varchar(40)' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64', o_comment: 'varchar(79)' });
    const j = b.join(
      'inner',
      b.filter(c, lt(col(c, 'c_custkey'), lit(10))),
      o,
      eq(col(c, 'c_custkey'), col(o, 'o_custkey')),
    );
    expect(fire(pruneColumns, b.select(j, ['c_name', 'o_orderkey']))).toMatchInlineSnapshot(`
      "Project c_name#7 := c_name#2, o_orderkey#8 := o_orderkey#4
        Join inner ON (c_custkey#1 = o_custkey#5)
          Filter (c_custkey#1 < 10)
            Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
          Scan dbA.public.orders AS orders [o_orderkey#4, o_custkey#5]"
    `);
  });

  it('keeps one column for count(*) and drops unread aggregates below a projection', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const a = b.aggregate(
      s,
      [],
      [
        ['n', 'count_star', []],
        ['m', 'max', [col(s, 'o_custkey')]],
      ],
    );
    expect(fire(pruneColumns, b.select(a, ['n']))).toMatchInlineSnapshot(`
      "Project n#5 := n#3
        Aggregate group=[] aggs=[n#3 := count_star()]
          Scan dbA.public.orders AS orders [o_orderkey#1]"
    `);
  });

  it('does not fire when every column is read', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    expect(fire(pruneColumns, b.select(s, ['o_custkey', 'o_orderkey']))).toBe('did not fire');
  });

  it('does not narrow below DISTINCT, whose every column matters', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const d = { kind: 'Distinct' as const, input: s };
    expect(fire(pruneColumns, b.select(d, ['o_custkey']))).toBe('did not fire');
  });
});
