import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, call, col, lit, lt } from '../test-support.js';
import { pushFilterThroughProject } from './push-filter-through-project.js';

describe('push-filter-through-project', () => {
  it('rewrites the predicate over the projected expressions and moves it below', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_totalprice: 'decimal(15,2)' });
    const p = b.project(s, [
      ['k', col(s, 'o_orderkey')],
      ['twice', call('add', col(s, 'o_totalprice'), col(s, 'o_totalprice'))],
    ]);
    expect(fire(pushFilterThroughProject, b.filter(p, lt(col(p, 'twice'), lit('10', 'decimal')))))
      .toMatchInlineSnapshot(`
      "Project k#3 := o_orderkey#1, twice#4 := (o_totalprice#2 + o_totalprice#2)
        Filter ((o_totalprice#2 + o_totalprice#2) < '10'::decimal)
          Scan dbA.public.orders AS orders [o_orderkey#1, o_totalprice#2]"
    `);
  });

  it('does not fire on a filter over a scan', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    expect(fire(pushFilterThroughProject, b.filter(s, lt(col(s, 'o_orderkey'), lit(5))))).toBe('did not fire');
  });

  it('keeps the filter above a projection holding a subquery expression', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const sub = { kind: 'subquery' as const, plan: s, type: { kind: 'int64' as const } };
    const p = b.project(s, [['x', sub]]);
    expect(fire(pushFilterThroughProject, b.filter(p, lt(col(p, 'x'), lit(5))))).toBe('did not fire');
  });
});
