import { describe, expect, it } from 'vitest';
import type { Expr } from '../../plan/logical.js';
import { applyRule } from '../driver.js';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, and, call, col, eq, gt, lit, lt, sources } from '../test-support.js';
import { inferPredicatesFromDisjunction } from './infer-predicates-from-disjunction.js';

const or = (...xs: Expr[]) => xs.reduce((a, b) => call('or', a, b));

/** Q19's shape: part in one source, lineitem in another, an OR of conjunctions over both. */
function q19(type: 'inner' | 'left' = 'inner', where = false) {
  const b = new PlanBuilder();
  const p = b.scan('dbC', 'part', { p_partkey: 'int64', p_brand: 'text', p_size: 'int64' });
  const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64', l_quantity: 'int64' });
  const disjunction = or(
    and(eq(col(p, 'p_brand'), lit('Brand#12')), lt(col(p, 'p_size'), lit(5)), lt(col(l, 'l_quantity'), lit(11))),
    and(eq(col(p, 'p_brand'), lit('Brand#23')), gt(col(l, 'l_quantity'), lit(10))),
  );
  const key = eq(col(p, 'p_partkey'), col(l, 'l_partkey'));
  if (where) return b.filter(b.join(type, p, l, key), disjunction);
  return b.join(type, p, l, and(key, disjunction));
}

describe('infer-predicates-from-disjunction', () => {
  it("sends each side the OR of its own conjuncts of every term and keeps the full disjunction (Q19)", () => {
    expect(fire(inferPredicatesFromDisjunction, q19())).toMatchInlineSnapshot(`
      "Join inner ON ((p_partkey#1 = l_partkey#4) AND ((((p_brand#2 = 'Brand#12') AND (p_size#3 < 5)) AND (l_quantity#5 < 11)) OR ((p_brand#2 = 'Brand#23') AND (l_quantity#5 > 10))))
        Filter (((p_brand#2 = 'Brand#12') AND (p_size#3 < 5)) OR (p_brand#2 = 'Brand#23'))
          Scan dbC.public.part AS part [p_partkey#1, p_brand#2, p_size#3]
        Filter ((l_quantity#5 < 11) OR (l_quantity#5 > 10))
          Scan dbA.public.lineitem AS lineitem [l_partkey#4, l_quantity#5]"
    `);
  });

  it('does not fire again on its own output', () => {
    const input = sources({ dbA: PG_CAPS, dbC: PG_CAPS });
    const once = applyRule(q19(), { name: 'r', apply: inferPredicatesFromDisjunction }, input)!;
    expect(applyRule(once, { name: 'r', apply: inferPredicatesFromDisjunction }, input)).toBeUndefined();
  });

  it('from a WHERE above a left join, only into the preserved side', () => {
    expect(fire(inferPredicatesFromDisjunction, q19('left', true))).toMatchInlineSnapshot(`
      "Filter ((((p_brand#2 = 'Brand#12') AND (p_size#3 < 5)) AND (l_quantity#5 < 11)) OR ((p_brand#2 = 'Brand#23') AND (l_quantity#5 > 10)))
        Join left ON (p_partkey#1 = l_partkey#4)
          Filter (((p_brand#2 = 'Brand#12') AND (p_size#3 < 5)) OR (p_brand#2 = 'Brand#23'))
            Scan dbC.public.part AS part [p_partkey#1, p_brand#2, p_size#3]
          Scan dbA.public.lineitem AS lineitem [l_partkey#4, l_quantity#5]"
    `);
  });

  it('does not fire when a term says nothing about either side alone', () => {
    const b = new PlanBuilder();
    const p = b.scan('dbC', 'part', { p_partkey: 'int64', p_size: 'int64' });
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64', l_quantity: 'int64' });
    // the second term reads both sides in one comparison: neither side is restricted by it
    const j = b.join(
      'inner',
      p,
      l,
      or(and(lt(col(p, 'p_size'), lit(5)), lt(col(l, 'l_quantity'), lit(11))), lt(col(p, 'p_size'), col(l, 'l_quantity'))),
    );
    expect(fire(inferPredicatesFromDisjunction, j)).toBe('did not fire');
  });

  it('leaves a disjunction over one side to push-filter-into-join', () => {
    const b = new PlanBuilder();
    const p = b.scan('dbC', 'part', { p_partkey: 'int64', p_size: 'int64' });
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64' });
    const j = b.join('inner', p, l, and(eq(col(p, 'p_partkey'), col(l, 'l_partkey')), or(lt(col(p, 'p_size'), lit(5)), gt(col(p, 'p_size'), lit(40)))));
    expect(fire(inferPredicatesFromDisjunction, j)).toBe('did not fire');
  });
});
