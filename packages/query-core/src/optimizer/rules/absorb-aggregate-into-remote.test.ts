import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, col, eq, remote, sources } from '../test-support.js';
import { absorbAggregateIntoRemote } from './absorb-aggregate-into-remote.js';

describe('absorb-aggregate-into-remote', () => {
  it('absorbs a GROUP BY the source runs exactly', () => {
    const b = new PlanBuilder();
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_totalprice: 'decimal(15,2)' });
    const a = b.aggregate(
      remote(o),
      ['o_custkey'],
      [
        ['total', 'sum', [col(o, 'o_totalprice')]],
        ['n', 'count_star', []],
      ],
    );
    expect(fire(absorbAggregateIntoRemote, a)).toMatchInlineSnapshot(`
      "Remote dbA [o_custkey#3, total#4, n#5]
        Aggregate group=[o_custkey#3 := o_custkey#1] aggs=[total#4 := sum(o_totalprice#2), n#5 := count_star()]
          Scan dbA.public.orders AS orders [o_custkey#1, o_totalprice#2]"
    `);
  });

  it('keeps GROUP BY on a string column under a case-insensitive collation (residual kept)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbD', 'customer', { c_mktsegment: 'char(10)' });
    const a = b.aggregate(remote(c), ['c_mktsegment'], [['n', 'count_star', []]]);
    expect(fire(absorbAggregateIntoRemote, a, sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Aggregate group=[c_mktsegment#2 := c_mktsegment#1] aggs=[n#3 := count_star()]
        ! not pushed: GROUP BY c_mktsegment: string comparison under a case-insensitive or pad-space collation
        Remote dbD [c_mktsegment#1]
          Scan dbD.public.customer AS customer [c_mktsegment#1]"
    `);
  });

  it('splits into a partial aggregate in the source below a federated inner join and a final one above', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    expect(fire(absorbAggregateIntoRemote, a)).toMatchInlineSnapshot(`
      "Project c_custkey#5 := c_custkey#5, c_count#6 := CAST(c_count#8 AS int64)
        Aggregate group=[c_custkey#5 := c_custkey#1] aggs=[c_count#8 := sum(partial_c_count#7)]
          Join inner ON (c_custkey#1 = o_custkey#4)
            Remote dbB [c_custkey#1, c_name#2]
              Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
            Remote dbA [o_custkey#4, partial_c_count#7]
              Aggregate group=[o_custkey#4 := o_custkey#4] aggs=[partial_c_count#7 := count(o_orderkey#3)]
                Scan dbA.public.orders AS orders [o_orderkey#3, o_custkey#4]"
    `);
  });

  it('does not split when the whole join can run in one source (it is absorbed there, aggregate and all)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbA', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    expect(fire(absorbAggregateIntoRemote, a)).toBe('did not fire');
  });

  it('splits a count across a left join on its NULL-supplying side, a customer without orders counting 0 (Q13)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 150_000);
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
    const j = b.join('left', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    expect(fire(absorbAggregateIntoRemote, a, sources({ dbA: PG_CAPS, dbB: PG_CAPS }))).toMatchInlineSnapshot(`
      "Project c_custkey#4 := c_custkey#4, c_count#5 := coalesce(CAST(c_count#7 AS int64), 0)
        Aggregate group=[c_custkey#4 := c_custkey#1] aggs=[c_count#7 := sum(partial_c_count#6)]
          Join left ON (c_custkey#1 = o_custkey#3)
            Remote dbB [c_custkey#1]
              Scan dbB.public.customer AS customer [c_custkey#1]
            Remote dbA [o_custkey#3, partial_c_count#6]
              Aggregate group=[o_custkey#3 := o_custkey#3] aggs=[partial_c_count#6 := count(o_orderkey#2)]
                Scan dbA.public.orders AS orders [o_orderkey#2, o_custkey#3]"
    `);
  });

  it('does not split a count(*) onto the NULL-supplying side of a left join (it counts the NULL-extended row)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 150_000);
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
    const j = b.join('left', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [
      ['n', 'count_star', []],
      ['s', 'sum', [col(o, 'o_orderkey')]],
    ]);
    expect(fire(absorbAggregateIntoRemote, a, sources({ dbA: PG_CAPS, dbB: PG_CAPS }))).toBe('did not fire');
  });

  it('does not split a DISTINCT aggregate (partials do not merge exactly)', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' });
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_custkey'], [['c_count', 'count', [col(o, 'o_orderkey')]]]);
    const distinct =
      a.kind === 'Aggregate' ? { ...a, aggregates: a.aggregates.map((x) => ({ ...x, distinct: true })) } : a;
    expect(fire(absorbAggregateIntoRemote, distinct, sources({ dbA: PG_CAPS, dbB: PG_CAPS }))).toBe('did not fire');
  });

  it('puts the partial count(*) on the side it reduces, never grouped by a unique key', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_nationkey: 'int32' }, 150_000);
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' }, 1_500_000);
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const a = b.aggregate(j, ['c_nationkey'], [['n', 'count_star', []]]);
    const catalog = (source: string, table: string, rows: number, pk: string) => ({
      capabilities: PG_CAPS,
      catalog: {
        defaultSchema: 'public',
        introspectedAt: '2026-01-01T00:00:00Z',
        tables: [
          {
            schema: 'public',
            name: table,
            kind: 'table' as const,
            columns: [],
            foreignKeys: [],
            indexes: [],
            primaryKey: [pk],
            rowCount: rows,
          },
        ],
      },
    });
    const input = sources({
      dbB: catalog('dbB', 'customer', 150_000, 'c_custkey'),
      dbA: catalog('dbA', 'orders', 1_500_000, 'o_orderkey'),
    });
    expect(fire(absorbAggregateIntoRemote, a, input)).toMatchInlineSnapshot(`
      "Project c_nationkey#5 := c_nationkey#5, n#6 := CAST(n#8 AS int64)
        Aggregate group=[c_nationkey#5 := c_nationkey#2] aggs=[n#8 := sum(partial_n#7)]
          Join inner ON (c_custkey#1 = o_custkey#4)
            Remote dbB [c_custkey#1, c_nationkey#2]
              Scan dbB.public.customer AS customer [c_custkey#1, c_nationkey#2]
            Remote dbA [o_custkey#4, partial_n#7]
              Aggregate group=[o_custkey#4 := o_custkey#4] aggs=[partial_n#7 := count_star()]
                Scan dbA.public.orders AS orders [o_orderkey#3, o_custkey#4]"
    `);
  });

  it('looks through a renaming projection between the aggregate and the join', () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
    const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_totalprice: 'decimal(15,2)' });
    const j = b.join('inner', remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
    const p = b.project(j, [
      ['name', col(j, 'c_name')],
      ['price', col(j, 'o_totalprice')],
    ]);
    const a = b.aggregate(p, ['name'], [['total', 'sum', [col(p, 'price')]]]);
    expect(fire(absorbAggregateIntoRemote, a)).toMatchInlineSnapshot(`
      "Aggregate group=[name#7 := c_name#2] aggs=[total#8 := sum(partial_total#9)]
        Join inner ON (c_custkey#1 = o_custkey#3)
          Remote dbB [c_custkey#1, c_name#2]
            Scan dbB.public.customer AS customer [c_custkey#1, c_name#2]
          Remote dbA [o_custkey#3, partial_total#9]
            Aggregate group=[o_custkey#3 := o_custkey#3] aggs=[partial_total#9 := sum(o_totalprice#4)]
              Scan dbA.public.orders AS orders [o_custkey#3, o_totalprice#4]"
    `);
  });
});
