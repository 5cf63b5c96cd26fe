import { describe, expect, it } from 'vitest';
import { mysqlSemantics } from '../../test/support/semantics.js';
import type { RemoteExpr, RemoteQuery } from '../contract/remote-query.js';
import { t } from '../contract/types.js';
import { call, col, lit, table } from '../sql/ir-builders.js';
import { renderFor } from '../sql/dialects.js';
import { longestInList, withRangeLimits } from './range-limits.js';

const keys = (n: number, from = 1): RemoteExpr[] => Array.from({ length: n }, (_, i) => lit(from + i, t.int32));
const inList = (expr: RemoteExpr, list: RemoteExpr[]): RemoteExpr => ({ kind: 'in', expr, list, negated: false, type: t.bool });

/** part ⋈ partsupp restricted by two key lists, as a dependent join's fetch sends it */
function fetch(partKeys: number, suppKeys: number): RemoteQuery {
  return {
    select: [{ expr: col('ps', 'ps_partkey', t.int32), alias: 'k' }],
    from: {
      kind: 'join',
      type: 'inner',
      left: table('part', 'p'),
      right: table('partsupp', 'ps'),
      on: call('eq', [col('p', 'p_partkey', t.int32), col('ps', 'ps_partkey', t.int32)]),
    },
    where: call('and', [inList(col('p', 'p_partkey', t.int32), keys(partKeys)), inList(col('ps', 'ps_suppkey', t.int32), keys(suppKeys, 100))]),
  };
}

const render = (q: RemoteQuery, version: string) => {
  const semantics = mysqlSemantics(version);
  return withRangeLimits(renderFor('mysql', q, semantics), q, semantics).sql;
};

describe('MariaDB range limits for long IN lists', () => {
  it('plans a statement with a long list from statistics, its range tree capped at the longest list', () => {
    const q = fetch(20, 16);
    const plain = renderFor('mysql', q, mysqlSemantics('10.11.6-MariaDB-0+deb12u1')).sql;
    expect(render(q, '10.11.6-MariaDB-0+deb12u1')).toBe(`SET STATEMENT eq_range_index_dive_limit=16, optimizer_max_sel_arg_weight=20 FOR ${plain}`);
    expect(render(q, '10.5.9-MariaDB')).toBe(`SET STATEMENT eq_range_index_dive_limit=16, optimizer_max_sel_arg_weight=20 FOR ${plain}`);
    expect(render(q, '11.4.2-MariaDB')).toBe(`SET STATEMENT eq_range_index_dive_limit=16, optimizer_max_sel_arg_weight=20 FOR ${plain}`);
  });

  it('leaves short lists, MySQL and MariaDB before 10.5.9 as rendered', () => {
    const maria = '10.11.6-MariaDB-0+deb12u1';
    expect(render(fetch(15, 15), maria)).toBe(renderFor('mysql', fetch(15, 15), mysqlSemantics(maria)).sql);
    for (const v of ['8.0.36', '10.5.8-MariaDB', '10.4.30-MariaDB', 'unknown']) {
      expect(render(fetch(40, 40), v)).toBe(renderFor('mysql', fetch(40, 40), mysqlSemantics(v)).sql);
    }
  });

  it('finds the longest list anywhere in the statement', () => {
    expect(longestInList(fetch(3, 7))).toBe(7);
    const nested: RemoteQuery = {
      select: [{ expr: col('o', 'a', t.int32), alias: 'a' }],
      from: { kind: 'subquery', alias: 'o', query: fetch(2, 30) },
      having: inList(col('o', 'a', t.int32), keys(5)),
    };
    expect(longestInList(nested)).toBe(30);
    expect(longestInList({ select: [{ expr: lit(1, t.int32), alias: 'one' }], from: table('t') })).toBe(0);
    const keySet: RemoteExpr = { kind: 'keySet', expr: col('p', 'p_partkey', t.int32), values: Array.from({ length: 40 }, (_, i) => i), type: t.bool };
    expect(longestInList({ ...fetch(3, 7), where: call('and', [keySet, inList(col('ps', 'ps_suppkey', t.int32), keys(20))]) })).toBe(40);
  });
});
