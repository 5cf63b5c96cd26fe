import { describe, expect, it } from 'vitest';
import type { AggFn, JType } from '@junction/connectors';
import type { Expr, LogicalPlan } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, col, eq, remote, sources, withTable } from '../test-support.js';
import { dropAggregateOverUniqueRows } from './drop-aggregate-over-unique-rows.js';

const keyed = sources({ dbA: PG_CAPS, dbB: withTable(PG_CAPS, { name: 'customer', primaryKey: ['c_custkey'] }) });
const unkeyed = sources({ dbA: PG_CAPS, dbB: PG_CAPS });

/**
 * TPC-H Q10's shape after pushdown: orders grouped by customer in dbA, joined to customer by
 * its key in Junction, grouped again by the customer key with the per-source sums summed.
 */
function q10(options: { type?: 'inner' | 'left' | 'right'; customerLeft?: boolean; aggs?: (o: LogicalPlan, c: LogicalPlan) => [string, AggFn, Expr[], JType?][] } = {}) {
  const b = new PlanBuilder();
  const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_totalprice: 'decimal(15,2)' });
  const partial = b.aggregate(o, ['o_custkey'], [['partial_sum', 'sum', [col(o, 'o_totalprice')]]]);
  const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)', c_age: 'int32' });
  const [left, right] = options.customerLeft ? [remote(c), remote(partial)] : [remote(partial), remote(c)];
  const j = b.join(options.type ?? 'inner', left, right, eq(col(c, 'c_custkey'), col(partial, 'o_custkey')));
  const aggs = options.aggs?.(partial, c) ?? [
    ['revenue', 'sum', [col(partial, 'partial_sum')]],
    ['c_name', 'min', [col(c, 'c_name')]],
  ];
  return b.aggregate(j, ['c_custkey'], aggs);
}

describe('drop-aggregate-over-unique-rows', () => {
  it('turns a grouping by a key its input already holds once into a projection of each one value', () => {
    expect(fire(dropAggregateOverUniqueRows, q10(), keyed)).toMatchInlineSnapshot(`
      "Project c_custkey#8 := c_custkey#5, revenue#9 := partial_sum#4, c_name#10 := c_name#6
        Join inner ON (c_custkey#5 = o_custkey#3)
          Remote dbA [o_custkey#3, partial_sum#4]
            Aggregate group=[o_custkey#3 := o_custkey#1] aggs=[partial_sum#4 := sum(o_totalprice#2)]
              Scan dbA.public.orders AS orders [o_custkey#1, o_totalprice#2]
          Remote dbB [c_custkey#5, c_name#6, c_age#7]
            Scan dbB.public.customer AS customer [c_custkey#5, c_name#6, c_age#7]"
    `);
  });

  it('needs the other side unique on its join keys: without customer\'s key a customer may match twice', () => {
    expect(fire(dropAggregateOverUniqueRows, q10(), unkeyed)).toBe('did not fire');
  });

  it('a left join keeps the preserved side\'s uniqueness, not the NULL-extended side\'s', () => {
    // customer LEFT JOIN grouped orders, by customer key: one row per customer
    expect(fire(dropAggregateOverUniqueRows, q10({ type: 'left', customerLeft: true }), keyed)).not.toBe('did not fire');
    // grouped orders LEFT JOIN customer is one row per orders group too, but grouping by the
    // NULL-extended customer key would merge the misses: only the preserved key counts
    expect(fire(dropAggregateOverUniqueRows, q10({ type: 'left' }), keyed)).toBe('did not fire');
    expect(fire(dropAggregateOverUniqueRows, q10({ type: 'right', customerLeft: true }), keyed)).toBe('did not fire');
  });

  it('widens an integer sum exactly, and leaves count, avg and FILTER to the grouping', () => {
    expect(fire(dropAggregateOverUniqueRows, q10({ aggs: (_o, c) => [['ages', 'sum', [col(c, 'c_age')]]] }), keyed)).toMatchInlineSnapshot(`
      "Project c_custkey#8 := c_custkey#5, ages#9 := CAST(c_age#7 AS int64)
        Join inner ON (c_custkey#5 = o_custkey#3)
          Remote dbA [o_custkey#3, partial_sum#4]
            Aggregate group=[o_custkey#3 := o_custkey#1] aggs=[partial_sum#4 := sum(o_totalprice#2)]
              Scan dbA.public.orders AS orders [o_custkey#1, o_totalprice#2]
          Remote dbB [c_custkey#5, c_name#6, c_age#7]
            Scan dbB.public.customer AS customer [c_custkey#5, c_name#6, c_age#7]"
    `);
    for (const fn of ['count', 'avg'] as const)
      expect(fire(dropAggregateOverUniqueRows, q10({ aggs: (_o, c) => [['x', fn, [col(c, 'c_age')]]] }), keyed)).toBe('did not fire');
    const filtered = q10();
    if (filtered.kind !== 'Aggregate') throw new Error('not an aggregate');
    const withFilter = { ...filtered, aggregates: [{ ...filtered.aggregates[0], filter: eq(col(filtered, 'c_custkey'), col(filtered, 'c_custkey')) }] };
    expect(fire(dropAggregateOverUniqueRows, withFilter, keyed)).toBe('did not fire');
  });

  it('leaves a global aggregate, which answers one row even for no input', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_age: 'int32' });
    expect(fire(dropAggregateOverUniqueRows, b.aggregate(remote(c), [], [['m', 'max', [col(c, 'c_age')]]]), keyed)).toBe('did not fire');
  });
});
