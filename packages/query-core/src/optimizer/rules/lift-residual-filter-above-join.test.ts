import { describe, expect, it } from 'vitest';
import type { LogicalPlan } from '../../plan/logical.js';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PlanBuilder, col, eq, lit, remote, sources } from '../test-support.js';
import { liftResidualFilterAboveJoin } from './lift-residual-filter-above-join.js';

function plan(type: 'inner' | 'left', annotated = true): LogicalPlan {
  const b = new PlanBuilder();
  const n = b.scan('dbD', 'nation', { n_nationkey: 'int32', n_regionkey: 'int32' });
  const r = b.scan('dbD', 'region', { r_regionkey: 'int32', r_name: 'char(25)' });
  const residual: LogicalPlan = {
    kind: 'Filter',
    input: remote(r),
    predicate: eq(col(r, 'r_name'), lit('AFRICA', 'char(25)')),
    ...(annotated
      ? {
          notPushed: [
            {
              what: "(r_name = 'AFRICA')",
              reason: 'string comparison under a case-insensitive or pad-space collation',
            },
          ],
        }
      : {}),
  };
  return b.join(type, remote(n), residual, eq(col(n, 'n_regionkey'), col(r, 'r_regionkey')));
}

describe('lift-residual-filter-above-join', () => {
  it('lifts a predicate the source cannot evaluate above a same-source inner join', () => {
    expect(fire(liftResidualFilterAboveJoin, plan('inner'), sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Filter (r_name#4 = 'AFRICA')
        ! not pushed: (r_name = 'AFRICA'): string comparison under a case-insensitive or pad-space collation
        Join inner ON (n_regionkey#2 = r_regionkey#3)
          Remote dbD [n_nationkey#1, n_regionkey#2]
            Scan dbD.public.nation AS nation [n_nationkey#1, n_regionkey#2]
          Remote dbD [r_regionkey#3, r_name#4]
            Scan dbD.public.region AS region [r_regionkey#3, r_name#4]"
    `);
  });

  it('does not lift from the null-supplying side of a left join', () => {
    expect(fire(liftResidualFilterAboveJoin, plan('left'), sources({ dbD: MARIADB_CI_CAPS }))).toBe('did not fire');
  });

  it('does not lift a filter absorb-filter-into-remote has not looked at yet', () => {
    expect(fire(liftResidualFilterAboveJoin, plan('inner', false), sources({ dbD: MARIADB_CI_CAPS }))).toBe(
      'did not fire',
    );
  });
});
