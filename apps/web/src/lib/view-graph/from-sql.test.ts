import { describe, expect, it } from 'vitest';
import { resolveDemo } from './fixtures.js';
import { sqlToGraph, tablePaths } from './from-sql.js';
import { layoutOf, reopen } from './layout.js';
import type { ViewGraph } from './model.js';
import { graphToSql } from './to-sql.js';

function parsed(sql: string): ViewGraph {
  const r = sqlToGraph(sql, resolveDemo);
  if (!r.ok) throw new Error(r.reason);
  return r.graph;
}

function reason(sql: string): string {
  const r = sqlToGraph(sql, resolveDemo);
  if (r.ok) throw new Error('parsed');
  return r.reason;
}

/** Canonical SQL reads back to a graph that prints the same SQL. */
const ROUND_TRIPS = [
  'SELECT\n  *\nFROM dbA.orders AS o',
  [
    'SELECT',
    '  o.o_orderkey,',
    '  c.c_name AS customer',
    'FROM dbA.orders AS o',
    '  JOIN dbB.customer AS c ON o.o_custkey = c.c_custkey',
    "WHERE o.o_orderstatus = 'O'",
    '  AND (o.o_totalprice > 1000 OR c.c_nationkey = 3)',
    "  AND o.o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1995-12-31'",
  ].join('\n'),
  ...['LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'].map(
    (k) => `SELECT\n  o.o_orderkey\nFROM dbA.orders AS o\n  ${k} dbB.customer AS c ON o.o_custkey = c.c_custkey`,
  ),
  [
    'SELECT',
    '  n.n_name,',
    '  count(*) AS customers,',
    '  count(DISTINCT o.o_orderkey) AS orders,',
    '  sum(o.o_totalprice),',
    '  upper(c.c_mktsegment) AS segment',
    'FROM dbD.nation AS n',
    '  JOIN dbB.customer AS c ON n.n_nationkey = c.c_nationkey',
    '  LEFT JOIN dbA.orders AS o ON c.c_custkey = o.o_custkey',
    'GROUP BY n.n_name, upper(c.c_mktsegment)',
    'ORDER BY customers DESC, n.n_name',
    'LIMIT 20',
  ].join('\n'),
  'SELECT DISTINCT\n  cn.nation\nFROM sales.cust_nation AS cn\n  CROSS JOIN dbD.nation AS n',
  'SELECT\n  cn.customer,\n  n.n_name AS "Nation"\nFROM sales.cust_nation AS cn\n  JOIN dbD.nation AS n ON cn.nation = n.n_name',
];

