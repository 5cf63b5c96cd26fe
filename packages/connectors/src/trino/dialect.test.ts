import { describe, expect, it } from 'vitest';
import type { RemoteExpr, RemoteQuery } from '../contract/remote-query.js';
import { t } from '../contract/types.js';
import { renderQuery } from '../sql/generator.js';
import { agg, call, col, lit, table } from '../sql/ir-builders.js';
import { trinoCapabilities } from './capabilities.js';
import { TrinoDialect } from './dialect.js';

const d = new TrinoDialect();
const render = (q: RemoteQuery) => renderQuery(d, q);
const pgOrders = table('orders', 'o', 'public', 'junction_dba');
const myCustomer = table('customer', 'c', 'junction_test', 'junction_dbb');

describe('Trino dialect', () => {
  it('names tables catalog.schema.table, quoted, and splices typed literals (no parameters)', () => {
    const r = render({
      select: [
        { expr: col('o', 'o_orderkey', t.int32), alias: 'k' },
        { expr: col('o', 'o_totalprice', t.decimal(15, 2)), alias: 'price' },
      ],
      from: pgOrders,
      where: call('and', [
        call('gt', [col('o', 'o_totalprice', t.decimal(15, 2)), lit('1909572716.10', t.decimal(12, 2))]),
        call('eq', [col('o', 'o_comment', t.varchar(79)), lit("it's \\ here", t.varchar(79))]),
        call('ge', [col('o', 'o_orderdate', t.date), lit('1995-03-01', t.date)]),
        call('lt', [col('o', 'o_ts', t.timestamp), lit('1995-03-01T10:11:12.123456', t.timestamp)]),
        call('ne', [col('o', 'o_custkey', t.int64), lit(9007199254740993n, t.int64)]),
      ]),
    });
    expect(r.sql).toBe(
      'SELECT "o"."o_orderkey" AS "k", "o"."o_totalprice" AS "price" FROM "junction_dba"."public"."orders" "o" WHERE (("o"."o_totalprice" > DECIMAL \'1909572716.10\') AND ("o"."o_comment" = \'it\'\'s \\ here\') AND ("o"."o_orderdate" >= DATE \'1995-03-01\') AND ("o"."o_ts" < TIMESTAMP \'1995-03-01 10:11:12.123456\') AND ("o"."o_custkey" <> BIGINT \'9007199254740993\'))',
    );
    expect(r.params).toEqual([]);
    expect(r.columns).toEqual([
      { name: 'k', type: t.int32, nullable: true },
      { name: 'price', type: t.decimal(15, 2), nullable: true },
    ]);
  });

  it('joins tables of two catalogs', () => {
    const r = render({
      select: [
        { expr: col('c', 'c_name', t.varchar(25)), alias: 'name' },
        { expr: col('o', 'o_orderkey', t.int32), alias: 'k' },
      ],
      from: {
        kind: 'join',
        type: 'left',
        left: myCustomer,
        right: pgOrders,
        on: call('eq', [col('c', 'c_custkey', t.int32), col('o', 'o_custkey', t.int32)]),
      },
    });
    expect(r.sql).toBe(
      'SELECT "c"."c_name" AS "name", "o"."o_orderkey" AS "k" FROM "junction_dbb"."junction_test"."customer" "c" LEFT JOIN "junction_dba"."public"."orders" "o" ON ("c"."c_custkey" = "o"."o_custkey")',
    );
  });

  it('spells NULLS FIRST/LAST on every key (Trino puts NULLs last both ways) and OFFSET before LIMIT', () => {
    const k = col('o', 'o_comment', t.varchar(79));
    const n = col('o', 'o_orderkey', t.int32);
    const r = render({
      select: [{ expr: k, alias: 'c' }],
      from: pgOrders,
      orderBy: [
        { expr: k, desc: false, nullsFirst: false },
        { expr: n, desc: true, nullsFirst: true },
        { expr: n, desc: false, nullsFirst: true },
      ],
      limit: 10,
      offset: 5,
    });
    expect(r.sql).toBe(
      'SELECT "o"."o_comment" AS "c" FROM "junction_dba"."public"."orders" "o" ORDER BY "o"."o_comment" ASC NULLS LAST, "o"."o_orderkey" DESC NULLS FIRST, "o"."o_orderkey" ASC NULLS FIRST OFFSET 5 LIMIT 10',
    );
    expect(render({ select: [{ expr: k, alias: 'c' }], from: pgOrders, limit: 3 }).sql).toBe(
      'SELECT "o"."o_comment" AS "c" FROM "junction_dba"."public"."orders" "o" LIMIT 3',
    );
  });

  it('sorts by ordinal when a key names a table like an output column (TPC-H Q9: n_name AS nation, table nation)', () => {
    const nation = table('nation', 'nation', 'jdv_d', 'junction_dbd');
    const name = col('nation', 'n_name', t.char(25));
    const year = call('date_part', [lit('year', t.string), col('nation', 'n_date', t.date)], t.int32);
    const r = render({
      select: [
        { expr: name, alias: 'nation' },
        { expr: year, alias: 'o_year' },
        { expr: agg('count_star', [], t.int64), alias: 'n' },
      ],
      from: nation,
      groupBy: [name, year],
      orderBy: [
        { expr: name, desc: false, nullsFirst: false },
        { expr: year, desc: true, nullsFirst: true },
      ],
    });
    // ORDER BY RTRIM(CAST("nation"."n_name" …)) would read the output column "nation" as a row: TYPE_MISMATCH
    expect(r.sql).toBe(
      'SELECT RTRIM(CAST("nation"."n_name" AS VARCHAR), \' \') AS "nation", (CASE WHEN YEAR("nation"."n_date") > 0 THEN YEAR("nation"."n_date") ELSE YEAR("nation"."n_date") - 1 END) AS "o_year", COUNT(*) AS "n" FROM "junction_dbd"."jdv_d"."nation" "nation" GROUP BY RTRIM(CAST("nation"."n_name" AS VARCHAR), \' \'), (CASE WHEN YEAR("nation"."n_date") > 0 THEN YEAR("nation"."n_date") ELSE YEAR("nation"."n_date") - 1 END) ORDER BY 1 ASC NULLS LAST, 2 DESC NULLS FIRST',
    );
  });

  it('sorts by a hidden column of a derived table when such a key is not selected, limit and offset outside', () => {
    const k = col('o', 'o_orderkey', t.int32);
    const r = render({
      select: [
        { expr: col('o', 'o_comment', t.varchar(79)), alias: 'o' },
        { expr: k, alias: 'k' },
      ],
      from: pgOrders,
      orderBy: [
        { expr: col('o', 'o_totalprice', t.decimal(15, 2)), desc: true, nullsFirst: false },
        { expr: k, desc: false, nullsFirst: false },
      ],
      limit: 10,
      offset: 5,
    });
    expect(r.sql).toBe(
      'SELECT "_j_sorted"."o" AS "o", "_j_sorted"."k" AS "k" FROM (SELECT "o"."o_comment" AS "o", "o"."o_orderkey" AS "k", "o"."o_totalprice" AS "_j_order_1" FROM "junction_dba"."public"."orders" "o") "_j_sorted" ORDER BY "_j_order_1" DESC NULLS LAST, 2 ASC NULLS LAST OFFSET 5 LIMIT 10',
    );
    expect(r.columns.map((c) => c.name)).toEqual(['o', 'k']);
    // DISTINCT cannot take a hidden column without changing its rows
    expect(() => render({ select: [{ expr: k, alias: 'o' }], from: pgOrders, distinct: true, orderBy: [{ expr: col('o', 'x', t.int32), desc: false, nullsFirst: false }] })).toThrow(
      /SELECT DISTINCT ordered by a key it does not select/,
    );
  });

  it('aggregates: sum over bigint as decimal(38,0) (PostgreSQL\'s numeric sum), count distinct, group by, having', () => {
    const key = col('c', 'c_mktsegment', t.char(10));
    const r = render({
      select: [
        { expr: key, alias: 'seg' },
        { expr: agg('sum', [col('c', 'c_big', t.int64)], t.decimal()), alias: 's' },
        { expr: agg('sum', [col('c', 'c_acctbal', t.decimal(15, 2))], t.decimal(38, 2)), alias: 'b' },
        { expr: agg('count', [col('c', 'c_nationkey', t.int32)], t.int64, true), alias: 'n' },
        { expr: agg('max', [col('c', 'c_name', t.varchar(25))], t.varchar(25)), alias: 'm' },
      ],
      from: myCustomer,
      groupBy: [key],
      having: call('gt', [agg('count_star', [], t.int64), lit(1n, t.int64)]),
    });
    expect(r.sql).toBe(
      'SELECT RTRIM(CAST("c"."c_mktsegment" AS VARCHAR), \' \') AS "seg", SUM(CAST("c"."c_big" AS DECIMAL(38,0))) AS "s", SUM("c"."c_acctbal") AS "b", COUNT(DISTINCT "c"."c_nationkey") AS "n", MAX("c"."c_name") AS "m" FROM "junction_dbb"."junction_test"."customer" "c" GROUP BY RTRIM(CAST("c"."c_mktsegment" AS VARCHAR), \' \') HAVING (COUNT(*) > BIGINT \'1\')',
    );
  });

  it('reads char(n) without its pad blanks, compares char literals without theirs, and matches LIKE blank-padded', () => {
    const c = col('c', 'c_mktsegment', t.char(10));
    const r = render({
      select: [{ expr: call('length', [c], t.int32), alias: 'len' }],
      from: myCustomer,
      where: call('or', [call('eq', [c, lit('BUILDING  ', t.char(10))]), call('like', [c, lit('AUTO%', t.string)])]),
    });
    expect(r.sql).toBe(
      'SELECT LENGTH(RTRIM(CAST("c"."c_mktsegment" AS VARCHAR), \' \')) AS "len" FROM "junction_dbb"."junction_test"."customer" "c" WHERE ((RTRIM(CAST("c"."c_mktsegment" AS VARCHAR), \' \') = \'BUILDING\') OR (RPAD(RTRIM(CAST("c"."c_mktsegment" AS VARCHAR), \' \'), 10, \' \') LIKE \'AUTO%\' ESCAPE \'\\\'))',
    );
  });

  it('renders integer division, casts, trims of blanks only, substring with PostgreSQL\'s positions, date_part', () => {
    const i = col('o', 'o_orderkey', t.int32);
    const s = col('o', 'o_comment', t.varchar(79));
    const ts = col('o', 'o_ts', t.timestamp);
    const dt = col('o', 'o_orderdate', t.date);
    const items: { expr: RemoteExpr; alias: string }[] = [
      { expr: call('div', [i, lit(7, t.int32)], t.int32), alias: 'q' },
      { expr: call('mod', [i, lit(7, t.int32)], t.int32), alias: 'r' },
      { expr: { kind: 'cast', expr: i, type: t.decimal() }, alias: 'dec' },
      { expr: { kind: 'cast', expr: i, type: t.decimal(12, 2) }, alias: 'dec2' },
      { expr: { kind: 'cast', expr: s, type: t.varchar(3) }, alias: 'v3' },
      { expr: { kind: 'cast', expr: s, type: t.char(3) }, alias: 'c3' },
      { expr: call('trim', [s], t.string), alias: 'tr' },
      { expr: call('substring', [s, lit(0, t.int32), lit(3, t.int32)], t.string), alias: 'sub' },
      { expr: call('substring', [s, lit(2, t.int32)], t.string), alias: 'sub2' },
      { expr: call('date_part', [lit('dow', t.string), dt], t.float64), alias: 'dow' },
      { expr: call('date_part', [lit('second', t.string), ts], t.decimal()), alias: 'sec' },
      { expr: call('date_part', [lit('second', t.string), ts], t.float64), alias: 'secf' },
      { expr: { kind: 'case', whens: [{ when: call('is_null', [s]), then: lit(null, t.decimal(5, 1)) }], else: lit('1.5', t.decimal(5, 1)), type: t.decimal(5, 1) }, alias: 'cs' },
      { expr: lit(1.5, t.float64), alias: 'f' },
      { expr: lit(true, t.bool), alias: 'b' },
      { expr: lit('2024-01-01T00:00:00.5Z', t.timestamptz), alias: 'tz' },
    ];
    expect(render({ select: items, from: pgOrders }).sql).toBe(
      'SELECT ("o"."o_orderkey" / INTEGER \'7\') AS "q", ("o"."o_orderkey" % INTEGER \'7\') AS "r", CAST("o"."o_orderkey" AS DECIMAL(10,0)) AS "dec", CAST("o"."o_orderkey" AS DECIMAL(12,2)) AS "dec2", CAST("o"."o_comment" AS VARCHAR(3)) AS "v3", RTRIM(CAST(CAST("o"."o_comment" AS CHAR(3)) AS VARCHAR), \' \') AS "c3", TRIM(BOTH \' \' FROM "o"."o_comment") AS "tr", SUBSTR("o"."o_comment", GREATEST(INTEGER \'0\', 1), GREATEST(INTEGER \'0\' + INTEGER \'3\' - GREATEST(INTEGER \'0\', 1), 0)) AS "sub", SUBSTR("o"."o_comment", GREATEST(INTEGER \'2\', 1)) AS "sub2", MOD(DAY_OF_WEEK("o"."o_orderdate"), 7) AS "dow", CAST(SUBSTR(CAST(CAST("o"."o_ts" AS TIMESTAMP(6)) AS VARCHAR), -9) AS DECIMAL(8,6)) AS "sec", CAST(CAST(SUBSTR(CAST(CAST("o"."o_ts" AS TIMESTAMP(6)) AS VARCHAR), -9) AS DECIMAL(8,6)) AS DOUBLE) AS "secf", CASE WHEN ("o"."o_comment" IS NULL) THEN CAST(NULL AS DECIMAL(5,1)) ELSE DECIMAL \'1.5\' END AS "cs", DOUBLE \'1.5\' AS "f", TRUE AS "b", TIMESTAMP \'2024-01-01 00:00:00.5 UTC\' AS "tz" FROM "junction_dba"."public"."orders" "o"',
    );
  });

  it('numbers years before 1 and reads seconds of any year as PostgreSQL does', () => {
    const dt = col('o', 'o_orderdate', t.date);
    const ts = col('o', 'o_ts', t.timestamp);
    const r = render({
      select: [
        { expr: call('date_part', [lit('year', t.string), dt], t.float64), alias: 'y' },
        { expr: call('date_part', [lit('second', t.string), ts], t.decimal()), alias: 's' },
      ],
      from: pgOrders,
    });
    // 1 BC is year 0 to Trino and -1 to PostgreSQL; '-0001-01-01 00:00:00.500000' has its seconds 9 from the end
    expect(r.sql).toBe(
      'SELECT (CASE WHEN YEAR("o"."o_orderdate") > 0 THEN YEAR("o"."o_orderdate") ELSE YEAR("o"."o_orderdate") - 1 END) AS "y", CAST(SUBSTR(CAST(CAST("o"."o_ts" AS TIMESTAMP(6)) AS VARCHAR), -9) AS DECIMAL(8,6)) AS "s" FROM "junction_dba"."public"."orders" "o"',
    );
  });

  it('renders a key set as an IN list of literals, and EXISTS / set operations', () => {
    const k = col('o', 'o_custkey', t.int32);
    const r = render({
      select: [{ expr: k, alias: 'k' }],
      from: {
        kind: 'setop',
        alias: 'u',
        op: 'except',
        all: true,
        left: { select: [{ expr: k, alias: 'k' }], from: pgOrders, where: { kind: 'keySet', expr: k, values: [1, 2], type: t.bool } },
        right: { select: [{ expr: col('c', 'c_custkey', t.int32), alias: 'k' }], from: myCustomer, limit: 1 },
      },
    });
    expect(r.sql).toBe(
      'SELECT "o"."o_custkey" AS "k" FROM (SELECT "o"."o_custkey" AS "k" FROM "junction_dba"."public"."orders" "o" WHERE ("o"."o_custkey" IN (INTEGER \'1\', INTEGER \'2\')) EXCEPT ALL SELECT "u_r"."k" FROM (SELECT "c"."c_custkey" AS "k" FROM "junction_dbb"."junction_test"."customer" "c" LIMIT 1) "u_r") "u"',
    );
  });

  it('refuses what it does not declare: decimal division, avg, greatest', () => {
    const caps = trinoCapabilities();
    expect(caps.functions.div).toEqual({ argKinds: ['int16', 'int32', 'int64', 'float64', 'null'] });
    expect(caps.aggregates.avg).toBeUndefined();
    expect(caps.functions.greatest).toBeUndefined();
    expect(() => render({ select: [{ expr: agg('avg', [col('o', 'x', t.int32)], t.decimal()), alias: 'a' }], from: pgOrders })).toThrow(
      /aggregate avg cannot be rendered for trino/,
    );
    expect(() => render({ select: [{ expr: call('greatest', [col('o', 'x', t.int32)], t.int32), alias: 'g' }], from: pgOrders })).toThrow(
      /function greatest cannot be rendered for trino/,
    );
  });

  it('rejects a catalog without a schema and quotes hostile identifiers', () => {
    expect(() => render({ select: [{ expr: col('t', 'a', t.int32), alias: 'a' }], from: table('x', 't', undefined, 'cat') })).toThrow(
      /a catalog without a schema/,
    );
    expect(render({ select: [{ expr: col('t"', 'a"b', t.int32), alias: 'a' }], from: table('x"y', 't"', 's', 'c') }).sql).toBe(
      'SELECT "t"""."a""b" AS "a" FROM "c"."s"."x""y" "t"""',
    );
  });
});
