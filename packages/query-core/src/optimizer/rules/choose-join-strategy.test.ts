import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, and, col, eq, lit, param, parseType, remote, sources } from '../test-support.js';
import { chooseJoinStrategy } from './choose-join-strategy.js';
import type { CatalogSnapshot } from '@junction/connectors';

function join(smallRows: number, keyType = 'int64', type: 'inner' | 'semi' | 'anti' = 'inner') {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', { c_custkey: keyType }, smallRows);
  const o = b.scan('dbD', 'orders', { o_custkey: keyType }, 1_500_000);
  return b.join(type, remote(o), remote(c), eq(col(o, 'o_custkey'), col(c, 'c_custkey')));
}

/** orders' o_custkey as the source's statistics describe it: `distinct` customers place orders. */
function withStats(distinct: number) {
  const catalog: CatalogSnapshot = {
    defaultSchema: 'public',
    introspectedAt: '',
    tables: [
      {
        schema: 'public',
        name: 'orders',
        kind: 'table',
        rowCount: 1_500_000,
        foreignKeys: [],
        indexes: [],
        columns: [{ name: 'o_custkey', type: parseType('int64'), nativeType: 'bigint', nullable: false, stats: { distinct } }],
      },
    ],
  };
  return sources({ dbB: PG_CAPS, dbD: { capabilities: MARIADB_CI_CAPS, catalog } });
}

/**
 * A small driver (one nation) joined with a source's aggregate over 800,000 rows, which has
 * only 25 groups (statistics): grouped by the join key when `on` is 'group', else joined on
 * its sum.
 */
function groupedJoin(on: 'group' | 'sum') {
  const b = new PlanBuilder();
  const n = b.scan('dbD', 'nation', { n_nationkey: 'int32' }, 1);
  const ps = b.scan('dbC', 'partsupp', { s_nationkey: 'int32', v: 'int32' }, 800_000);
  const agg = b.aggregate(ps, ['s_nationkey'], [['total', 'sum', [col(ps, 'v')]]]);
  const r = remote(agg);
  const catalog: CatalogSnapshot = {
    defaultSchema: 'public',
    introspectedAt: '',
    tables: [
      {
        schema: 'public',
        name: 'partsupp',
        kind: 'table',
        rowCount: 800_000,
        foreignKeys: [],
        indexes: [],
        columns: [{ name: 's_nationkey', type: parseType('int32'), nativeType: 'int', nullable: false, stats: { distinct: 25 } }],
      },
    ],
  };
  const plan = b.join('inner', remote(n), r, eq(col(n, 'n_nationkey'), col(r, on === 'group' ? 's_nationkey' : 'total')));
  return { plan, input: sources({ dbD: MARIADB_CI_CAPS, dbC: { capabilities: MARIADB_CI_CAPS, catalog } }) };
}

