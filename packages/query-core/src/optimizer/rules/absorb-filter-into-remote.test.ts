import { describe, expect, it } from 'vitest';
import { applyRule } from '../driver.js';
import { fire } from '../rule-test-helper.js';
import {
  MARIADB_CI_CAPS,
  PG_CAPS,
  PlanBuilder,
  and,
  call,
  col,
  eq,
  lit,
  lt,
  remote,
  sources,
} from '../test-support.js';
import { behindBarrier } from '../../plan/barrier.js';
import { absorbFilterIntoRemote } from './absorb-filter-into-remote.js';

function customer() {
  const b = new PlanBuilder();
  const s = b.scan('dbD', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)', c_acctbal: 'decimal(15,2)' });
  return { b, s, r: remote(s) };
}

describe('absorb-filter-into-remote', () => {
  it('moves the whole predicate into the source when every conjunct is exact', () => {
    const { b, s, r } = customer();
    const plan = b.filter(r, and(lt(col(s, 'c_custkey'), lit(10)), eq(col(s, 'c_name'), lit('Customer#1'))));
    expect(fire(absorbFilterIntoRemote, plan, sources({ dbD: PG_CAPS }))).toMatchInlineSnapshot(`
      "Remote dbD [c_custkey#1, c_name#2, c_acctbal#3]
        Filter ((c_custkey#1 < 10) AND (c_name#2 = 'Customer#1'))
          Scan dbD.public.customer AS customer [c_custkey#1, c_name#2, c_acctbal#3]"
    `);
  });

  it('keeps a string equality under a case-insensitive collation in Junction, annotated (residual kept)', () => {
    const { b, s, r } = customer();
    const plan = b.filter(r, and(lt(col(s, 'c_custkey'), lit(10)), eq(col(s, 'c_name'), lit('Customer#1'))));
    expect(fire(absorbFilterIntoRemote, plan, sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Filter (c_name#2 = 'Customer#1')
        ! not pushed: (c_name = 'Customer#1'): string comparison under a case-insensitive or pad-space collation
        Remote dbD [c_custkey#1, c_name#2, c_acctbal#3]
          Filter (c_custkey#1 < 10)
            Scan dbD.public.customer AS customer [c_custkey#1, c_name#2, c_acctbal#3]"
    `);
  });

  it('keeps LIKE when the source LIKE is not case-sensitive', () => {
    const { b, s, r } = customer();
    const plan = b.filter(r, call('like', col(s, 'c_name'), lit('%#1')));
    expect(fire(absorbFilterIntoRemote, plan, sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Filter (c_name#2 LIKE '%#1')
        ! not pushed: (c_name LIKE '%#1'): LIKE is not case-sensitive in source
        Remote dbD [c_custkey#1, c_name#2, c_acctbal#3]
          Scan dbD.public.customer AS customer [c_custkey#1, c_name#2, c_acctbal#3]"
    `);
  });

  it('does not fire again once nothing is pushable and the reason is recorded', () => {
    const { b, s, r } = customer();
    const plan = b.filter(r, call('like', col(s, 'c_name'), lit('%#1')));
    const input = sources({ dbD: MARIADB_CI_CAPS });
    const once = applyRule(plan, { name: 'absorb', apply: absorbFilterIntoRemote }, input);
    expect(once && 'notPushed' in once ? once.notPushed : undefined).toEqual([
      { what: "(c_name LIKE '%#1')", reason: 'LIKE is not case-sensitive in source' },
    ]);
    expect(fire(absorbFilterIntoRemote, once!, input)).toBe('did not fire');
  });

  it('does not fire on a filter over a join', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const j = b.join('cross', s, b.scan('dbA', 'lineitem', { l_orderkey: 'int64' }));
    expect(fire(absorbFilterIntoRemote, b.filter(j, lt(col(j, 'o_orderkey'), lit(1))))).toBe('did not fire');
  });

  it('annotates a predicate left above a federated join with the sources it spans', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64' });
    const j = b.join('left', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const plan = b.filter(j, call('or', call('is_null', col(j, 'o_custkey')), lt(col(j, 'c_custkey'), lit(3))));
    expect(fire(absorbFilterIntoRemote, plan)).toMatchInlineSnapshot(`
      "Filter ((o_custkey#2 IS NULL) OR (c_custkey#1 < 3))
        ! not pushed: ((o_custkey IS NULL) OR (c_custkey < 3)): spans sources (dbA, dbB)
        Join left ON (c_custkey#1 = o_custkey#2)
          Remote dbB [c_custkey#1]
            Scan dbB.public.customer AS customer [c_custkey#1]
          Remote dbA [o_custkey#2]
            Scan dbA.public.orders AS orders [o_custkey#2]"
    `);
  });

  it('sends only leakproof conjuncts into a source statement that holds a view\'s security barrier', () => {
    const { b, s } = customer();
    const v = behindBarrier(b.select(b.filter(s, lt(col(s, 'c_custkey'), lit(10))), ['c_name', 'c_acctbal']), 'sales.small');
    const leaky = lt(lit(0, 'decimal'), call('div', lit(1, 'decimal'), col(v, 'c_acctbal')));
    const plan = b.filter(remote(v), and(eq(col(v, 'c_name'), lit('Customer#1')), leaky));
    expect(fire(absorbFilterIntoRemote, plan, sources({ dbD: PG_CAPS }))).toMatchInlineSnapshot(`
      "Filter (0::decimal < (1::decimal / c_acctbal#5))
        ! not pushed: (0::decimal < (1::decimal / c_acctbal)): not leakproof: evaluated after view sales.small's own filter
        Remote dbD [c_name#4, c_acctbal#5]
          Filter (c_name#4 = 'Customer#1')
            Project [barrier sales.small] c_name#4 := c_name#2, c_acctbal#5 := c_acctbal#3
              Filter (c_custkey#1 < 10)
                Scan dbD.public.customer AS customer [c_custkey#1, c_name#2, c_acctbal#3]"
    `);
  });
});
