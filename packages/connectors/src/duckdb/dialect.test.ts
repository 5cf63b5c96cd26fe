import { describe, expect, it } from 'vitest';
import type { RemoteQuery } from '../contract/remote-query.js';
import { t, type Value } from '../contract/types.js';
import { renderFor } from '../sql/dialects.js';
import { CASES } from '../sql/generator.cases.js';
import { agg, call, col, lit, table } from '../sql/ir-builders.js';

/** Exact SQL for the shared generator cases. */
const EXPECTED: Record<string, { sql: string; params: Value[] }> = {
  // integer division is `//` (DuckDB's `/` answers a double), and by zero raises as in PostgreSQL
  arithmetic: {
    sql: 'SELECT (CASE WHEN $1::INTEGER = 0 AND "o"."o_a" IS NOT NULL THEN error(\'division by zero\') ELSE "o"."o_a" // $1::INTEGER END) AS "idiv", (CASE WHEN $2::INTEGER = 0 AND "o"."o_a" IS NOT NULL THEN error(\'division by zero\') ELSE "o"."o_a" % $2::INTEGER END) AS "imod", ("o"."l_extendedprice" * ($3::DECIMAL(1,0) - "o"."l_discount")) AS "revenue" FROM "lineitem" "o"',
    params: [2, 3, '1'],
  },
  joins: {
    sql: 'SELECT "c"."c_custkey" AS "k", "o"."o_orderdate" AS "d", RTRIM("n"."n_name", \' \') AS "n" FROM "customer" "c" LEFT JOIN "orders" "o" ON ("c"."c_custkey" = "o"."o_custkey") FULL JOIN "nation" "n" ON ("c"."c_nationkey" = "n"."n_nationkey")',
    params: [],
  },
  groupByHaving: {
    sql: 'SELECT "o"."o_custkey" AS "ck", SUM("o"."o_totalprice") AS "total", COUNT(*) AS "n", COUNT(DISTINCT RTRIM("o"."o_clerk", \' \')) AS "clerks", MIN("o"."o_comment") AS "first_comment" FROM "orders" "o" WHERE ("o"."o_orderdate" < $1::DATE) GROUP BY "o"."o_custkey" HAVING (COUNT(*) > $2::BIGINT) ORDER BY SUM("o"."o_totalprice") DESC NULLS FIRST',
    params: ['1995-03-01', 2n],
  },
  nullsOrdering: {
    sql: 'SELECT "c"."a" AS "a", "c"."b" AS "b" FROM "customer" "c" ORDER BY "c"."a" ASC NULLS LAST, "c"."a" ASC NULLS FIRST, "c"."a" DESC NULLS FIRST, "c"."a" DESC NULLS LAST, "c"."b" ASC NULLS LAST LIMIT 10 OFFSET 20',
    params: [],
  },
  limitOnly: {
    sql: 'SELECT "c"."a" AS "a" FROM "customer" "c" LIMIT 5',
    params: [],
  },
  offsetOnly: {
    sql: 'SELECT "c"."a" AS "a" FROM "customer" "c" ORDER BY "c"."a" ASC NULLS LAST OFFSET 7',
    params: [],
  },
  keySets: {
    sql: 'SELECT "c"."c_custkey" AS "k" FROM "customer" "c" WHERE ((("c"."c_custkey" IN ($1::INTEGER, $2::INTEGER, $3::INTEGER)) AND ("c"."c_big" IN ($4::BIGINT))) AND ((("c"."c_acctbal" IN ($5::DECIMAL(3,2), $6::DECIMAL(4,2))) AND ("c"."c_since" IN ($7::DATE))) AND (("c"."c_name" IN ($8::VARCHAR, $9::VARCHAR)) AND (RTRIM("c"."c_mktsegment", \' \') IN ($10::VARCHAR)))))',
    params: [1, 2, 3, 9007199254740993n, '-1.50', '10.00', '1995-03-01', 'Al', 'a,"b"\\ {NULL}', 'AUTO'],
  },
  caseAndCast: {
    sql: 'SELECT CASE WHEN ("c"."c_acctbal" < $1::DECIMAL(1,0)) THEN $2::VARCHAR WHEN ("c"."c_acctbal" IS NULL) THEN NULL::VARCHAR ELSE $3::VARCHAR END AS "status", CASE "c"."c_nationkey" WHEN $4::INTEGER THEN $5::INTEGER END AS "mapped", CAST("c"."c_since" AS DATE) AS "since" FROM "customer" "c"',
    params: ['0', 'debt', 'ok', 1, 10],
  },
  likeAndStrings: {
    sql: 'SELECT ("c"."c_name" || $1::VARCHAR || RTRIM("c"."c_phone", \' \')) AS "label", LENGTH("c"."c_name") AS "len" FROM "customer" "c" WHERE (("c"."c_name" LIKE $2::VARCHAR ESCAPE \'\\\') AND (RPAD(RTRIM("c"."c_mktsegment", \' \'), 10, \' \') LIKE $3::VARCHAR ESCAPE \'\\\'))',
    params: ['/', 'Cust%_1\\%', 'AUTO%'],
  },
};

describe('duckdb dialect: exact SQL', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(name, () => {
      const r = renderFor('duckdb', CASES[name]);
      expect({ sql: r.sql, params: r.params }).toEqual(expected);
    });
  }

  it('spells NULLS FIRST/LAST on every key: DuckDB puts NULLs last in both directions', () => {
    const q: RemoteQuery = {
      select: [{ expr: col('f', 'v', t.string), alias: 'v' }],
      from: table('files', 'f'),
      orderBy: [
        { expr: col('f', 'v', t.string), desc: true, nullsFirst: true },
        { expr: col('f', 'w', t.int32), desc: false, nullsFirst: false },
      ],
      limit: 10,
    };
    expect(renderFor('duckdb', q).sql).toBe(
      'SELECT "f"."v" AS "v" FROM "files" "f" ORDER BY "f"."v" DESC NULLS FIRST, "f"."w" ASC NULLS LAST LIMIT 10',
    );
  });

  it('binds a decimal with its own digits (a bare DECIMAL is DECIMAL(18,3) in DuckDB) and refuses decimal division', () => {
    const q: RemoteQuery = {
      select: [{ expr: agg('sum', [col('f', 'amount', t.decimal(15, 2))], t.decimal(38, 2)), alias: 's' }],
      from: table('files', 'f'),
      where: call('eq', [col('f', 'amount', t.decimal(15, 2)), lit('1909572716.1234', t.decimal(14, 4))]),
    };
    expect(renderFor('duckdb', q)).toMatchObject({
      sql: 'SELECT SUM("f"."amount") AS "s" FROM "files" "f" WHERE ("f"."amount" = $1::DECIMAL(14,4))',
      params: ['1909572716.1234'],
    });
    const div: RemoteQuery = {
      select: [
        { expr: call('div', [col('f', 'a', t.decimal(5, 2)), lit('2', t.decimal(1, 0))], t.decimal()), alias: 'd' },
      ],
      from: table('files', 'f'),
    };
    expect(() => renderFor('duckdb', div)).toThrow(/non-integer division cannot be rendered for duckdb/);
  });
});
