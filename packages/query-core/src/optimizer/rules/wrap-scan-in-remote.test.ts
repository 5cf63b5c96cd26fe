import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, col, lit, lt, sources } from '../test-support.js';
import { wrapScanInRemote } from './wrap-scan-in-remote.js';

describe('wrap-scan-in-remote', () => {
  it('wraps a scan in a Remote on its source', () => {
    const b = new PlanBuilder();
    expect(fire(wrapScanInRemote, b.scan('dbA', 'orders', { o_orderkey: 'int64' }))).toMatchInlineSnapshot(`
      "Remote dbA [o_orderkey#1]
        Scan dbA.public.orders AS orders [o_orderkey#1]"
    `);
  });

  it('reads a table through the backend when the query runs there and the backend reads its source', () => {
    const b = new PlanBuilder();
    const input = {
      ...sources({ dbA: PG_CAPS, dbC: PG_CAPS, trino: PG_CAPS }),
      backend: { name: 'trino', readable: new Set(['dbA']), unreadable: new Map([['dbC', 'sqlite source dbC is not readable by trino: no catalog']]) },
    };
    expect(fire(wrapScanInRemote, b.scan('dbA', 'orders', { o_orderkey: 'int64' }), input)).toMatchInlineSnapshot(`
      "Remote trino [o_orderkey#1]
        Scan dbA.public.orders AS orders [o_orderkey#1]"
    `);
    expect(fire(wrapScanInRemote, b.scan('dbC', 'part', { p_partkey: 'int64' }), input)).toMatchInlineSnapshot(`
      "Remote dbC [p_partkey#2]
        Scan dbC.public.part AS part [p_partkey#2]"
    `);
  });

  it('does not fire on other nodes', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    expect(fire(wrapScanInRemote, b.filter(s, lt(col(s, 'o_orderkey'), lit(1))))).toBe('did not fire');
  });
});
