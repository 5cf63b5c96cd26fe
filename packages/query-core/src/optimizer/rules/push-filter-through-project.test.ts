import { describe, expect, it } from 'vitest';
import { applyRule } from '../driver.js';
import { printPlan } from '../../plan/print.js';
import { fire } from '../rule-test-helper.js';
import type { LogicalPlan } from '../../plan/logical.js';
import { behindBarrier } from '../../plan/barrier.js';
import { PG_CAPS, PlanBuilder, and, call, col, eq, lit, lt, sources } from '../test-support.js';
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

  describe('through a view\'s security barrier', () => {
    // hr.public_staff = SELECT name, salary FROM db.staff WHERE dept <> 'exec'
    function view() {
      const b = new PlanBuilder();
      const s = b.scan('dbA', 'staff', { name: 'text', dept: 'text', salary: 'int32' });
      const body = b.project(b.filter(s, call('ne', col(s, 'dept'), lit('exec'))), [
        ['name', col(s, 'name')],
        ['salary', col(s, 'salary')],
      ]);
      return { b, v: behindBarrier(body, 'hr.public_staff') };
    }
    const leaky = (v: LogicalPlan) => lt(lit(0, 'int32'), call('div', lit(1, 'int32'), call('sub', col(v, 'salary'), lit(90000, 'int32'))));

    it('moves a leakproof conjunct below and keeps one that can fail above, after the view\'s filter', () => {
      const { b, v } = view();
      expect(fire(pushFilterThroughProject, b.filter(v, and(eq(col(v, 'name'), lit('ann')), leaky(v))))).toMatchInlineSnapshot(`
        "Filter (0 < (1 / (salary#5 - 90000)))
          Project [barrier hr.public_staff] name#4 := name#1, salary#5 := salary#3
            Filter (name#1 = 'ann')
              Filter (dept#2 <> 'exec')
                Scan dbA.public.staff AS staff [name#1, dept#2, salary#3]"
      `);
    });

    it('keeps a predicate that can fail above, annotated, when nothing is leakproof (then does not fire)', () => {
      const { b, v } = view();
      const once = applyRule(b.filter(v, leaky(v)), { name: 'p', apply: pushFilterThroughProject }, sources({ dbA: PG_CAPS }))!;
      expect(printPlan(once)).toMatchInlineSnapshot(`
        "Filter (0 < (1 / (salary#5 - 90000)))
          ! not pushed: (0 < (1 / (salary - 90000))): not leakproof: evaluated after view hr.public_staff's own filter
          Project [barrier hr.public_staff] name#4 := name#1, salary#5 := salary#3
            Filter (dept#2 <> 'exec')
              Scan dbA.public.staff AS staff [name#1, dept#2, salary#3]"
      `);
      expect(fire(pushFilterThroughProject, once)).toBe('did not fire');
    });
  });
});
