import { describe, expect, it } from 'vitest';
import { NO_CAPABILITIES } from '@junction/connectors';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, call, col, lit, remote, sources } from '../test-support.js';
import { absorbProjectIntoRemote } from './absorb-project-into-remote.js';

describe('absorb-project-into-remote', () => {
  it('absorbs computed columns the source evaluates exactly', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'lineitem', {
      l_orderkey: 'int64',
      l_extendedprice: 'decimal(15,2)',
      l_discount: 'decimal(15,2)',
    });
    const p = b.project(remote(s), [
      ['k', col(s, 'l_orderkey')],
      ['net', call('mul', col(s, 'l_extendedprice'), call('sub', lit('1', 'decimal'), col(s, 'l_discount')))],
    ]);
    expect(fire(absorbProjectIntoRemote, p)).toMatchInlineSnapshot(`
      "Remote dbA [k#4, net#5]
        Project k#4 := l_orderkey#1, net#5 := (l_extendedprice#2 * ('1'::decimal - l_discount#3))
          Scan dbA.public.lineitem AS lineitem [l_orderkey#1, l_extendedprice#2, l_discount#3]"
    `);
  });

  it('keeps the projection when the source lacks a function, annotated', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'lineitem', { l_orderkey: 'int64', l_comment: 'text' });
    const p = b.project(remote(s), [
      ['k', col(s, 'l_orderkey')],
      ['u', call('upper', col(s, 'l_comment'))],
    ]);
    expect(
      fire(
        absorbProjectIntoRemote,
        p,
        sources({ dbA: { ...PG_CAPS, functions: { ...PG_CAPS.functions, upper: undefined } } }),
      ),
    ).toMatchInlineSnapshot(`
      "Project k#3 := l_orderkey#1, u#4 := upper(l_comment#2)
        ! not pushed: u := upper(l_comment): function upper not supported by source
        Remote dbA [l_orderkey#1, l_comment#2]
          Scan dbA.public.lineitem AS lineitem [l_orderkey#1, l_comment#2]"
    `);
  });

  it('does not fire on a projection over a non-remote input', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbA', 'lineitem', { l_orderkey: 'int64' });
    expect(fire(absorbProjectIntoRemote, b.select(s, ['l_orderkey']), sources({ dbA: NO_CAPABILITIES }))).toBe(
      'did not fire',
    );
  });
});
