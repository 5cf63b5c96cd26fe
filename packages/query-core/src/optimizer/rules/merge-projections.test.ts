import { describe, expect, it } from 'vitest';
import { behindBarrier } from '../../plan/barrier.js';
import { fire } from '../rule-test-helper.js';
import type { Expr } from '../../plan/logical.js';
import { PlanBuilder, call, col, lit, parseType } from '../test-support.js';
import { mergeProjections } from './merge-projections.js';

describe('merge-projections', () => {
  it('merges a projection over a projection, substituting the inner expressions', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    const inner = b.project(s, [
      ['k', call('add', col(s, 'o_orderkey'), lit(1))],
      ['c', col(s, 'o_custkey')],
    ]);
    expect(fire(mergeProjections, b.project(inner, [['k2', call('mul', col(inner, 'k'), lit(2))]])))
      .toMatchInlineSnapshot(`
      "Project k2#5 := ((o_orderkey#1 + 1) * 2)
        Scan dbA.public.orders AS orders [o_orderkey#1, o_custkey#2]"
    `);
  });

  it('removes a projection that passes its input through unchanged', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const f = s.kind === 'Scan' ? s.fields[0] : undefined;
    const identity = { kind: 'Project' as const, input: s, exprs: [{ field: f!, expr: col(s, 'o_orderkey') }] };
    expect(fire(mergeProjections, identity)).toMatchInlineSnapshot(`"Scan dbA.public.orders AS orders [o_orderkey#1]"`);
  });

  it('keeps a view\'s barrier: an identity barrier stays, a merge over one carries it', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const barrier = behindBarrier(s, 'sales.keys');
    expect(fire(mergeProjections, barrier)).toBe('did not fire');
    expect(fire(mergeProjections, b.project(barrier, [['k2', call('mul', col(barrier, 'o_orderkey'), lit(2))]])))
      .toMatchInlineSnapshot(`
        "Project [barrier sales.keys] k2#2 := (o_orderkey#1 * 2)
          Scan dbA.public.orders AS orders [o_orderkey#1]"
      `);
  });

  it('does not fire on a projection that renames or reorders (new ids), over a non-projection', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64', o_custkey: 'int64' });
    expect(fire(mergeProjections, b.select(s, ['o_custkey', 'o_orderkey']))).toBe('did not fire');
  });

  it('keeps a projection Junction computes because the source could not (annotated), residual kept', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const inner = {
      ...b.project(s, [['u', call('abs', col(s, 'o_orderkey'))]]),
      notPushed: [{ what: 'u := abs(o_orderkey)', reason: 'function abs not supported by source' }],
    };
    expect(fire(mergeProjections, b.project(inner, [['v', col(inner, 'u')]]))).toBe('did not fire');
  });

  it('drops an integer\'s round trip through a wider type, and keeps any cast that may round or overflow', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'orders', { n: 'int64', m: 'int32' });
    const cast = (e: Expr, type: string): Expr => ({ kind: 'cast', expr: e, type: parseType(type) });
    const inner = b.project(s, [
      ['as_decimal', cast(col(s, 'n'), 'decimal')],
      ['as_money', cast(col(s, 'n'), 'decimal(12,2)')],
      ['as_short', cast(col(s, 'n'), 'decimal(5)')],
      ['m_wide', cast(col(s, 'm'), 'int64')],
      ['n_narrow', cast(col(s, 'n'), 'int32')],
    ]);
    const outer = b.project(inner, [
      ['a', cast(col(inner, 'as_decimal'), 'int64')],
      ['b', cast(col(inner, 'as_money'), 'int64')],
      ['c', cast(col(inner, 'as_short'), 'int64')],
      ['d', cast(col(inner, 'm_wide'), 'int32')],
      ['e', cast(col(inner, 'n_narrow'), 'int64')],
    ]);
    expect(fire(mergeProjections, outer)).toMatchInlineSnapshot(`
      "Project a#8 := n#1, b#9 := CAST(CAST(n#1 AS decimal(12,2)) AS int64), c#10 := CAST(CAST(n#1 AS decimal(5,0)) AS int64), d#11 := m#2, e#12 := CAST(CAST(n#1 AS int32) AS int64)
        Scan dbA.public.orders AS orders [n#1, m#2]"
    `);
  });
});
