import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, remote, sources } from '../test-support.js';
import { absorbDistinctIntoRemote } from './absorb-distinct-into-remote.js';

function distinct(type: string) {
  const b = new PlanBuilder();
  const s = b.scan('dbD', 'customer', { c_x: type });
  return { kind: 'Distinct' as const, input: remote(s) };
}

describe('absorb-distinct-into-remote', () => {
  it('absorbs DISTINCT over integer columns', () => {
    expect(fire(absorbDistinctIntoRemote, distinct('int32'), sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Remote dbD [c_x#1]
        Distinct
          Scan dbD.public.customer AS customer [c_x#1]"
    `);
  });

  it('keeps DISTINCT over strings where the source collation folds case (residual kept in Junction)', () => {
    expect(fire(absorbDistinctIntoRemote, distinct('varchar(10)'), sources({ dbD: MARIADB_CI_CAPS }))).toBe(
      'did not fire',
    );
  });

  it('does not fire over a non-remote input', () => {
    const b = new PlanBuilder();
    expect(
      fire(
        absorbDistinctIntoRemote,
        { kind: 'Distinct', input: b.scan('dbD', 't', { x: 'int32' }) },
        sources({ dbD: PG_CAPS }),
      ),
    ).toBe('did not fire');
  });
});
