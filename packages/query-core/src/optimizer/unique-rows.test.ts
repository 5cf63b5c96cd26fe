import { describe, expect, it } from 'vitest';
import type { LogicalPlan } from '../plan/logical.js';
import { PG_CAPS, PlanBuilder, call, col, eq, lit, sources, withTable } from './test-support.js';
import { uniqueOn } from './unique-rows.js';

const ctx = sources({ dbA: withTable(PG_CAPS, { name: 'orders', primaryKey: ['o_orderkey'] }) });

function ids(plan: LogicalPlan, ...names: string[]): Set<number> {
  return new Set(names.map((n) => (col(plan, n) as { id: number }).id));
}

describe('uniqueOn', () => {
  const b = new PlanBuilder();
  const orders = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
  const other = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });

  it('a primary key, through a filter and a projection that passes it on, but not a computed copy', () => {
    expect(uniqueOn(orders, ids(orders, 'o_orderkey'), ctx)).toBe(true);
    expect(uniqueOn(orders, ids(orders, 'o_custkey'), ctx)).toBe(false);
    const f = b.filter(orders, call('gt', col(orders, 'o_custkey'), lit(10)));
    const p = b.project(f, [
      ['k', col(f, 'o_orderkey')],
      ['k1', call('add', col(f, 'o_orderkey'), lit(1))],
    ]);
    expect(uniqueOn(p, ids(p, 'k'), ctx)).toBe(true);
    expect(uniqueOn(p, ids(p, 'k1'), ctx)).toBe(false);
  });

  it('a grouping on its keys, a global aggregate on nothing, DISTINCT on all its fields', () => {
    const g = b.aggregate(orders, ['o_custkey'], [['n', 'count_star', []]]);
    expect(uniqueOn(g, ids(g, 'o_custkey'), ctx)).toBe(true);
    expect(uniqueOn(g, ids(g, 'n'), ctx)).toBe(false);
    expect(uniqueOn(b.aggregate(orders, [], [['n', 'count_star', []]]), new Set(), ctx)).toBe(true);
    const d: LogicalPlan = { kind: 'Distinct', input: b.select(orders, ['o_custkey']) };
    expect(uniqueOn(d, ids(d, 'o_custkey'), ctx)).toBe(true);
  });

  it('a cross join on both sides\' keys together, not on one; a semi join keeps the left\'s', () => {
    const cross = b.join('cross', orders, other);
    expect(uniqueOn(cross, new Set([...ids(orders, 'o_orderkey'), ...ids(other, 'o_orderkey')]), ctx)).toBe(true);
    expect(uniqueOn(cross, ids(orders, 'o_orderkey'), ctx)).toBe(false);
    const semi = b.join('semi', orders, other, eq(col(orders, 'o_custkey'), col(other, 'o_custkey')));
    expect(uniqueOn(semi, ids(orders, 'o_orderkey'), ctx)).toBe(true);
  });

  it('an inner join by one side\'s key keeps the other side\'s uniqueness', () => {
    // orders joined to its copy by key: each row meets one
    const j = b.join('inner', orders, other, eq(col(orders, 'o_orderkey'), col(other, 'o_orderkey')));
    expect(uniqueOn(j, ids(other, 'o_orderkey'), ctx)).toBe(true);
    // by customer: an order meets every order of its customer
    const byCustomer = b.join('inner', orders, other, eq(col(orders, 'o_custkey'), col(other, 'o_custkey')));
    expect(uniqueOn(byCustomer, ids(orders, 'o_orderkey'), ctx)).toBe(false);
  });
});
