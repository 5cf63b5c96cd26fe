import { describe, expect, it } from 'vitest';
import { fire } from '../rule-test-helper.js';
import { MARIADB_CI_CAPS, PG_CAPS, PlanBuilder, remote, sources } from '../test-support.js';
import { absorbSortIntoRemote } from './absorb-sort-into-remote.js';

function sorted(key: string) {
  const b = new PlanBuilder();
  const s = b.scan('dbD', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' });
  return b.sort(remote(s), [[key, 'desc']]);
}

describe('absorb-sort-into-remote', () => {
  it('absorbs ORDER BY with explicit NULL ordering', () => {
    expect(fire(absorbSortIntoRemote, sorted('c_custkey'), sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Remote dbD [c_custkey#1, c_name#2]
        Sort c_custkey#1 DESC NULLS FIRST
          Scan dbD.public.customer AS customer [c_custkey#1, c_name#2]"
    `);
  });

  it('keeps ORDER BY a string column when the source collation does not order by code point (residual kept)', () => {
    expect(fire(absorbSortIntoRemote, sorted('c_name'), sources({ dbD: MARIADB_CI_CAPS }))).toMatchInlineSnapshot(`
      "Sort c_name#2 DESC NULLS FIRST
        ! not pushed: ORDER BY c_name: string ordering differs from code-point order in source collation
        Remote dbD [c_custkey#1, c_name#2]
          Scan dbD.public.customer AS customer [c_custkey#1, c_name#2]"
    `);
  });

  it('does not fire on a sort over a non-remote input', () => {
    const b = new PlanBuilder();
    const s = b.scan('dbD', 'customer', { c_custkey: 'int64' });
    expect(fire(absorbSortIntoRemote, b.sort(s, [['c_custkey', 'asc']]), sources({ dbD: PG_CAPS }))).toBe(
      'did not fire',
    );
  });
});
