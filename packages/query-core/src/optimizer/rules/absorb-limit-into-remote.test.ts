import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, remote, sources } from '../test-support.js';
import { absorbLimitIntoRemote } from './absorb-limit-into-remote.js';

function topN(limit: number, offset: number) {
  const b = new PlanBuilder();
  const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
  return b.limit(remote(b.sort(s, [['o_orderkey', 'asc']])), limit, offset);
}

describe('absorb-limit-into-remote', () => {
  it('absorbs LIMIT/OFFSET above an absorbed sort (top-N in the source)', () => {
    expect(fire(absorbLimitIntoRemote, topN(10, 5))).toMatchInlineSnapshot(`
      "Remote dbA [o_orderkey#1]
        Limit 10 OFFSET 5
          Sort o_orderkey#1 ASC NULLS LAST
            Scan dbA.public.orders AS orders [o_orderkey#1]"
    `);
  });

  it('without OFFSET support, pushes LIMIT limit+offset and keeps the Limit with the offset (residual kept)', () => {
    const input = sources({ dbA: { ...PG_CAPS, offset: false } });
    const once = fire(absorbLimitIntoRemote, topN(10, 5), input);
    expect(once).toMatchInlineSnapshot(`
      "Limit 10 OFFSET 5
        ! not pushed: OFFSET: OFFSET not supported by source (pushed LIMIT limit+offset)
        Remote dbA [o_orderkey#1]
          Limit 15 OFFSET 0
            Sort o_orderkey#1 ASC NULLS LAST
              Scan dbA.public.orders AS orders [o_orderkey#1]"
    `);
  });

  it('does not fire when the source has no LIMIT, beyond recording why', () => {
    const input = sources({ dbA: { ...PG_CAPS, limit: false } });
    const plan = topN(10, 0);
    const annotated = { ...plan, notPushed: [{ what: 'LIMIT', reason: 'LIMIT not supported by source' }] };
    expect(fire(absorbLimitIntoRemote, annotated, input)).toBe('did not fire');
  });
});
