import { describe, expect, it } from 'vitest';
import {
  addComputed,
  addFilter,
  addJoin,
  addTable,
  renameOutput,
  setAggregate,
  setJoinType,
  toggleColumn,
} from './edit.js';
import { demoTable } from './fixtures.js';
import { EMPTY_GRAPH, type ViewGraph } from './model.js';
import { graphToSql } from './to-sql.js';

const at = { x: 0, y: 0 };

/** orders (o) joined to customer (c) on the customer key */
function ordersCustomers(): ViewGraph {
  let g = addTable(EMPTY_GRAPH, demoTable('orders'), at);
  g = addTable(g, demoTable('customer'), at);
  return addJoin(g, { table: 'o', column: 'o_custkey' }, { table: 'c', column: 'c_custkey' });
}

describe('graphToSql', () => {
  it('is empty without tables and SELECT * without picked columns', () => {
    expect(graphToSql(EMPTY_GRAPH)).toBe('');
    expect(graphToSql(addTable(EMPTY_GRAPH, demoTable('orders'), at))).toBe('SELECT\n  *\nFROM dbA.orders AS o');
  });

  it('joins two sources, with picked and renamed columns and a filter', () => {
    let g = ordersCustomers();
    g = toggleColumn(g, { table: 'o', column: 'o_orderkey' });
    g = toggleColumn(g, { table: 'c', column: 'c_name' });
    g = renameOutput(g, 1, 'customer');
    g = addFilter(g, "o.o_orderstatus = 'O'");
    g = addFilter(g, 'o.o_totalprice > 1000 OR c.c_nationkey = 3');
    expect(graphToSql(g)).toBe(
      [
        'SELECT',
        '  o.o_orderkey,',
        '  c.c_name AS customer',
        'FROM dbA.orders AS o',
        '  JOIN dbB.customer AS c ON o.o_custkey = c.c_custkey',
        "WHERE o.o_orderstatus = 'O'",
        '  AND (o.o_totalprice > 1000 OR c.c_nationkey = 3)',
      ].join('\n'),
    );
  });

  it.each([
    ['inner', 'JOIN'],
    ['left', 'LEFT JOIN'],
    ['right', 'RIGHT JOIN'],
    ['full', 'FULL JOIN'],
  ] as const)('renders a %s join as %s', (type, keyword) => {
    const g = setJoinType(ordersCustomers(), 'o.o_custkey=c.c_custkey', type);
    expect(graphToSql(g).split('\n')[3]).toBe(`  ${keyword} dbB.customer AS c ON o.o_custkey = c.c_custkey`);
  });

  it('writes a join drawn from the later table to the earlier one from the earlier side, flipping LEFT', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('orders'), at);
    g = addTable(g, demoTable('customer'), at);
    g = addJoin(g, { table: 'c', column: 'c_custkey' }, { table: 'o', column: 'o_custkey' }, 'left');
    expect(graphToSql(g).split('\n')[3]).toBe('  RIGHT JOIN dbB.customer AS c ON o.o_custkey = c.c_custkey');
  });

  it('places a table joined to none as a CROSS JOIN, and three tables in join order', () => {
    let g = addTable(EMPTY_GRAPH, demoTable('nation'), at);
    g = addTable(g, demoTable('orders'), at);
    g = addTable(g, demoTable('customer'), at);
    expect(graphToSql(g).split('\n').slice(2)).toEqual([
      'FROM dbD.nation AS n',
      '  CROSS JOIN dbA.orders AS o',
      '  CROSS JOIN dbB.customer AS c',
    ]);
    g = addJoin(g, { table: 'c', column: 'c_nationkey' }, { table: 'n', column: 'n_nationkey' });
    g = addJoin(g, { table: 'o', column: 'o_custkey' }, { table: 'c', column: 'c_custkey' });
    expect(graphToSql(g).split('\n').slice(2)).toEqual([
      'FROM dbD.nation AS n',
      '  JOIN dbB.customer AS c ON n.n_nationkey = c.c_nationkey',
      '  JOIN dbA.orders AS o ON c.c_custkey = o.o_custkey',
    ]);
  });

  it('groups by the non-aggregated outputs, with computed columns, DISTINCT, ORDER BY and LIMIT', () => {
    let g = ordersCustomers();
    g = toggleColumn(g, { table: 'c', column: 'c_mktsegment' });
    g = toggleColumn(g, { table: 'o', column: 'o_totalprice' });
    g = setAggregate(g, 1, 'sum');
    g = renameOutput(g, 1, 'revenue');
    g = addComputed(g, 'o.o_orderkey', 'orders', 'count_distinct');
    g = addComputed(g, 'extract(year FROM o.o_orderdate)', 'year');
    g = { ...g, orderBy: [{ expr: 'revenue', desc: true }], limit: 10 };
    expect(graphToSql(g)).toBe(
      [
        'SELECT',
        '  c.c_mktsegment,',
        '  sum(o.o_totalprice) AS revenue,',
        '  count(DISTINCT o.o_orderkey) AS orders,',
        '  extract(year FROM o.o_orderdate) AS year',
        'FROM dbA.orders AS o',
        '  JOIN dbB.customer AS c ON o.o_custkey = c.c_custkey',
        'GROUP BY c.c_mktsegment, extract(year FROM o.o_orderdate)',
        'ORDER BY revenue DESC',
        'LIMIT 10',
      ].join('\n'),
    );
    expect(graphToSql({ ...ordersCustomers(), distinct: true }).split('\n')[0]).toBe('SELECT DISTINCT');
  });

  it('quotes names that need it, and reads a view like a table', () => {
    let g = addTable(EMPTY_GRAPH, { ...demoTable('cust_nation'), path: ['sales', 'Cust Nation'] }, at);
    g = toggleColumn(g, { table: 'cn', column: 'customer' });
    g = renameOutput(g, 0, 'order');
    expect(graphToSql(g)).toBe('SELECT\n  cn.customer AS "order"\nFROM sales."Cust Nation" AS cn');
  });
});
