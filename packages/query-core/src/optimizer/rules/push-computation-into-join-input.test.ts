import { describe, expect, it } from 'vitest';
import type { Expr } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { PlanBuilder, call, col, eq, lit, remote } from '../test-support.js';
import { pushComputationIntoJoinInput } from './push-computation-into-join-input.js';

/** TPC-H Q14's shape: lineitem in dbA, part in dbB. */
function q14(type: 'inner' | 'left' = 'inner') {
  const b = new PlanBuilder();
  const l = b.scan('dbA', 'lineitem', {
    l_partkey: 'int64',
    l_extendedprice: 'decimal(15,2)',
    l_discount: 'decimal(15,2)',
    l_comment: 'text',
  });
  const p = b.scan('dbB', 'part', { p_partkey: 'int64', p_type: 'varchar(25)' });
  const j = b.join(type, remote(l), remote(p), eq(col(l, 'l_partkey'), col(p, 'p_partkey')));
  const revenue = call('mul', col(l, 'l_extendedprice'), call('sub', lit('1', 'decimal'), col(l, 'l_discount')));
  const promo = call('like', col(p, 'p_type'), lit('PROMO%'));
  return { b, l, p, j, revenue, promo };
}

const when = (cond: Expr, then: Expr, otherwise: Expr): Expr => ({
  kind: 'case',
  whens: [{ when: cond, then }],
  else: otherwise,
  type: then.type,
});

describe('push-computation-into-join-input', () => {
  it("computes each side's part of an aggregate's arguments in that side's source, once for both uses (Q14)", () => {
    const { b, j, revenue, promo } = q14();
    const a = b.aggregate(
      j,
      [],
      [
        ['promo', 'sum', [when(promo, revenue, lit('0', 'decimal'))]],
        ['total', 'sum', [revenue]],
      ],
    );
    expect(fire(pushComputationIntoJoinInput, a)).toMatchInlineSnapshot(`
      "Aggregate group=[] aggs=[promo#7 := sum(CASE WHEN computed_9#9 THEN computed_10#10 ELSE '0'::decimal END), total#8 := sum(computed_10#10)]
        Join inner ON (l_partkey#1 = p_partkey#5)
          Project l_partkey#1 := l_partkey#1, computed_10#10 := (l_extendedprice#2 * ('1'::decimal - l_discount#3))
            Remote dbA [l_partkey#1, l_extendedprice#2, l_discount#3, l_comment#4]
              Scan dbA.public.lineitem AS lineitem [l_partkey#1, l_extendedprice#2, l_discount#3, l_comment#4]
          Project p_partkey#5 := p_partkey#5, computed_9#9 := (p_type#6 LIKE 'PROMO%')
            Remote dbB [p_partkey#5, p_type#6]
              Scan dbB.public.part AS part [p_partkey#5, p_type#6]"
    `);
  });

  it('keeps the columns the join and the rest of the node still read', () => {
    const { b, l, j, revenue } = q14();
    const pr = b.project(j, [
      ['comment', col(l, 'l_comment')],
      ['rev', revenue],
    ]);
    expect(fire(pushComputationIntoJoinInput, pr)).toMatchInlineSnapshot(`
      "Project comment#7 := l_comment#4, rev#8 := computed_9#9
        Join inner ON (l_partkey#1 = p_partkey#5)
          Project l_partkey#1 := l_partkey#1, l_comment#4 := l_comment#4, computed_9#9 := (l_extendedprice#2 * ('1'::decimal - l_discount#3))
            Remote dbA [l_partkey#1, l_extendedprice#2, l_discount#3, l_comment#4]
              Scan dbA.public.lineitem AS lineitem [l_partkey#1, l_extendedprice#2, l_discount#3, l_comment#4]
          Remote dbB [p_partkey#5, p_type#6]
            Scan dbB.public.part AS part [p_partkey#5, p_type#6]"
    `);
  });

  it("leaves a left join's NULL-supplying side alone: coalesce over a missing row is not NULL", () => {
    const { b, p, j } = q14('left');
    const pr = b.project(j, [['t', call('coalesce', col(p, 'p_type'), lit('none'))]]);
    expect(fire(pushComputationIntoJoinInput, pr)).toBe('did not fire');
  });

  it('moves nothing that can fail on a row the join would drop: division, a narrowing cast, integer arithmetic', () => {
    const { b, l, j } = q14();
    const pr = b.project(j, [
      ['ratio', call('div', col(l, 'l_extendedprice'), col(l, 'l_discount'))],
      ['key_plus', call('add', col(l, 'l_partkey'), lit(1))],
      ['as_int', { kind: 'cast', expr: col(l, 'l_comment'), type: { kind: 'int32' } }],
    ]);
    expect(fire(pushComputationIntoJoinInput, pr)).toBe('did not fire');
  });

  it('does not fire when the join runs in one source', () => {
    const b = new PlanBuilder();
    const l = b.scan('dbA', 'lineitem', { l_partkey: 'int64', l_extendedprice: 'decimal(15,2)' });
    const p = b.scan('dbA', 'part', { p_partkey: 'int64', p_type: 'varchar(25)' });
    const j = b.join('inner', remote(l), remote(p), eq(col(l, 'l_partkey'), col(p, 'p_partkey')));
    const pr = b.project(j, [['t', call('upper', col(p, 'p_type'))]]);
    expect(fire(pushComputationIntoJoinInput, pr)).toBe('did not fire');
  });
});
