import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, col, eq, lit, lt, remote, sources } from '../test-support.js';
import { absorbJoinIntoRemote } from './absorb-join-into-remote.js';

function two(sourceB: string, type: 'inner' | 'full' | 'semi' | 'anti' = 'inner') {
  const b = new PlanBuilder();
  const o = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
  const l = b.scan(sourceB, 'lineitem', { l_orderkey: 'int64', l_quantity: 'decimal(15,2)' });
  return b.join(
    type,
    remote(b.filter(o, lt(col(o, 'o_custkey'), lit(5)))),
    remote(l),
    eq(col(l, 'l_orderkey'), col(o, 'o_orderkey')),
  );
}

describe('absorb-join-into-remote', () => {
  it('absorbs a join of two Remotes on the same source', () => {
    expect(fire(absorbJoinIntoRemote, two('dbA'))).toMatchInlineSnapshot(`
      "Remote dbA [o_orderkey#1, o_custkey#2, l_orderkey#3, l_quantity#4]
        Join inner ON (l_orderkey#3 = o_orderkey#1)
          Filter (o_custkey#2 < 5)
            Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2]
          Scan dbA.public.lineitem AS lineitem [l_orderkey#3, l_quantity#4]"
    `);
  });

  it('joins inside a backend that reads both sources, and says why a source it cannot read stays out', () => {
    const b = new PlanBuilder();
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const l = b.scan('dbB', 'lineitem', { l_orderkey: 'int64' });
    const onTrino = (p: ReturnType<typeof b.scan>) => ({ ...(remote(p) as Extract<ReturnType<typeof remote>, { kind: 'Remote' }>), source: 'trino' });
    const input = {
      ...sources({ dbA: PG_CAPS, dbB: PG_CAPS, dbC: PG_CAPS, trino: PG_CAPS }),
      backend: { name: 'trino', readable: new Set(['dbA', 'dbB']), unreadable: new Map([['dbC', 'sqlite source dbC is not readable by trino: no catalog']]) },
    };
    expect(fire(absorbJoinIntoRemote, b.join('inner', onTrino(o), onTrino(l), eq(col(l, 'l_orderkey'), col(o, 'o_orderkey'))), input)).toMatchInlineSnapshot(`
      "Remote trino [o_orderkey#1, l_orderkey#2]
        Join inner ON (l_orderkey#2 = o_orderkey#1)
          Scan dbA.public.orders AS orders [o_orderkey#1]
          Scan dbB.public.lineitem AS lineitem [l_orderkey#2]"
    `);
    const p = b.scan('dbC', 'part', { p_partkey: 'int64' });
    expect(fire(absorbJoinIntoRemote, b.join('inner', onTrino(o), remote(p), eq(col(p, 'p_partkey'), col(o, 'o_orderkey'))), input)).toMatchInlineSnapshot(`
      "Join inner ON (p_partkey#3 = o_orderkey#1)
        ! not pushed: (p_partkey = o_orderkey): spans sources (dbA, dbC); sqlite source dbC is not readable by trino: no catalog
        Remote trino [o_orderkey#1]
          Scan dbA.public.orders AS orders [o_orderkey#1]
        Remote dbC [p_partkey#3]
          Scan dbC.public.part AS part [p_partkey#3]"
    `);
  });

  it('keeps a join across sources in Junction, annotated "spans sources"', () => {
    expect(fire(absorbJoinIntoRemote, two('dbB'))).toMatchInlineSnapshot(`
      "Join inner ON (l_orderkey#3 = o_orderkey#1)
        ! not pushed: (l_orderkey = o_orderkey): spans sources (dbA, dbB)
        Remote dbA [o_orderkey#1, o_custkey#2]
          Filter (o_custkey#2 < 5)
            Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2]
        Remote dbB [l_orderkey#3, l_quantity#4]
          Scan dbB.public.lineitem AS lineitem [l_orderkey#3, l_quantity#4]"
    `);
  });

  it('keeps a join type the source does not declare (full join in a MariaDB-like source)', () => {
    expect(fire(absorbJoinIntoRemote, two('dbA', 'full'), sources({ dbA: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Join full ON (l_orderkey#3 = o_orderkey#1)
        ! not pushed: full join: full join not supported by source
        Remote dbA [o_orderkey#1, o_custkey#2]
          Filter (o_custkey#2 < 5)
            Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2]
        Remote dbA [l_orderkey#3, l_quantity#4]
          Scan dbA.public.lineitem AS lineitem [l_orderkey#3, l_quantity#4]"
    `);
  });

  it('absorbs a semi join into its source, which runs it as EXISTS', () => {
    expect(fire(absorbJoinIntoRemote, two('dbA', 'semi'))).toMatchInlineSnapshot(`
      "Remote dbA [o_orderkey#1, o_custkey#2]
        Join semi ON (l_orderkey#3 = o_orderkey#1)
          Filter (o_custkey#2 < 5)
            Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2]
          Scan dbA.public.lineitem AS lineitem [l_orderkey#3, l_quantity#4]"
    `);
  });

  it('keeps an anti join when the source declares no EXISTS subqueries', () => {
    expect(fire(absorbJoinIntoRemote, two('dbA', 'anti'), sources({ dbA: { ...PG_CAPS, existsSubquery: false } }))).toMatchInlineSnapshot(`
      "Join anti ON (l_orderkey#3 = o_orderkey#1)
        ! not pushed: anti join: source cannot run a correlated EXISTS subquery
        Remote dbA [o_orderkey#1, o_custkey#2]
          Filter (o_custkey#2 < 5)
            Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2]
        Remote dbA [l_orderkey#3, l_quantity#4]
          Scan dbA.public.lineitem AS lineitem [l_orderkey#3, l_quantity#4]"
    `);
  });

  it('does not fire on a join whose inputs are not Remote yet', () => {
    const b = new PlanBuilder();
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const l = b.scan('dbA', 'lineitem', { l_orderkey: 'int64' });
    expect(
      fire(
        absorbJoinIntoRemote,
        b.join('inner', o, l, eq(col(o, 'o_orderkey'), col(l, 'l_orderkey'))),
        sources({ dbA: PG_CAPS }),
      ),
    ).toBe('did not fire');
  });
});
