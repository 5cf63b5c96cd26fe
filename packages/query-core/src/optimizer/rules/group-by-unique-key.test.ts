import { describe, expect, it } from 'vitest';
import type { ColumnInfo, IndexInfo } from '@junction/connectors';
import { fire } from '../rule-test-helper.js';
import { PG_CAPS, PlanBuilder, col, eq, remote, sources, withTable } from '../test-support.js';
import { groupByUniqueKey } from './group-by-unique-key.js';

const column = (name: string, nullable = true): ColumnInfo => ({
  name,
  type: { kind: 'string' },
  nativeType: 'text',
  nullable,
});

function customerSource(keys: { primaryKey?: string[]; indexes?: IndexInfo[]; columns?: ColumnInfo[] }) {
  return sources({ dbA: PG_CAPS, dbB: withTable(PG_CAPS, { name: 'customer', ...keys }) });
}

/** TPC-H Q10's grouping: customer columns and the nation's name, over orders in another source. */
function q10(type: 'inner' | 'left' = 'inner') {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', {
    c_custkey: 'int64',
    c_name: 'varchar(25)',
    c_comment: 'varchar(117)',
    c_phone: 'char(15)',
  });
  const o = b.scan('dbA', 'orders', { o_custkey: 'int64', o_totalprice: 'decimal(15,2)' });
  const j = b.join(type, remote(c), remote(o), eq(col(c, 'c_custkey'), col(o, 'o_custkey')));
  return b.aggregate(
    j,
    ['c_custkey', 'c_name', 'c_comment', 'o_custkey'],
    [['revenue', 'sum', [col(o, 'o_totalprice')]]],
  );
}

describe('group-by-unique-key', () => {
  it("groups by the customer key alone and carries the customer's other columns as min()", () => {
    expect(fire(groupByUniqueKey, q10(), customerSource({ primaryKey: ['c_custkey'] }))).toMatchInlineSnapshot(`
      "Project c_custkey#7 := c_custkey#7, c_name#8 := c_name#8, c_comment#9 := c_comment#9, o_custkey#10 := o_custkey#10, revenue#11 := revenue#11
        Aggregate group=[c_custkey#7 := c_custkey#1, o_custkey#10 := o_custkey#5] aggs=[revenue#11 := sum(o_totalprice#6), c_name#8 := min(c_name#2), c_comment#9 := min(c_comment#3)]
          Join inner ON (c_custkey#1 = o_custkey#5)
            Remote dbB [c_custkey#1, c_name#2, c_comment#3, c_phone#4]
              Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_comment#3, c_phone#4]
            Remote dbA [o_custkey#5, o_totalprice#6]
              Scan dbA.public.orders AS orders [o_custkey#5, o_totalprice#6]"
    `);
  });

  it('a unique index counts only on NOT NULL columns: several rows may hold NULL in a unique column', () => {
    const unique: IndexInfo = { name: 'customer_name', columns: ['c_name'], unique: true };
    const b = new PlanBuilder();
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)', c_comment: 'varchar(117)' });
    const a = b.aggregate(remote(c), ['c_name', 'c_comment'], [['n', 'count_star', []]]);
    expect(fire(groupByUniqueKey, a, customerSource({ indexes: [unique], columns: [column('c_name')] }))).toBe(
      'did not fire',
    );
    expect(fire(groupByUniqueKey, a, customerSource({ indexes: [unique], columns: [column('c_name', false)] })))
      .toMatchInlineSnapshot(`
      "Project c_name#4 := c_name#4, c_comment#5 := c_comment#5, n#6 := n#6
        Aggregate group=[c_name#4 := c_name#2] aggs=[n#6 := count_star(), c_comment#5 := min(c_comment#3)]
          Remote dbB [c_custkey#1, c_name#2, c_comment#3]
            Scan dbB.public.customer AS customer [c_custkey#1, c_name#2, c_comment#3]"
    `);
  });

  it('does not fire without a key among the grouped columns of one table', () => {
    expect(fire(groupByUniqueKey, q10(), customerSource({}))).toBe('did not fire');
    expect(fire(groupByUniqueKey, q10(), customerSource({ primaryKey: ['c_custkey', 'c_phone'] }))).toBe(
      'did not fire',
    );
  });
});
