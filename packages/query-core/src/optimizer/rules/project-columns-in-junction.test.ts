import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, col, eq, lit, lt } from '../test-support.js';
import { projectColumnsInJunction } from './project-columns-in-junction.js';

describe('project-columns-in-junction', () => {
  it('keeps each scan whole and drops the columns nothing reads right above it', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)', c_address: 'varchar(40)' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64', o_comment: 'varchar(79)' });
    const j = b.join('inner', b.filter(c, lt(col(c, 'c_custkey'), lit(10))), o, eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    expect(fire(projectColumnsInJunction, b.select(j, ['c_name', 'o_orderkey']))).toMatchInlineSnapshot(`
      "Project c_name#7 := c_name#2, o_orderkey#8 := o_orderkey#4
        Join inner ON (c_custkey#1 = o_custkey#5)
          Filter (c_custkey#1 < 10)
            Project c_custkey#1 := c_custkey#1, c_name#2 := c_name#2
              Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_address#3]
          Project o_orderkey#4 := o_orderkey#4, o_custkey#5 := o_custkey#5
            Scan dbA.public.orders AS orders [o_orderkey#4, o_custkey#5, o_comment#6]"
    `);
  });

  it('leaves a projection or an aggregate right above a scan as it is, and reaches a fixpoint', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64', o_comment: 'varchar(79)' });
    expect(fire(projectColumnsInJunction, b.select(s, ['o_custkey']))).toBe('did not fire');
    expect(fire(projectColumnsInJunction, b.aggregate(s, [], [['n', 'count_star', []]]))).toBe('did not fire');
    // nor when reached from a projection above: SELECT o_custkey, count(*) … GROUP BY o_custkey
    const grouped = b.aggregate(s, ['o_custkey'], [['n', 'count_star', []]]);
    expect(fire(projectColumnsInJunction, b.select(grouped, ['n']))).toBe('did not fire');
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64', o_comment: 'varchar(79)' });
    const once = b.select(b.filter(o, lt(col(o, 'o_custkey'), lit(10))), ['o_orderkey']);
    const fired = projectColumnsInJunction(once)!;
    expect(fired).toBeDefined();
    expect(projectColumnsInJunction(fired)).toBeUndefined();
  });
});