describe('choose-join-strategy', () => {
  it("asks a grouped source by key when the key is a grouping key: its input is read, not its few groups (Q11's partial sum)", () => {
    const { plan, input } = groupedJoin('group');
    expect(fire(chooseJoinStrategy, plan, input)).toMatchInlineSnapshot(`
      "Join inner ON (n_nationkey#1 = s_nationkey#4) strategy=dependent(driver=left, maxInList=1000, parallel=4)
        Remote dbD [n_nationkey#1]
          Scan dbD.public.nation AS nation [n_nationkey#1]
        Remote dbC [s_nationkey#4, total#5]
          Aggregate group=[s_nationkey#4 := s_nationkey#2] aggs=[total#5 := sum(v#3)]
            Scan dbC.public.partsupp AS partsupp [s_nationkey#2, v#3]"
    `);
  });

  it('reads a source of few groups whole when the key is not one of its grouping keys (a key restriction would not reach its input)', () => {
    const { plan, input } = groupedJoin('sum');
    expect(fire(chooseJoinStrategy, plan, input)).toContain('strategy=hash(build=left)');
  });

  it('makes a join dependent when one side is small and the other source takes IN lists', () => {
    expect(fire(chooseJoinStrategy, join(100), sources({ dbB: PG_CAPS, dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Join inner ON (o_custkey#2 = c_custkey#1) strategy=dependent(driver=right, maxInList=1000, parallel=4)
        Remote dbD [o_custkey#2]
          Scan dbD.public.orders AS orders [o_custkey#2]
        Remote dbB [c_custkey#1]
          Scan dbB.public.customer AS customer [c_custkey#1]"
    `);
  });

  it('lets a small subquery side drive a semi join: `o_custkey IN (SELECT c_custkey …)` reads orders by the customers\' keys', () => {
    expect(fire(chooseJoinStrategy, join(100, 'int64', 'semi'), sources({ dbB: PG_CAPS, dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Join semi ON (o_custkey#2 = c_custkey#1) strategy=dependent(driver=right, maxInList=1000, parallel=4)
        Remote dbD [o_custkey#2]
          Scan dbD.public.orders AS orders [o_custkey#2]
        Remote dbB [c_custkey#1]
          Scan dbB.public.customer AS customer [c_custkey#1]"
    `);
  });

  it('never lets the subquery side drive an anti join: the rows it keeps are those without a key among the subquery\'s', () => {
    expect(fire(chooseJoinStrategy, join(100, 'int64', 'anti'), sources({ dbB: PG_CAPS, dbD: MARIADB_CI_CAPS }))).toContain('strategy=hash(build=right)');
  });

  it('asks by an indexed key when no index serves the other side\'s filter: the source would scan its whole table for a few rows', () => {
    // lineitem: 6M rows, an index on l_orderkey (and l_partkey), none on l_shipdate; 2,400
    // rows estimated to pass the filter, fewer than 10× the driver's 12,000 orders
    const lineitem = (indexed: string[]): CatalogSnapshot => ({
      defaultSchema: 'public',
      introspectedAt: '',
      tables: [
        {
          schema: 'public',
          name: 'lineitem',
          kind: 'table',
          rowCount: 6_000_000,
          foreignKeys: [],
          indexes: indexed.map((c) => ({ name: `${c}_idx`, columns: [c], unique: false })),
          columns: [
            { name: 'l_orderkey', type: parseType('int64'), nativeType: 'bigint', nullable: false, stats: { distinct: 1_500_000 } },
            { name: 'l_partkey', type: parseType('int64'), nativeType: 'bigint', nullable: false, stats: { distinct: 2_000 } },
            { name: 'l_shipdate', type: parseType('date'), nativeType: 'date', nullable: false, stats: { distinct: 2500 } },
          ],
        },
      ],
    });
    const plan = (filterOn: 'l_shipdate' | 'l_partkey') => {
      const b = new PlanBuilder();
      const o = b.scan('dbB', 'orders', { o_orderkey: 'int64' }, 12_000);
      const l = b.scan('dbA', 'lineitem', { l_orderkey: 'int64', l_partkey: 'int64', l_shipdate: 'date' }, 6_000_000);
      const value = filterOn === 'l_shipdate' ? lit('1998-11-01', 'date') : lit(7);
      const filtered = remote(b.filter(l, eq(col(l, filterOn), value)));
      return b.join('left', remote(o), filtered, eq(col(filtered, 'l_orderkey'), col(o, 'o_orderkey')));
    };
    const input = (indexed: string[]) => sources({ dbB: PG_CAPS, dbA: { capabilities: PG_CAPS, catalog: lineitem(indexed) } });
    expect(fire(chooseJoinStrategy, plan('l_shipdate'), input(['l_orderkey', 'l_partkey']))).toMatchInlineSnapshot(`
      "Join left ON (l_orderkey#2 = o_orderkey#1) strategy=dependent(driver=left, maxInList=1000, parallel=4)
        Remote dbB [o_orderkey#1]
          Scan dbB.public.orders AS orders [o_orderkey#1]
        Remote dbA [l_orderkey#2, l_partkey#3, l_shipdate#4]
          Filter (l_shipdate#4 = '1998-11-01'::date)
            Scan dbA.public.lineitem AS lineitem [l_orderkey#2, l_partkey#3, l_shipdate#4]"
    `);
    // an index serves the filter: the source reads only its 3,000 rows
    expect(fire(chooseJoinStrategy, plan('l_partkey'), input(['l_orderkey', 'l_partkey']))).toContain('strategy=hash(build=right)');
    // no index on the key: IN lists would scan the table as well
    expect(fire(chooseJoinStrategy, plan('l_shipdate'), input(['l_partkey']))).toContain('strategy=hash(build=right)');
    // the catalog lists no indexes: nothing is assumed
    expect(fire(chooseJoinStrategy, plan('l_shipdate'), input([]))).toContain('strategy=hash(build=right)');
  });

  it("reads the other side once when the driver's keys cover most of its distinct keys (statistics)", () => {
    // 100 customers of the 150 that place orders: IN lists would ask for two thirds of orders
    expect(fire(chooseJoinStrategy, join(100), withStats(150))).toContain('strategy=hash(build=right)');
    // 100 of 100,000: the IN lists restrict
    expect(fire(chooseJoinStrategy, join(100), withStats(100_000))).toContain('strategy=dependent(driver=right');
  });

  it('keeps the keys in one statement when they select more than 1% of the other side\'s: each of four would scan its table', () => {
    // 100 of 100,000 customers (0.1%): spread, each statement probes an index
    expect(fire(chooseJoinStrategy, join(100), withStats(100_000))).toContain('strategy=dependent(driver=right, maxInList=1000, parallel=4)');
    // 100 of 5,000 (2%): Q7's 8,000 of 100,000 suppliers at SF 10 scanned lineitem once per statement
    expect(fire(chooseJoinStrategy, join(100), withStats(5_000))).toContain('strategy=dependent(driver=right, maxInList=1000, parallel=1)');
  });

  it('hashes with the smaller side as build when neither side is small', () => {
    expect(fire(chooseJoinStrategy, join(200_000), sources({ dbB: PG_CAPS, dbD: MARIADB_CI_CAPS })))
      .toMatchInlineSnapshot(`
      "Join inner ON (o_custkey#2 = c_custkey#1) strategy=hash(build=right)
        Remote dbD [o_custkey#2]
          Scan dbD.public.orders AS orders [o_custkey#2]
        Remote dbB [c_custkey#1]
          Scan dbB.public.customer AS customer [c_custkey#1]"
    `);
  });

  it('does not send string keys to a source whose string equality is not exact', () => {
    expect(fire(chooseJoinStrategy, join(100, 'varchar(10)'), sources({ dbB: PG_CAPS, dbD: MARIADB_CI_CAPS })))
      .toMatchInlineSnapshot(`
      "Join inner ON (o_custkey#2 = c_custkey#1) strategy=hash(build=right)
        Remote dbD [o_custkey#2]
          Scan dbD.public.orders AS orders [o_custkey#2]
        Remote dbB [c_custkey#1]
          Scan dbB.public.customer AS customer [c_custkey#1]"
    `);
  });

  it('asks by key through a widening integer cast (an int32 column meeting an int64 key), not through a narrowing one', () => {
    const b = new PlanBuilder();
    const p = b.scan('dbC', 'part', { p_partkey: 'int64' }, 100);
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int32' }, 600_000);
    const widened = { kind: 'cast' as const, expr: col(l, 'l_partkey'), type: parseType('int64') };
    const j = b.join('inner', remote(l), remote(p), eq(widened, col(p, 'p_partkey')));
    expect(fire(chooseJoinStrategy, j, sources({ dbA: PG_CAPS, dbC: PG_CAPS }))).toContain(
      'strategy=dependent(driver=right, maxInList=1000, parallel=4)',
    );
    const narrowed = { kind: 'cast' as const, expr: col(p, 'p_partkey'), type: parseType('int32') };
    const k = b.join('inner', remote(l), remote(p), eq(col(l, 'l_partkey'), narrowed));
    expect(fire(chooseJoinStrategy, k, sources({ dbA: PG_CAPS, dbC: PG_CAPS }))).toContain('strategy=nested-loop');
  });

  it('does not fire on a join that has a strategy', () => {
    const j = join(100);
    const withStrategy = j.kind === 'Join' ? { ...j, strategy: { kind: 'nested-loop' as const } } : j;
    expect(fire(chooseJoinStrategy, withStrategy)).toBe('did not fire');
  });

  it("hashes when key inference already pinned the other side's key to a constant", () => {
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, 100);
    const o = b.scan('dbD', 'orders', { o_custkey: 'int64' }, 1_500_000);
    const j = b.join(
      'inner',
      remote(b.filter(o, eq(col(o, 'o_custkey'), param(0, 'int64')))),
      remote(c),
      eq(col(o, 'o_custkey'), col(c, 'c_custkey')),
    );
    expect(fire(chooseJoinStrategy, j, sources({ dbB: PG_CAPS, dbD: PG_CAPS }))).toContain(
      'strategy=hash(build=right)',
    );
  });

  it('puts first the key whose values select the least of the other side, and counts the driver by its keys', () => {
    const table = (name: string, rowCount: number, columns: Record<string, number>) => ({
      schema: 'public',
      name,
      kind: 'table' as const,
      rowCount,
      foreignKeys: [],
      indexes: [],
      columns: Object.entries(columns).map(([c, distinct]) => ({ name: c, type: parseType('int64'), nativeType: 'bigint', nullable: false, stats: { distinct } })),
    });
    const catalog = (t: ReturnType<typeof table>): CatalogSnapshot => ({ defaultSchema: 'public', introspectedAt: '', tables: [t] });
    const input = sources({
      dbA: { capabilities: PG_CAPS, catalog: catalog(table('lineitem', 6_000_000, { l_partkey: 200_000, l_suppkey: 10_000 })) },
      // 60,000 rows (more than a driver may have) but only 500 parts among them
      dbC: { capabilities: PG_CAPS, catalog: catalog(table('partsupp', 60_000, { ps_partkey: 500, ps_suppkey: 10_000 })) },
    });
    const b = new PlanBuilder();
    const ps = b.scan('dbC', 'partsupp', { ps_partkey: 'int64', ps_suppkey: 'int64' });
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64', l_suppkey: 'int64' });
    const j = b.join('inner', remote(ps), remote(l), and(eq(col(ps, 'ps_suppkey'), col(l, 'l_suppkey')), eq(col(ps, 'ps_partkey'), col(l, 'l_partkey'))));
    expect(fire(chooseJoinStrategy, j, input)).toMatchInlineSnapshot(`
      "Join inner ON ((ps_partkey#1 = l_partkey#3) AND (ps_suppkey#2 = l_suppkey#4)) strategy=dependent(driver=left, maxInList=1000, parallel=4)
        Remote dbC [ps_partkey#1, ps_suppkey#2]
          Scan dbC.public.partsupp AS partsupp [ps_partkey#1, ps_suppkey#2]
        Remote dbA [l_partkey#3, l_suppkey#4]
          Scan dbA.public.lineitem AS lineitem [l_partkey#3, l_suppkey#4]"
    `);
  });
});