describe('sqlToGraph', () => {
  it.each(ROUND_TRIPS)('round-trips %s', (sql) => {
    expect(graphToSql(parsed(sql))).toBe(sql);
  });

  it('reads joins of every type relative to the columns written', () => {
    const g = parsed('SELECT * FROM dbA.orders o RIGHT OUTER JOIN dbB.customer c ON c.c_custkey = o.o_custkey');
    expect(g.joins).toEqual([
      { type: 'left', left: { table: 'c', column: 'c_custkey' }, right: { table: 'o', column: 'o_custkey' } },
    ]);
    expect(graphToSql(g).split('\n')[3]).toBe('  RIGHT JOIN dbB.customer AS c ON o.o_custkey = c.c_custkey');
    expect(
      parsed('SELECT * FROM dbA.orders o INNER JOIN dbB.customer c ON o.o_custkey = c.c_custkey').joins[0]!.type,
    ).toBe('inner');
    expect(
      parsed('SELECT * FROM dbA.orders o FULL OUTER JOIN dbB.customer c ON o.o_custkey = c.c_custkey').joins[0]!.type,
    ).toBe('full');
  });

  it('normalises hand-written SQL: case, bare aliases, unqualified columns, table names as aliases, semicolons', () => {
    const g = parsed(
      'select O_ORDERKEY k, customer.c_name from DBA.ORDERS join dbB.customer on orders.o_custkey = customer.c_custkey;',
    );
    expect(g.tables.map((t) => [t.alias, t.path.join('.')])).toEqual([
      ['ORDERS', 'dbA.orders'],
      ['customer', 'dbB.customer'],
    ]);
    expect(g.outputs).toEqual([
      { source: { kind: 'column', ref: { table: 'ORDERS', column: 'o_orderkey' } }, name: 'k' },
      { source: { kind: 'column', ref: { table: 'customer', column: 'c_name' } } },
    ]);
    expect(graphToSql(g)).toBe(
      [
        'SELECT',
        '  ORDERS.o_orderkey AS k,',
        '  customer.c_name',
        'FROM dbA.orders AS ORDERS',
        '  JOIN dbB.customer AS customer ON ORDERS.o_custkey = customer.c_custkey',
      ].join('\n'),
    );
  });

  it('expands alias.* into picked columns', () => {
    expect(graphToSql(parsed('SELECT n.* FROM dbD.nation n'))).toBe(
      'SELECT\n  n.n_nationkey,\n  n.n_name,\n  n.n_regionkey\nFROM dbD.nation AS n',
    );
  });

  it('places tables from a stored layout by alias', () => {
    const r = sqlToGraph('SELECT * FROM dbD.nation n', resolveDemo, new Map([['n', { x: 7, y: 9 }]]));
    expect(r.ok && r.graph.tables[0]!.position).toEqual({ x: 7, y: 9 });
  });

  it.each([
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'WITH (common table expressions) is not shown on the canvas'],
    ['SELECT 1', 'a SELECT without FROM has no tables to show'],
    ['SELECT * FROM dbA.orders o, dbB.customer c', 'tables listed with commas are not shown: write JOIN … ON'],
    ['SELECT * FROM (SELECT 1) AS s', 'a subquery in FROM is not shown on the canvas'],
    ['SELECT * FROM dbX.nope', 'dbX.nope is not in the catalog'],
    [
      'SELECT * FROM dbA.orders o JOIN dbB.customer c ON o.o_custkey > c.c_custkey',
      'the join condition o.o_custkey > c.c_custkey is not shown: the canvas joins on equal columns (a.x = b.y)',
    ],
    ['SELECT * FROM dbA.orders o JOIN dbB.customer c USING (custkey)', 'JOIN … USING is not shown: write JOIN … ON'],
    [
      'SELECT o.o_custkey FROM dbA.orders o GROUP BY o.o_custkey HAVING count(*) > 1',
      'HAVING is not shown on the canvas',
    ],
    [
      'SELECT o.o_custkey FROM dbA.orders o GROUP BY o.o_custkey',
      'GROUP BY without aggregates is not shown: use DISTINCT',
    ],
    [
      'SELECT o.o_custkey, count(*) FROM dbA.orders o GROUP BY o.o_orderkey',
      'GROUP BY is shown only when it lists exactly the non-aggregated output columns, in order',
    ],
    [
      'SELECT sum(o.o_totalprice) / count(*) AS avg_price FROM dbA.orders o',
      'sum(o.o_totalprice) / count(*): an expression over aggregates is not shown on the canvas',
    ],
    ['SELECT * FROM dbA.orders o UNION SELECT * FROM dbA.orders o2', 'UNION is not shown on the canvas'],
    ['SELECT * FROM dbA.orders o LIMIT 5 OFFSET 2', 'OFFSET is not shown on the canvas'],
    ['SELECT * FROM dbA.orders o ORDER BY 1 NULLS LAST', 'NULLS FIRST/LAST is not shown on the canvas'],
    ["SELECT * FROM dbA.orders o WHERE o.o_orderstatus = 'O", 'a string literal is not closed'],
  ])('says why %s stays off the canvas', (sql, why) => {
    expect(reason(sql)).toBe(why);
  });
});

describe('tablePaths', () => {
  it('lists the qualified names after FROM and JOIN', () => {
    expect(
      tablePaths('SELECT x FROM dbA.orders o JOIN "sales"."Cust View" v ON 1 = 1 LEFT JOIN dbA.public.t ON true'),
    ).toEqual([
      ['dbA', 'orders'],
      ['sales', 'Cust View'],
      ['dbA', 'public', 't'],
    ]);
    expect(tablePaths("SELECT 'unclosed")).toEqual([]);
  });
});

describe('reopen', () => {
  const sql = 'SELECT\n  n.n_name\nFROM dbD.nation AS n';
  it('uses the stored graph while it still prints the saved SQL', () => {
    const g = parsed(sql);
    const moved = { ...g, tables: [{ ...g.tables[0]!, position: { x: 500, y: 60 } }] };
    expect(reopen({ sql, layout: layoutOf(moved) }, resolveDemo)).toEqual({ ok: true, graph: moved });
  });

  it('reads SQL changed elsewhere again, keeping the stored places, or says why it cannot', () => {
    const g = parsed(sql);
    const moved = { ...g, tables: [{ ...g.tables[0]!, position: { x: 500, y: 60 } }] };
    const changed = 'SELECT n.n_nationkey FROM dbD.nation n';
    const r = reopen({ sql: changed, layout: layoutOf(moved) }, resolveDemo);
    expect(r.ok && [graphToSql(r.graph), r.graph.tables[0]!.position]).toEqual([
      'SELECT\n  n.n_nationkey\nFROM dbD.nation AS n',
      { x: 500, y: 60 },
    ]);
    expect(reopen({ sql: 'SELECT 1', layout: null }, resolveDemo)).toEqual({
      ok: false,
      reason: 'a SELECT without FROM has no tables to show',
    });
  });
});
