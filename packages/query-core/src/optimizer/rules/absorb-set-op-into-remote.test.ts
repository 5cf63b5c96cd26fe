import { describe, expect, it } from 'vitest';
import type { LogicalPlan } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, remote, sources } from '../test-support.js';
import { absorbSetOpIntoRemote } from './absorb-set-op-into-remote.js';

function setOp(op: 'union' | 'except', all: boolean, rightSource: string, columns: Record<string, string> = { c_custkey: 'int64' }, rightColumns = columns): LogicalPlan {
  const b = new PlanBuilder();
  const l = b.scan('dbB', 'customer', columns);
  const r = b.scan(rightSource, 'supplier', rightColumns);
  return {
    kind: 'SetOp',
    op,
    all,
    left: remote(l),
    right: remote(r),
    fields: Object.entries(columns).map(([name, type]) => b.field(name, type)),
  };
}

describe('absorb-set-op-into-remote', () => {
  it('sends UNION ALL of two SELECTs of one source to it', () => {
    expect(fire(absorbSetOpIntoRemote, setOp('union', true, 'dbB'))).toMatchInlineSnapshot(`
      "Remote dbB [c_custkey#3]
        UNION ALL [c_custkey#3]
          Scan dbB.public.customer AS customer [c_custkey#1]
          Scan dbB.public.supplier AS supplier [c_custkey#2]"
    `);
  });

  it('keeps a set operation across sources in Junction, annotated', () => {
    expect(fire(absorbSetOpIntoRemote, setOp('union', true, 'dbA'))).toMatchInlineSnapshot(`
      "UNION ALL [c_custkey#3]
        ! not pushed: union all: spans sources (dbA, dbB)
        Remote dbB [c_custkey#1]
          Scan dbB.public.customer AS customer [c_custkey#1]
        Remote dbA [c_custkey#2]
          Scan dbA.public.supplier AS supplier [c_custkey#2]"
    `);
  });

  it('keeps EXCEPT ALL from a source without it, and UNION of strings from a source without exact string equality', () => {
    const noExceptAll = { ...PG_CAPS, setOps: { union: true as const, union_all: true as const, except: true as const } };
    expect(fire(absorbSetOpIntoRemote, setOp('except', true, 'dbB'), sources({ dbB: noExceptAll }))).toMatchInlineSnapshot(`
      "EXCEPT ALL [c_custkey#3]
        ! not pushed: except all: EXCEPT ALL not supported by source
        Remote dbB [c_custkey#1]
          Scan dbB.public.customer AS customer [c_custkey#1]
        Remote dbB [c_custkey#2]
          Scan dbB.public.supplier AS supplier [c_custkey#2]"
    `);
    expect(fire(absorbSetOpIntoRemote, setOp('union', false, 'dbB', { s_name: 'varchar(25)' }), sources({ dbB: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "UNION [s_name#3]
        ! not pushed: union: string comparison under a case-insensitive or pad-space collation
        Remote dbB [s_name#1]
          Scan dbB.public.customer AS customer [s_name#1]
        Remote dbB [s_name#2]
          Scan dbB.public.supplier AS supplier [s_name#2]"
    `);
  });

  it('keeps a set operation whose sides have other types than its output', () => {
    expect(fire(absorbSetOpIntoRemote, setOp('union', true, 'dbB', { k: 'int64' }, { k: 'int32' }))).toMatchInlineSnapshot(`
      "UNION ALL [k#3]
        ! not pushed: union all: the two sides have different column types
        Remote dbB [k#1]
          Scan dbB.public.customer AS customer [k#1]
        Remote dbB [k#2]
          Scan dbB.public.supplier AS supplier [k#2]"
    `);
  });
});
