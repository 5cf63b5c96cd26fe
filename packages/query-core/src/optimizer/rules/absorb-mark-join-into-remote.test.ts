import { describe, expect, it } from 'vitest';
import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, call, col, eq, lit, remote, sources } from '../test-support.js';
import { absorbMarkJoinIntoRemote } from './absorb-mark-join-into-remote.js';

/** customer ⟕mark orders: EXISTS (correlated), or `c_custkey op ANY (SELECT o_custkey …)`. */
function mark(sourceB: string, compare?: (c: Expr, o: Expr) => Expr): LogicalPlan {
  const b = new PlanBuilder();
  const c = b.scan('dbA', 'customer', { c_custkey: 'int64', c_nationkey: 'int64' });
  const o = b.scan(sourceB, 'orders', { o_custkey: 'int64', o_totalprice: 'decimal(15,2)' });
  return {
    kind: 'MarkJoin',
    left: remote(c),
    right: remote(b.filter(o, call('gt', col(o, 'o_totalprice'), lit('100', 'decimal(15,2)')))),
    ...(compare ? { compare: compare(col(c, 'c_custkey'), col(o, 'o_custkey')) } : { condition: eq(col(o, 'o_custkey'), col(c, 'c_custkey')) }),
    mark: b.field(compare ? 'any' : 'exists', 'bool'),
  };
}

describe('absorb-mark-join-into-remote', () => {
  it('absorbs EXISTS over one source: the source computes the mark', () => {
    expect(fire(absorbMarkJoinIntoRemote, mark('dbA'))).toMatchInlineSnapshot(`
      "Remote dbA [c_custkey#1, c_nationkey#2, exists#5]
        MarkJoin exists#5 EXISTS WHERE (o_custkey#3 = c_custkey#1)
          Scan dbA.public.customer AS customer [c_custkey#1, c_nationkey#2]
          Filter (o_totalprice#4 > '100'::decimal(15,2))
            Scan dbA.public.orders AS orders [o_custkey#3, o_totalprice#4]"
    `);
  });

  it('absorbs x IN (SELECT …) over one source', () => {
    expect(fire(absorbMarkJoinIntoRemote, mark('dbA', eq))).toMatchInlineSnapshot(`
      "Remote dbA [c_custkey#1, c_nationkey#2, any#5]
        MarkJoin any#5 ANY (c_custkey#1 = o_custkey#3)
          Scan dbA.public.customer AS customer [c_custkey#1, c_nationkey#2]
          Filter (o_totalprice#4 > '100'::decimal(15,2))
            Scan dbA.public.orders AS orders [o_custkey#3, o_totalprice#4]"
    `);
  });

  it('keeps a mark join across sources in Junction, annotated "spans sources"', () => {
    expect(fire(absorbMarkJoinIntoRemote, mark('dbB'))).toMatchInlineSnapshot(`
      "MarkJoin exists#5 EXISTS WHERE (o_custkey#3 = c_custkey#1)
        ! not pushed: exists := EXISTS (…): spans sources (dbA, dbB)
        Remote dbA [c_custkey#1, c_nationkey#2]
          Scan dbA.public.customer AS customer [c_custkey#1, c_nationkey#2]
        Remote dbB [o_custkey#3, o_totalprice#4]
          Filter (o_totalprice#4 > '100'::decimal(15,2))
            Scan dbB.public.orders AS orders [o_custkey#3, o_totalprice#4]"
    `);
  });

  it('keeps x < ANY (…) in Junction: only = ANY is sent', () => {
    expect(fire(absorbMarkJoinIntoRemote, mark('dbA', (a, b) => call('lt', a, b)))).toMatchInlineSnapshot(`
      "MarkJoin any#5 ANY (c_custkey#1 < o_custkey#3)
        ! not pushed: any := ANY (c_custkey < o_custkey): only = ANY (IN) is sent to sources
        Remote dbA [c_custkey#1, c_nationkey#2]
          Scan dbA.public.customer AS customer [c_custkey#1, c_nationkey#2]
        Remote dbA [o_custkey#3, o_totalprice#4]
          Filter (o_totalprice#4 > '100'::decimal(15,2))
            Scan dbA.public.orders AS orders [o_custkey#3, o_totalprice#4]"
    `);
  });

  it('keeps it in Junction when the source declares no correlated subqueries', () => {
    expect(fire(absorbMarkJoinIntoRemote, mark('dbA'), sources({ dbA: { ...PG_CAPS, existsSubquery: false } }))).toMatchInlineSnapshot(`
      "MarkJoin exists#5 EXISTS WHERE (o_custkey#3 = c_custkey#1)
        ! not pushed: exists := EXISTS (…): source cannot run a correlated subquery in an expression
        Remote dbA [c_custkey#1, c_nationkey#2]
          Scan dbA.public.customer AS customer [c_custkey#1, c_nationkey#2]
        Remote dbA [o_custkey#3, o_totalprice#4]
          Filter (o_totalprice#4 > '100'::decimal(15,2))
            Scan dbA.public.orders AS orders [o_custkey#3, o_totalprice#4]"
    `);
  });

  it('does not fire on other nodes', () => {
    const b = new PlanBuilder();
    expect(fire(absorbMarkJoinIntoRemote, remote(b.scan('dbA', 't', { a: 'int64' })))).toBe('did not fire');
  });
});
