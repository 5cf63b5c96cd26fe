import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, col, lit, lt } from '../test-support.js';
import { wrapScanInRemote } from './wrap-scan-in-remote.js';

describe('wrap-scan-in-remote', () => {
  it('wraps a scan in a Remote on its source', () => {
    const b = new PlanBuilder();
    expect(fire(wrapScanInRemote, b.scan('dbA', 'orders', { o_orderkey: 'int64' }))).toMatchInlineSnapshot(`
      "Remote dbA [o_orderkey#1]
        Scan dbA.public.orders AS orders [o_orderkey#1]"
    `);
  });

  it('does not fire on other nodes', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    expect(fire(wrapScanInRemote, b.filter(s, lt(col(s, 'o_orderkey'), lit(1))))).toBe('did not fire');
  });
});
