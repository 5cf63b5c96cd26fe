import { describe, expect, it } from 'vitest';
import { isJunctionError } from '../contract/errors.js';
import type { RemoteQuery } from '../contract/remote-query.js';
import { t, type Value } from '../contract/types.js';
import { MysqlDialect } from '../mysql/dialect.js';
import { PostgresDialect } from '../postgres/dialect.js';
import { SqlServerDialect } from '../sqlserver/dialect.js';
import { SqliteDialect, likeToGlob } from '../sqlite/dialect.js';
import { dialectFor, renderFor } from './dialects.js';
import { CASES, ENGINES, PG_LINGUISTIC, PROBED, type GeneratorEngine } from './generator.cases.js';
import { renderQuery } from './generator.js';
import { agg, call, col, lit, table } from './ir-builders.js';

type Expected = { sql: string; params: Value[] } | { error: string };

function errorCode(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isJunctionError(e) ? e.code : `not a JunctionError: ${String(e)}`;
  }
  return undefined;
}

const EXPECTED: Record<string, Record<GeneratorEngine, Expected>> = {
  filterProject: {
    postgresql: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"c_custkey\", \"c\".\"c_name\" AS \"c_name\" FROM \"tpch\".\"customer\" \"c\" WHERE ((\"c\".\"c_custkey\" <= $1::integer) AND (\"c\".\"c_acctbal\" > $2::numeric))",
      params: [100, "5.50"],
    },
    mysql: {
      sql: "SELECT `c`.`c_custkey` AS `c_custkey`, (CONVERT(`c`.`c_name` USING utf8mb4) COLLATE utf8mb4_nopad_bin) AS `c_name` FROM `tpch`.`customer` `c` WHERE ((`c`.`c_custkey` <= ?) AND (`c`.`c_acctbal` > CAST(? AS DECIMAL(3,2))))",
      params: [100, "5.50"],
    },
    sqlserver: {
      sql: "SELECT [c].[c_custkey] AS [c_custkey], [c].[c_name] AS [c_name] FROM [tpch].[customer] [c] WHERE (([c].[c_custkey] <= @p1) AND ([c].[c_acctbal] > CAST(@p2 AS DECIMAL(3,2))))",
      params: [100, "5.50"],
    },
    sqlite: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"c_custkey\", \"c\".\"c_name\" AS \"c_name\" FROM \"tpch\".\"customer\" \"c\" WHERE ((\"c\".\"c_custkey\" <= ?) AND (\"c\".\"c_acctbal\" > ?))",
      params: [100n, "5.50"],
    },
  },
  joins: {
    postgresql: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\", \"o\".\"o_orderdate\" AS \"d\", \"n\".\"n_name\" AS \"n\" FROM \"customer\" \"c\" LEFT JOIN \"orders\" \"o\" ON (\"c\".\"c_custkey\" = \"o\".\"o_custkey\") FULL JOIN \"nation\" \"n\" ON (\"c\".\"c_nationkey\" = \"n\".\"n_nationkey\")",
      params: [],
    },
    mysql: { error: "pushdown_unsupported" },
    sqlserver: {
      sql: "SELECT [c].[c_custkey] AS [k], [o].[o_orderdate] AS [d], [n].[n_name] AS [n] FROM [customer] [c] LEFT JOIN [orders] [o] ON ([c].[c_custkey] = [o].[o_custkey]) FULL JOIN [nation] [n] ON ([c].[c_nationkey] = [n].[n_nationkey])",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\", \"o\".\"o_orderdate\" AS \"d\", RTRIM(\"n\".\"n_name\") AS \"n\" FROM \"customer\" \"c\" LEFT JOIN \"orders\" \"o\" ON (\"c\".\"c_custkey\" = \"o\".\"o_custkey\") FULL JOIN \"nation\" \"n\" ON (\"c\".\"c_nationkey\" = \"n\".\"n_nationkey\")",
      params: [],
    },
  },
  innerRightNested: {
    postgresql: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" INNER JOIN (\"orders\" \"o\" CROSS JOIN \"nation\" \"n\") ON (\"c\".\"c_custkey\" = \"o\".\"o_custkey\")",
      params: [],
    },
    mysql: {
      sql: "SELECT `c`.`c_custkey` AS `k` FROM `customer` `c` INNER JOIN (`orders` `o` CROSS JOIN `nation` `n`) ON (`c`.`c_custkey` = `o`.`o_custkey`)",
      params: [],
    },
    sqlserver: {
      sql: "SELECT [c].[c_custkey] AS [k] FROM [customer] [c] INNER JOIN ([orders] [o] CROSS JOIN [nation] [n]) ON ([c].[c_custkey] = [o].[o_custkey])",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" INNER JOIN (\"orders\" \"o\" CROSS JOIN \"nation\" \"n\") ON (\"c\".\"c_custkey\" = \"o\".\"o_custkey\")",
      params: [],
    },
  },
  groupByHaving: {
    postgresql: {
      sql: "SELECT \"o\".\"o_custkey\" AS \"ck\", SUM(\"o\".\"o_totalprice\") AS \"total\", COUNT(*) AS \"n\", COUNT(DISTINCT \"o\".\"o_clerk\") AS \"clerks\", MIN(\"o\".\"o_comment\") AS \"first_comment\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_orderdate\" < $1::date) GROUP BY \"o\".\"o_custkey\" HAVING (COUNT(*) > $2::bigint) ORDER BY SUM(\"o\".\"o_totalprice\") DESC",
      params: ["1995-03-01", 2n],
    },
    mysql: {
      sql: "SELECT `o`.`o_custkey` AS `ck`, SUM(`o`.`o_totalprice`) AS `total`, COUNT(*) AS `n`, COUNT(DISTINCT (CONVERT(`o`.`o_clerk` USING utf8mb4) COLLATE utf8mb4_nopad_bin)) AS `clerks`, MIN((CONVERT(`o`.`o_comment` USING utf8mb4) COLLATE utf8mb4_nopad_bin)) AS `first_comment` FROM `orders` `o` WHERE (`o`.`o_orderdate` < CAST(? AS DATE)) GROUP BY `o`.`o_custkey` HAVING (COUNT(*) > CAST(? AS SIGNED)) ORDER BY CASE WHEN SUM(`o`.`o_totalprice`) IS NULL THEN 0 ELSE 1 END, SUM(`o`.`o_totalprice`) DESC",
      params: ["1995-03-01", "2"],
    },
    sqlserver: {
      sql: "SELECT [o].[o_custkey] AS [ck], SUM([o].[o_totalprice]) AS [total], COUNT_BIG(*) AS [n], COUNT_BIG(DISTINCT [o].[o_clerk]) AS [clerks], MIN([o].[o_comment]) AS [first_comment] FROM [orders] [o] WHERE ([o].[o_orderdate] < CAST(@p1 AS DATE)) GROUP BY [o].[o_custkey] HAVING (COUNT_BIG(*) > CAST(@p2 AS BIGINT)) ORDER BY CASE WHEN SUM([o].[o_totalprice]) IS NULL THEN 0 ELSE 1 END, SUM([o].[o_totalprice]) DESC",
      params: ["1995-03-01", "2"],
    },
    sqlite: {
      sql: "SELECT \"o\".\"o_custkey\" AS \"ck\", SUM(\"o\".\"o_totalprice\") AS \"total\", COUNT(*) AS \"n\", COUNT(DISTINCT RTRIM(\"o\".\"o_clerk\")) AS \"clerks\", MIN(\"o\".\"o_comment\") AS \"first_comment\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_orderdate\" < ?) GROUP BY \"o\".\"o_custkey\" HAVING (COUNT(*) > ?) ORDER BY SUM(\"o\".\"o_totalprice\") DESC NULLS FIRST",
      params: ["1995-03-01", 2n],
    },
  },
  sumOfIntegers: {
    postgresql: {
      sql: "SELECT SUM(\"o\".\"o_shippriority\") AS \"s32\", SUM(\"o\".\"o_orderkey\") AS \"s64\" FROM \"orders\" \"o\"",
      params: [],
    },
    mysql: {
      sql: "SELECT SUM(`o`.`o_shippriority`) AS `s32`, SUM(`o`.`o_orderkey`) AS `s64` FROM `orders` `o`",
      params: [],
    },
    sqlserver: {
      sql: "SELECT SUM(CAST([o].[o_shippriority] AS BIGINT)) AS [s32], SUM(CAST([o].[o_orderkey] AS DECIMAL(38,0))) AS [s64] FROM [orders] [o]",
      params: [],
    },
    sqlite: {
      sql: "SELECT SUM(\"o\".\"o_shippriority\") AS \"s32\", SUM(\"o\".\"o_orderkey\") AS \"s64\" FROM \"orders\" \"o\"",
      params: [],
    },
  },
  nullsOrdering: {
    postgresql: {
      sql: "SELECT \"c\".\"a\" AS \"a\", \"c\".\"b\" AS \"b\" FROM \"customer\" \"c\" ORDER BY \"c\".\"a\" ASC, \"c\".\"a\" ASC NULLS FIRST, \"c\".\"a\" DESC, \"c\".\"a\" DESC NULLS LAST, \"c\".\"b\" ASC LIMIT 10 OFFSET 20",
      params: [],
    },
    mysql: {
      sql: "SELECT `c`.`a` AS `a`, (CONVERT(`c`.`b` USING utf8mb4) COLLATE utf8mb4_nopad_bin) AS `b` FROM `customer` `c` ORDER BY CASE WHEN `c`.`a` IS NULL THEN 1 ELSE 0 END, `c`.`a` ASC, `c`.`a` ASC, CASE WHEN `c`.`a` IS NULL THEN 0 ELSE 1 END, `c`.`a` DESC, `c`.`a` DESC, CASE WHEN (CONVERT(`c`.`b` USING utf8mb4) COLLATE utf8mb4_nopad_bin) IS NULL THEN 1 ELSE 0 END, (CONVERT(`c`.`b` USING utf8mb4) COLLATE utf8mb4_nopad_bin) ASC LIMIT 10 OFFSET 20",
      params: [],
    },
    sqlserver: {
      sql: "SELECT [c].[a] AS [a], [c].[b] AS [b] FROM [customer] [c] ORDER BY CASE WHEN [c].[a] IS NULL THEN 1 ELSE 0 END, [c].[a] ASC, [c].[a] ASC, CASE WHEN [c].[a] IS NULL THEN 0 ELSE 1 END, [c].[a] DESC, [c].[a] DESC, CASE WHEN [c].[b] IS NULL THEN 1 ELSE 0 END, [c].[b] ASC OFFSET 20 ROWS FETCH NEXT 10 ROWS ONLY",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"c\".\"a\" AS \"a\", \"c\".\"b\" AS \"b\" FROM \"customer\" \"c\" ORDER BY \"c\".\"a\" ASC NULLS LAST, \"c\".\"a\" ASC, \"c\".\"a\" DESC NULLS FIRST, \"c\".\"a\" DESC, \"c\".\"b\" ASC NULLS LAST LIMIT 10 OFFSET 20",
      params: [],
    },
  },
  limitOnly: {
    postgresql: {
      sql: "SELECT \"c\".\"a\" AS \"a\" FROM \"customer\" \"c\" LIMIT 5",
      params: [],
    },
    mysql: {
      sql: "SELECT `c`.`a` AS `a` FROM `customer` `c` LIMIT 5",
      params: [],
    },
    sqlserver: {
      sql: "SELECT TOP (5) [c].[a] AS [a] FROM [customer] [c]",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"c\".\"a\" AS \"a\" FROM \"customer\" \"c\" LIMIT 5",
      params: [],
    },
  },
  offsetOnly: {
    postgresql: {
      sql: "SELECT \"c\".\"a\" AS \"a\" FROM \"customer\" \"c\" ORDER BY \"c\".\"a\" ASC OFFSET 7",
      params: [],
    },
    mysql: {
      sql: "SELECT `c`.`a` AS `a` FROM `customer` `c` ORDER BY CASE WHEN `c`.`a` IS NULL THEN 1 ELSE 0 END, `c`.`a` ASC LIMIT 18446744073709551615 OFFSET 7",
      params: [],
    },
    sqlserver: {
      sql: "SELECT [c].[a] AS [a] FROM [customer] [c] ORDER BY CASE WHEN [c].[a] IS NULL THEN 1 ELSE 0 END, [c].[a] ASC OFFSET 7 ROWS",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"c\".\"a\" AS \"a\" FROM \"customer\" \"c\" ORDER BY \"c\".\"a\" ASC NULLS LAST LIMIT -1 OFFSET 7",
      params: [],
    },
  },
  distinctOrdered: {
    postgresql: {
      sql: "SELECT DISTINCT \"c\".\"c_mktsegment\" AS \"seg\" FROM \"customer\" \"c\" ORDER BY \"c\".\"c_mktsegment\" ASC LIMIT 3",
      params: [],
    },
    mysql: {
      sql: "SELECT `_j_distinct`.`seg` FROM (SELECT DISTINCT (CONVERT(`c`.`c_mktsegment` USING utf8mb4) COLLATE utf8mb4_nopad_bin) AS `seg` FROM `customer` `c`) `_j_distinct` ORDER BY CASE WHEN (CONVERT(`_j_distinct`.`seg` USING utf8mb4) COLLATE utf8mb4_nopad_bin) IS NULL THEN 1 ELSE 0 END, (CONVERT(`_j_distinct`.`seg` USING utf8mb4) COLLATE utf8mb4_nopad_bin) ASC LIMIT 3",
      params: [],
    },
    sqlserver: {
      sql: "SELECT TOP (3) [_j_distinct].[seg] FROM (SELECT DISTINCT [c].[c_mktsegment] AS [seg] FROM [customer] [c]) [_j_distinct] ORDER BY CASE WHEN [_j_distinct].[seg] IS NULL THEN 1 ELSE 0 END, [_j_distinct].[seg] ASC",
      params: [],
    },
    sqlite: {
      sql: "SELECT DISTINCT RTRIM(\"c\".\"c_mktsegment\") AS \"seg\" FROM \"customer\" \"c\" ORDER BY RTRIM(\"c\".\"c_mktsegment\") ASC NULLS LAST LIMIT 3",
      params: [],
    },
  },
  keySets: {
    postgresql: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" WHERE (((\"c\".\"c_custkey\" = ANY($1::integer[])) AND (\"c\".\"c_big\" = ANY($2::bigint[]))) AND (((\"c\".\"c_acctbal\" = ANY($3::numeric[])) AND (\"c\".\"c_since\" = ANY($4::date[]))) AND ((\"c\".\"c_name\" = ANY($5::text[])) AND (\"c\".\"c_mktsegment\" = ANY($6::bpchar[])))))",
      params: ["{1,2,3}", "{9007199254740993}", "{\"-1.50\",\"10.00\"}", "{\"1995-03-01\"}", "{\"Al\",\"a,\\\"b\\\"\\\\ {NULL}\"}", "{\"AUTO\"}"],
    },
    mysql: {
      sql: "SELECT `c`.`c_custkey` AS `k` FROM `customer` `c` WHERE (((`c`.`c_custkey` IN (?, ?, ?)) AND (`c`.`c_big` IN (CAST(? AS SIGNED)))) AND (((`c`.`c_acctbal` IN (CAST(? AS DECIMAL(3,2)), CAST(? AS DECIMAL(4,2)))) AND (`c`.`c_since` IN (CAST(? AS DATE)))) AND ((`c`.`c_name` IN (?, ?) AND ((CONVERT(`c`.`c_name` USING utf8mb4) COLLATE utf8mb4_nopad_bin) IN ((CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin), (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin)))) AND (`c`.`c_mktsegment` IN (?) AND ((CONVERT(`c`.`c_mktsegment` USING utf8mb4) COLLATE utf8mb4_nopad_bin) IN ((CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin)))))))",
      params: [1, 2, 3, "9007199254740993", "-1.50", "10.00", "1995-03-01", "Al", "a,\"b\"\\ {NULL}", "Al", "a,\"b\"\\ {NULL}", "AUTO", "AUTO"],
    },
    sqlserver: {
      sql: "SELECT [c].[c_custkey] AS [k] FROM [customer] [c] WHERE ((([c].[c_custkey] IN (@p1, @p2, @p3)) AND ([c].[c_big] IN (CAST(@p4 AS BIGINT)))) AND ((([c].[c_acctbal] IN (CAST(@p5 AS DECIMAL(3,2)), CAST(@p6 AS DECIMAL(4,2)))) AND ([c].[c_since] IN (CAST(@p7 AS DATE)))) AND (([c].[c_name] IN (@p8, @p9)) AND ([c].[c_mktsegment] IN (@p10)))))",
      params: [1, 2, 3, "9007199254740993", "-1.50", "10.00", "1995-03-01", "Al", "a,\"b\"\\ {NULL}", "AUTO"],
    },
    sqlite: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" WHERE (((\"c\".\"c_custkey\" IN (?, ?, ?)) AND (\"c\".\"c_big\" IN (?))) AND (((\"c\".\"c_acctbal\" IN (?, ?)) AND (\"c\".\"c_since\" IN (?))) AND ((\"c\".\"c_name\" IN (?, ?)) AND (RTRIM(\"c\".\"c_mktsegment\") IN (?)))))",
      params: [1n, 2n, 3n, 9007199254740993n, "-1.50", "10.00", "1995-03-01", "Al", "a,\"b\"\\ {NULL}", "AUTO"],
    },
  },
  inList: {
    postgresql: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" WHERE ((\"c\".\"c_custkey\" IN ($1::integer, $2::integer, $3::integer)) OR (\"c\".\"c_name\" NOT IN ($4::text, $5::text)))",
      params: [1, 2, 3, "Al", "Bo"],
    },
    mysql: {
      sql: "SELECT `c`.`c_custkey` AS `k` FROM `customer` `c` WHERE ((`c`.`c_custkey` IN (?, ?, ?)) OR ((CONVERT(`c`.`c_name` USING utf8mb4) COLLATE utf8mb4_nopad_bin) NOT IN ((CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin), (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin))))",
      params: [1, 2, 3, "Al", "Bo"],
    },
    sqlserver: {
      sql: "SELECT [c].[c_custkey] AS [k] FROM [customer] [c] WHERE (([c].[c_custkey] IN (@p1, @p2, @p3)) OR ([c].[c_name] NOT IN (@p4, @p5)))",
      params: [1, 2, 3, "Al", "Bo"],
    },
    sqlite: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" WHERE ((\"c\".\"c_custkey\" IN (?, ?, ?)) OR (\"c\".\"c_name\" NOT IN (?, ?)))",
      params: [1n, 2n, 3n, "Al", "Bo"],
    },
  },
  caseAndCast: {
    postgresql: {
      sql: "SELECT CASE WHEN (\"c\".\"c_acctbal\" < $1::numeric) THEN $2::text WHEN (\"c\".\"c_acctbal\" IS NULL) THEN NULL::text ELSE $3::text END AS \"status\", CASE \"c\".\"c_nationkey\" WHEN $4::integer THEN $5::integer END AS \"mapped\", CAST(\"c\".\"c_since\" AS date) AS \"since\" FROM \"customer\" \"c\"",
      params: ["0", "debt", "ok", 1, 10],
    },
    mysql: {
      sql: "SELECT CASE WHEN (`c`.`c_acctbal` < CAST(? AS DECIMAL(1,0))) THEN (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin) WHEN (`c`.`c_acctbal` IS NULL) THEN NULL ELSE (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin) END AS `status`, CASE `c`.`c_nationkey` WHEN ? THEN ? END AS `mapped`, CAST(`c`.`c_since` AS DATE) AS `since` FROM `customer` `c`",
      params: ["0", "debt", "ok", 1, 10],
    },
    sqlserver: {
      sql: "SELECT CASE WHEN ([c].[c_acctbal] < CAST(@p1 AS DECIMAL(1,0))) THEN @p2 WHEN ([c].[c_acctbal] IS NULL) THEN NULL ELSE @p3 END AS [status], CASE [c].[c_nationkey] WHEN @p4 THEN @p5 END AS [mapped], CAST([c].[c_since] AS DATE) AS [since] FROM [customer] [c]",
      params: ["0", "debt", "ok", 1, 10],
    },
    sqlite: { error: "pushdown_unsupported" },
  },
  likeAndStrings: {
    postgresql: {
      sql: "SELECT (\"c\".\"c_name\" || $1::text || \"c\".\"c_phone\") AS \"label\", LENGTH(\"c\".\"c_name\") AS \"len\" FROM \"customer\" \"c\" WHERE ((\"c\".\"c_name\" LIKE $2::text) AND (\"c\".\"c_mktsegment\" LIKE $3::text))",
      params: ["/", "Cust%_1\\%", "AUTO%"],
    },
    mysql: {
      sql: "SELECT CONCAT((CONVERT(`c`.`c_name` USING utf8mb4) COLLATE utf8mb4_nopad_bin), (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin), (CONVERT(`c`.`c_phone` USING utf8mb4) COLLATE utf8mb4_nopad_bin)) AS `label`, CHAR_LENGTH((CONVERT(`c`.`c_name` USING utf8mb4) COLLATE utf8mb4_nopad_bin)) AS `len` FROM `customer` `c` WHERE (((CONVERT(`c`.`c_name` USING utf8mb4) COLLATE utf8mb4_nopad_bin) LIKE (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin)) AND (RPAD((CONVERT(`c`.`c_mktsegment` USING utf8mb4) COLLATE utf8mb4_nopad_bin), 10, ' ') LIKE (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin)))",
      params: ["/", "Cust%_1\\%", "AUTO%"],
    },
    sqlserver: { error: "pushdown_unsupported" },
    sqlite: {
      sql: "SELECT (\"c\".\"c_name\" || ? || RTRIM(\"c\".\"c_phone\")) AS \"label\", LENGTH(\"c\".\"c_name\") AS \"len\" FROM \"customer\" \"c\" WHERE ((\"c\".\"c_name\" GLOB ?) AND (SUBSTR(RTRIM(\"c\".\"c_mktsegment\") || PRINTF('%10s', ''), 1, 10) GLOB ?))",
      params: ["/", "Cust*?1%", "AUTO*"],
    },
  },
  dateParts: {
    postgresql: {
      sql: "SELECT DATE_PART($1::text, \"o\".\"o_orderdate\") AS \"y\", DATE_PART($2::text, \"o\".\"o_orderdate\") AS \"dow\" FROM \"orders\" \"o\" WHERE (DATE_PART($3::text, \"o\".\"o_orderdate\") = $4::double precision)",
      params: ["year", "dow", "month", 3],
    },
    mysql: {
      sql: "SELECT YEAR(`o`.`o_orderdate`) AS `y`, (DAYOFWEEK(`o`.`o_orderdate`) - 1) AS `dow` FROM `orders` `o` WHERE (MONTH(`o`.`o_orderdate`) = CAST(? AS DOUBLE))",
      params: [3],
    },
    sqlserver: {
      sql: "SELECT DATEPART(year, [o].[o_orderdate]) AS [y], ((DATEPART(weekday, [o].[o_orderdate]) + @@DATEFIRST - 1) % 7) AS [dow] FROM [orders] [o] WHERE (DATEPART(month, [o].[o_orderdate]) = CAST(@p1 AS FLOAT))",
      params: [3],
    },
    sqlite: {
      sql: "SELECT CAST(STRFTIME('%Y', \"o\".\"o_orderdate\") AS INTEGER) AS \"y\", CAST(STRFTIME('%w', \"o\".\"o_orderdate\") AS INTEGER) AS \"dow\" FROM \"orders\" \"o\" WHERE (CAST(STRFTIME('%m', \"o\".\"o_orderdate\") AS INTEGER) = ?)",
      params: [3],
    },
  },
  arithmetic: {
    postgresql: {
      sql: "SELECT (\"o\".\"o_a\" / $1::integer) AS \"idiv\", (\"o\".\"o_a\" % $2::integer) AS \"imod\", (\"o\".\"l_extendedprice\" * ($3::numeric - \"o\".\"l_discount\")) AS \"revenue\" FROM \"lineitem\" \"o\"",
      params: [2, 3, "1"],
    },
    mysql: {
      sql: "SELECT (`o`.`o_a` DIV ?) AS `idiv`, MOD(`o`.`o_a`, ?) AS `imod`, (`o`.`l_extendedprice` * (CAST(? AS DECIMAL(1,0)) - `o`.`l_discount`)) AS `revenue` FROM `lineitem` `o`",
      params: [2, 3, "1"],
    },
    sqlserver: {
      sql: "SELECT ([o].[o_a] / @p1) AS [idiv], ([o].[o_a] % @p2) AS [imod], ([o].[l_extendedprice] * (CAST(@p3 AS DECIMAL(1,0)) - [o].[l_discount])) AS [revenue] FROM [lineitem] [o]",
      params: [2, 3, "1"],
    },
    sqlite: {
      sql: "SELECT (\"o\".\"o_a\" / ?) AS \"idiv\", (\"o\".\"o_a\" % ?) AS \"imod\", (\"o\".\"l_extendedprice\" * (? - \"o\".\"l_discount\")) AS \"revenue\" FROM \"lineitem\" \"o\"",
      params: [2n, 3n, "1"],
    },
  },
  distinctFrom: {
    postgresql: {
      sql: "SELECT (\"c\".\"a\" IS DISTINCT FROM \"c\".\"b\") AS \"differs\" FROM \"customer\" \"c\" WHERE (\"c\".\"a\" IS NOT DISTINCT FROM NULL::integer)",
      params: [],
    },
    mysql: {
      sql: "SELECT (NOT (`c`.`a` <=> `c`.`b`)) AS `differs` FROM `customer` `c` WHERE (`c`.`a` <=> NULL)",
      params: [],
    },
    sqlserver: {
      sql: "SELECT CAST(CASE WHEN (NOT EXISTS (SELECT [c].[a] INTERSECT SELECT [c].[b])) THEN 1 WHEN NOT (NOT EXISTS (SELECT [c].[a] INTERSECT SELECT [c].[b])) THEN 0 END AS BIT) AS [differs] FROM [customer] [c] WHERE (EXISTS (SELECT [c].[a] INTERSECT SELECT NULL))",
      params: [],
    },
    sqlite: {
      sql: "SELECT (\"c\".\"a\" IS NOT \"c\".\"b\") AS \"differs\" FROM \"customer\" \"c\" WHERE (\"c\".\"a\" IS NULL)",
      params: [],
    },
  },
  booleans: {
    postgresql: {
      sql: "SELECT \"c\".\"active\" AS \"active\", (\"c\".\"active\" AND (\"c\".\"a\" > $1::integer)) AS \"both\" FROM \"customer\" \"c\" WHERE (\"c\".\"active\" OR $2::boolean)",
      params: [1, true],
    },
    mysql: {
      sql: "SELECT `c`.`active` AS `active`, (`c`.`active` AND (`c`.`a` > ?)) AS `both` FROM `customer` `c` WHERE (`c`.`active` OR ?)",
      params: [1, 1],
    },
    sqlserver: {
      sql: "SELECT [c].[active] AS [active], CAST(CASE WHEN (([c].[active] = 1) AND ([c].[a] > @p1)) THEN 1 WHEN NOT (([c].[active] = 1) AND ([c].[a] > @p1)) THEN 0 END AS BIT) AS [both] FROM [customer] [c] WHERE (([c].[active] = 1) OR (CAST(@p2 AS BIT) = 1))",
      params: [1, 1],
    },
    sqlite: {
      sql: "SELECT \"c\".\"active\" AS \"active\", (\"c\".\"active\" AND (\"c\".\"a\" > ?)) AS \"both\" FROM \"customer\" \"c\" WHERE (\"c\".\"active\" OR ?)",
      params: [1n, 1],
    },
  },
  windows: {
    postgresql: {
      sql: "SELECT \"o\".\"o_orderkey\" AS \"k\", ROW_NUMBER() OVER (PARTITION BY \"o\".\"o_custkey\" ORDER BY \"o\".\"o_totalprice\" DESC NULLS LAST) AS \"rn\", SUM(\"o\".\"o_totalprice\") OVER () AS \"total\" FROM \"orders\" \"o\"",
      params: [],
    },
    mysql: {
      sql: "SELECT `o`.`o_orderkey` AS `k`, ROW_NUMBER() OVER (PARTITION BY `o`.`o_custkey` ORDER BY `o`.`o_totalprice` DESC) AS `rn`, SUM(`o`.`o_totalprice`) OVER () AS `total` FROM `orders` `o`",
      params: [],
    },
    sqlserver: {
      sql: "SELECT [o].[o_orderkey] AS [k], ROW_NUMBER() OVER (PARTITION BY [o].[o_custkey] ORDER BY [o].[o_totalprice] DESC) AS [rn], SUM([o].[o_totalprice]) OVER () AS [total] FROM [orders] [o]",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"o\".\"o_orderkey\" AS \"k\", ROW_NUMBER() OVER (PARTITION BY \"o\".\"o_custkey\" ORDER BY \"o\".\"o_totalprice\" DESC) AS \"rn\", SUM(\"o\".\"o_totalprice\") OVER () AS \"total\" FROM \"orders\" \"o\"",
      params: [],
    },
  },
  setOpUnionAll: {
    postgresql: {
      sql: "SELECT \"u\".\"k\" AS \"k\", COUNT(*) AS \"n\" FROM (SELECT \"u_l\".\"k\" FROM (SELECT \"o\".\"o_custkey\" AS \"k\" FROM \"orders\" \"o\" ORDER BY \"o\".\"o_totalprice\" DESC LIMIT 10) \"u_l\" UNION ALL SELECT \"c\".\"c_custkey\" AS \"c_custkey\" FROM \"customer\" \"c\" WHERE (\"c\".\"c_custkey\" < $1::integer)) \"u\" GROUP BY \"u\".\"k\"",
      params: [5],
    },
    mysql: {
      sql: "SELECT `u`.`k` AS `k`, COUNT(*) AS `n` FROM (SELECT `u_l`.`k` FROM (SELECT `o`.`o_custkey` AS `k` FROM `orders` `o` ORDER BY CASE WHEN `o`.`o_totalprice` IS NULL THEN 0 ELSE 1 END, `o`.`o_totalprice` DESC LIMIT 10) `u_l` UNION ALL SELECT `c`.`c_custkey` AS `c_custkey` FROM `customer` `c` WHERE (`c`.`c_custkey` < ?)) `u` GROUP BY `u`.`k`",
      params: [5],
    },
    sqlserver: {
      sql: "SELECT [u].[k] AS [k], COUNT_BIG(*) AS [n] FROM (SELECT [u_l].[k] FROM (SELECT TOP (10) [o].[o_custkey] AS [k] FROM [orders] [o] ORDER BY CASE WHEN [o].[o_totalprice] IS NULL THEN 0 ELSE 1 END, [o].[o_totalprice] DESC) [u_l] UNION ALL SELECT [c].[c_custkey] AS [c_custkey] FROM [customer] [c] WHERE ([c].[c_custkey] < @p1)) [u] GROUP BY [u].[k]",
      params: [5],
    },
    sqlite: {
      sql: "SELECT \"u\".\"k\" AS \"k\", COUNT(*) AS \"n\" FROM (SELECT \"u_l\".\"k\" FROM (SELECT \"o\".\"o_custkey\" AS \"k\" FROM \"orders\" \"o\" ORDER BY \"o\".\"o_totalprice\" DESC NULLS FIRST LIMIT 10) \"u_l\" UNION ALL SELECT \"c\".\"c_custkey\" AS \"c_custkey\" FROM \"customer\" \"c\" WHERE (\"c\".\"c_custkey\" < ?)) \"u\" GROUP BY \"u\".\"k\"",
      params: [5n],
    },
  },
  inSubqueryMark: {
    postgresql: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\", (\"c\".\"c_nationkey\" IN (SELECT \"o\".\"o_custkey\" AS \"y\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_totalprice\" > $1::integer))) AS \"hit\", EXISTS (SELECT \"o\".\"o_orderkey\" AS \"o_orderkey\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_custkey\" = \"c\".\"c_custkey\")) AS \"any_order\" FROM \"customer\" \"c\"",
      params: [10],
    },
    mysql: {
      sql: "SELECT `c`.`c_custkey` AS `k`, (`c`.`c_nationkey` IN (SELECT `o`.`o_custkey` AS `y` FROM `orders` `o` WHERE (`o`.`o_totalprice` > ?))) AS `hit`, EXISTS (SELECT `o`.`o_orderkey` AS `o_orderkey` FROM `orders` `o` WHERE (`o`.`o_custkey` = `c`.`c_custkey`)) AS `any_order` FROM `customer` `c`",
      params: [10],
    },
    sqlserver: {
      sql: "SELECT [c].[c_custkey] AS [k], CAST(CASE WHEN ([c].[c_nationkey] IN (SELECT [o].[o_custkey] AS [y] FROM [orders] [o] WHERE ([o].[o_totalprice] > @p1))) THEN 1 WHEN NOT ([c].[c_nationkey] IN (SELECT [o].[o_custkey] AS [y] FROM [orders] [o] WHERE ([o].[o_totalprice] > @p1))) THEN 0 END AS BIT) AS [hit], CAST(CASE WHEN EXISTS (SELECT [o].[o_orderkey] AS [o_orderkey] FROM [orders] [o] WHERE ([o].[o_custkey] = [c].[c_custkey])) THEN 1 WHEN NOT EXISTS (SELECT [o].[o_orderkey] AS [o_orderkey] FROM [orders] [o] WHERE ([o].[o_custkey] = [c].[c_custkey])) THEN 0 END AS BIT) AS [any_order] FROM [customer] [c]",
      params: [10],
    },
    sqlite: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\", (\"c\".\"c_nationkey\" IN (SELECT \"o\".\"o_custkey\" AS \"y\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_totalprice\" > ?))) AS \"hit\", EXISTS (SELECT \"o\".\"o_orderkey\" AS \"o_orderkey\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_custkey\" = \"c\".\"c_custkey\")) AS \"any_order\" FROM \"customer\" \"c\"",
      params: [10n],
    },
  },
  existsSemiAnti: {
    postgresql: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" WHERE (EXISTS (SELECT \"o\".\"o_orderkey\" AS \"o_orderkey\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_custkey\" = \"c\".\"c_custkey\")) AND NOT EXISTS (SELECT \"l\".\"l_orderkey\" AS \"l_orderkey\" FROM \"lineitem\" \"l\" WHERE ((\"l\".\"l_suppkey\" = \"c\".\"c_nationkey\") AND (\"l\".\"l_quantity\" > $1::integer))))",
      params: [40],
    },
    mysql: {
      sql: "SELECT `c`.`c_custkey` AS `k` FROM `customer` `c` WHERE (EXISTS (SELECT `o`.`o_orderkey` AS `o_orderkey` FROM `orders` `o` WHERE (`o`.`o_custkey` = `c`.`c_custkey`)) AND NOT EXISTS (SELECT `l`.`l_orderkey` AS `l_orderkey` FROM `lineitem` `l` WHERE ((`l`.`l_suppkey` = `c`.`c_nationkey`) AND (`l`.`l_quantity` > ?))))",
      params: [40],
    },
    sqlserver: {
      sql: "SELECT [c].[c_custkey] AS [k] FROM [customer] [c] WHERE (EXISTS (SELECT [o].[o_orderkey] AS [o_orderkey] FROM [orders] [o] WHERE ([o].[o_custkey] = [c].[c_custkey])) AND NOT EXISTS (SELECT [l].[l_orderkey] AS [l_orderkey] FROM [lineitem] [l] WHERE (([l].[l_suppkey] = [c].[c_nationkey]) AND ([l].[l_quantity] > @p1))))",
      params: [40],
    },
    sqlite: {
      sql: "SELECT \"c\".\"c_custkey\" AS \"k\" FROM \"customer\" \"c\" WHERE (EXISTS (SELECT \"o\".\"o_orderkey\" AS \"o_orderkey\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_custkey\" = \"c\".\"c_custkey\")) AND NOT EXISTS (SELECT \"l\".\"l_orderkey\" AS \"l_orderkey\" FROM \"lineitem\" \"l\" WHERE ((\"l\".\"l_suppkey\" = \"c\".\"c_nationkey\") AND (\"l\".\"l_quantity\" > ?))))",
      params: [40n],
    },
  },
  subqueryInFrom: {
    postgresql: {
      sql: "SELECT \"s\".\"k\" AS \"k\", COUNT(*) AS \"n\" FROM (SELECT \"o\".\"o_custkey\" AS \"k\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_totalprice\" > $1::numeric) ORDER BY \"o\".\"o_totalprice\" DESC LIMIT 100) \"s\" WHERE (\"s\".\"k\" > $2::integer) GROUP BY \"s\".\"k\"",
      params: ["1000.00", 0],
    },
    mysql: {
      sql: "SELECT `s`.`k` AS `k`, COUNT(*) AS `n` FROM (SELECT `o`.`o_custkey` AS `k` FROM `orders` `o` WHERE (`o`.`o_totalprice` > CAST(? AS DECIMAL(6,2))) ORDER BY CASE WHEN `o`.`o_totalprice` IS NULL THEN 0 ELSE 1 END, `o`.`o_totalprice` DESC LIMIT 100) `s` WHERE (`s`.`k` > ?) GROUP BY `s`.`k`",
      params: ["1000.00", 0],
    },
    sqlserver: {
      sql: "SELECT [s].[k] AS [k], COUNT_BIG(*) AS [n] FROM (SELECT TOP (100) [o].[o_custkey] AS [k] FROM [orders] [o] WHERE ([o].[o_totalprice] > CAST(@p1 AS DECIMAL(6,2))) ORDER BY CASE WHEN [o].[o_totalprice] IS NULL THEN 0 ELSE 1 END, [o].[o_totalprice] DESC) [s] WHERE ([s].[k] > @p2) GROUP BY [s].[k]",
      params: ["1000.00", 0],
    },
    sqlite: {
      sql: "SELECT \"s\".\"k\" AS \"k\", COUNT(*) AS \"n\" FROM (SELECT \"o\".\"o_custkey\" AS \"k\" FROM \"orders\" \"o\" WHERE (\"o\".\"o_totalprice\" > ?) ORDER BY \"o\".\"o_totalprice\" DESC NULLS FIRST LIMIT 100) \"s\" WHERE (\"s\".\"k\" > ?) GROUP BY \"s\".\"k\"",
      params: ["1000.00", 0n],
    },
  },
  derivedOrderDropped: {
    postgresql: {
      sql: "SELECT \"s\".\"k\" AS \"k\" FROM (SELECT \"o\".\"o_custkey\" AS \"k\" FROM \"orders\" \"o\") \"s\"",
      params: [],
    },
    mysql: {
      sql: "SELECT `s`.`k` AS `k` FROM (SELECT `o`.`o_custkey` AS `k` FROM `orders` `o`) `s`",
      params: [],
    },
    sqlserver: {
      sql: "SELECT [s].[k] AS [k] FROM (SELECT [o].[o_custkey] AS [k] FROM [orders] [o]) [s]",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"s\".\"k\" AS \"k\" FROM (SELECT \"o\".\"o_custkey\" AS \"k\" FROM \"orders\" \"o\") \"s\"",
      params: [],
    },
  },
  hostileNames: {
    postgresql: {
      sql: "SELECT \"a\"\"b`c]d\".\"x\"\"; DROP TABLE t; --\" AS \"we`ird\"\"]\" FROM \"s\"\"c`h]\".\"t]a`b\"\"le\" \"a\"\"b`c]d\"",
      params: [],
    },
    mysql: {
      sql: "SELECT `a\"b``c]d`.`x\"; DROP TABLE t; --` AS `we``ird\"]` FROM `s\"c``h]`.`t]a``b\"le` `a\"b``c]d`",
      params: [],
    },
    sqlserver: {
      sql: "SELECT [a\"b`c]]d].[x\"; DROP TABLE t; --] AS [we`ird\"]]] FROM [s\"c`h]]].[t]]a`b\"le] [a\"b`c]]d]",
      params: [],
    },
    sqlite: {
      sql: "SELECT \"a\"\"b`c]d\".\"x\"\"; DROP TABLE t; --\" AS \"we`ird\"\"]\" FROM \"s\"\"c`h]\".\"t]a`b\"\"le\" \"a\"\"b`c]d\"",
      params: [],
    },
  },
  argumentOrder: {
    postgresql: {
      sql: "SELECT POSITION($1::text IN $2::text) AS \"p\" FROM \"customer\" \"c\"",
      params: ["b", "abc"],
    },
    mysql: {
      sql: "SELECT LOCATE((CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin), (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin)) AS `p` FROM `customer` `c`",
      params: ["b", "abc"],
    },
    sqlserver: {
      sql: "SELECT CHARINDEX(@p1, @p2) AS [p] FROM [customer] [c]",
      params: ["b", "abc"],
    },
    sqlite: {
      sql: "SELECT INSTR(?, ?) AS \"p\" FROM \"customer\" \"c\"",
      params: ["abc", "b"],
    },
  },
};


describe('generator: one matrix of RemoteQueries, every dialect, exact SQL and parameters', () => {
  for (const [name, query] of Object.entries(CASES)) {
    for (const engine of ENGINES) {
      it(`${name} / ${engine}`, () => {
        const want = EXPECTED[name][engine];
        const render = () => renderQuery(dialectFor(engine, PROBED[engine]), query);
        if ('error' in want) {
          expect(errorCode(render)).toBe(want.error);
          return;
        }
        const got = render();
        expect(got.sql).toBe(want.sql);
        expect(got.params).toEqual(want.params);
        expect(got.columns).toEqual(query.select.map((s) => ({ name: s.alias, type: s.expr.type, nullable: true })));
      });
    }
  }
});

describe('generator: details', () => {
  const one = (where: RemoteQuery['where'], extra: Partial<RemoteQuery> = {}): RemoteQuery => ({
    select: [{ expr: col('c', 'a', t.int32), alias: 'a' }],
    from: table('customer', 'c'),
    where,
    ...extra,
  });

  it('a linguistic PostgreSQL collation gets COLLATE "C" for ordering only, never for equality', () => {
    const name = col('c', 'name', t.varchar(10));
    const q: RemoteQuery = {
      select: [{ expr: agg('max', [name], t.varchar(10)), alias: 'm' }],
      from: table('customer', 'c'),
      where: call('and', [call('eq', [name, lit('x', t.string)]), call('lt', [name, lit('y', t.string)])]),
      orderBy: [{ expr: agg('max', [name], t.varchar(10)), desc: false, nullsFirst: false }],
    };
    const r = renderQuery(new PostgresDialect(PG_LINGUISTIC), q);
    expect(r.sql).toBe(
      'SELECT MAX("c"."name" COLLATE "C") AS "m" FROM "customer" "c" WHERE (("c"."name" = $1::text) AND ("c"."name" COLLATE "C" < $2::text COLLATE "C")) ORDER BY MAX("c"."name" COLLATE "C") COLLATE "C" ASC',
    );
    expect(r.params).toEqual(['x', 'y']);
  });

  it('MySQL picks the NO PAD binary collation of the probed flavour', () => {
    const q = one(call('eq', [col('c', 's', t.string), lit('x', t.string)]));
    const mysql8 = { ...PROBED.mysql!, serverVersion: '8.0.36' };
    expect(renderQuery(new MysqlDialect(mysql8), q).sql).toBe(
      'SELECT `c`.`a` AS `a` FROM `customer` `c` WHERE (`c`.`s` = ? AND ((CONVERT(`c`.`s` USING utf8mb4) COLLATE utf8mb4_0900_bin) = (CONVERT(? USING utf8mb4) COLLATE utf8mb4_0900_bin)))',
    );
    // Unprobed: the PAD SPACE utf8mb4_bin exists everywhere; capabilities then declare no string exactness.
    expect(renderQuery(new MysqlDialect(), q).sql).toContain('COLLATE utf8mb4_bin)');
  });

  it('MySQL keeps an index usable: a plain comparison in front of the exact one, only for column vs literals on utf8mb4', () => {
    const s = col('c', 's', t.varchar(10));
    const q = one(call('and', [
      { kind: 'in', expr: s, list: [lit('x', t.string), lit('Y', t.string)], negated: false, type: t.bool },
      call('eq', [lit('z', t.string), s]),
    ]));
    const r = renderQuery(new MysqlDialect(PROBED.mysql), q);
    expect(r.sql).toBe(
      'SELECT `c`.`a` AS `a` FROM `customer` `c` WHERE ((`c`.`s` IN (?, ?) AND ((CONVERT(`c`.`s` USING utf8mb4) COLLATE utf8mb4_nopad_bin) IN ((CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin), (CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin)))) AND (`c`.`s` = ? AND ((CONVERT(? USING utf8mb4) COLLATE utf8mb4_nopad_bin) = (CONVERT(`c`.`s` USING utf8mb4) COLLATE utf8mb4_nopad_bin))))',
    );
    expect(r.params).toEqual(['x', 'Y', 'x', 'Y', 'z', 'z']);
    // a latin1 database: the plain comparison could raise "Illegal mix of collations"; exact only
    const latin1 = new MysqlDialect({ ...PROBED.mysql!, defaultCollation: 'latin1_swedish_ci' });
    expect(renderQuery(latin1, q).sql).not.toContain('`c`.`s` IN');
    // column against column (two collations may not mix) and NOT IN stay exact only
    const cc = one(call('eq', [s, col('c', 't', t.varchar(10))]));
    expect(renderQuery(new MysqlDialect(PROBED.mysql), cc).sql).toBe(
      'SELECT `c`.`a` AS `a` FROM `customer` `c` WHERE ((CONVERT(`c`.`s` USING utf8mb4) COLLATE utf8mb4_nopad_bin) = (CONVERT(`c`.`t` USING utf8mb4) COLLATE utf8mb4_nopad_bin))',
    );
  });

  it('a char(n) literal loses its trailing blanks where the engine stores CHAR unpadded', () => {
    const q = one(call('eq', [col('c', 'seg', t.char(10)), lit('AUTO  ', t.char(10))]));
    expect(renderQuery(new MysqlDialect(PROBED.mysql), q).params).toEqual(['AUTO', 'AUTO']);
    expect(renderQuery(new SqliteDialect(), q).params).toEqual(['AUTO']);
    expect(renderQuery(new PostgresDialect(), q).params).toEqual(['AUTO  ']);
    expect(renderQuery(new PostgresDialect(), q).sql).toContain('"c"."seg" = $1::bpchar');
  });

  it('SQL Server names a database in front of the schema; other engines refuse a catalog', () => {
    const q: RemoteQuery = { select: [{ expr: col('p', 'p_partkey', t.int32), alias: 'k' }], from: table('part', 'p', 'dbo', 'tpch') };
    expect(renderFor('sqlserver', q).sql).toBe('SELECT [p].[p_partkey] AS [k] FROM [tpch].[dbo].[part] [p]');
    for (const e of ['postgresql', 'mysql', 'sqlite'] as const) expect(errorCode(() => renderFor(e, q))).toBe('pushdown_unsupported');
    expect(errorCode(() => renderFor('sqlserver', { ...q, from: table('part', 'p', undefined, 'tpch') }))).toBe('pushdown_unsupported');
  });

  it('SQL Server OFFSET without ORDER BY sorts by (SELECT NULL)', () => {
    expect(renderFor('sqlserver', one(undefined, { offset: 3, limit: 2 })).sql).toBe(
      'SELECT [c].[a] AS [a] FROM [customer] [c] ORDER BY (SELECT NULL) OFFSET 3 ROWS FETCH NEXT 2 ROWS ONLY',
    );
  });

  it('a zero offset is left out', () => {
    expect(renderFor('postgresql', one(undefined, { offset: 0, limit: 2 })).sql).toBe('SELECT "c"."a" AS "a" FROM "customer" "c" LIMIT 2');
    expect(renderFor('sqlserver', one(undefined, { offset: 0, limit: 2 })).sql).toBe('SELECT TOP (2) [c].[a] AS [a] FROM [customer] [c]');
  });

  it('rejects names with NUL, bad row counts, and empty IN lists', () => {
    for (const e of ENGINES) {
      expect(errorCode(() => renderFor(e, { ...one(undefined), from: table('a\u0000b', 'c') }))).toBe('bad_identifier');
      expect(errorCode(() => renderFor(e, one(undefined, { limit: -1 })))).toBe('bad_row_count');
      expect(errorCode(() => renderFor(e, one(undefined, { limit: 1.5 })))).toBe('bad_row_count');
      expect(errorCode(() => renderFor(e, one({ kind: 'in', expr: col('c', 'a', t.int32), list: [], negated: false, type: t.bool })))).toBe('empty_in_list');
    }
  });

  it('what a dialect cannot say is an unsupported error, never wrong SQL', () => {
    const s = col('c', 's', t.string);
    expect(errorCode(() => renderFor('mysql', one(call('ilike', [s, lit('a%', t.string)]))))).toBe('pushdown_unsupported');
    expect(errorCode(() => renderFor('sqlserver', one(call('eq', [call('length', [s], t.int32), lit(1, t.int32)]))))).toBe('pushdown_unsupported');
    // SQLite's LIKE ignores case; GLOB needs the pattern at render time.
    expect(errorCode(() => renderFor('sqlite', one(call('like', [s, col('c', 'p', t.string)]))))).toBe('pushdown_unsupported');
    expect(errorCode(() => renderFor('sqlite', one(call('eq', [call('div', [col('c', 'd', t.decimal(15, 2)), lit('2', t.decimal(1, 0))], t.decimal()), lit('1', t.decimal(1, 0))]))))).toBe(
      'pushdown_unsupported',
    );
    const part = (field: string) => one(call('eq', [call('date_part', [lit(field, t.string), col('c', 'd', t.date)], t.float64), lit(1, t.float64)]));
    for (const e of ENGINES.filter((x) => x !== 'postgresql')) expect(errorCode(() => renderFor(e, part('epoch')))).toBe('pushdown_unsupported');
    expect(errorCode(() => renderFor('sqlite', part('second')))).toBe('pushdown_unsupported');
  });

  it('date_part second keeps microseconds exactly in MySQL (no div_precision_increment rounding)', () => {
    const q = one(call('gt', [call('date_part', [lit('second', t.string), col('c', 'ts', t.timestamp)], t.float64), lit(1.5, t.float64)]));
    expect(renderFor('mysql', q, PROBED.mysql).sql).toBe(
      'SELECT `c`.`a` AS `a` FROM `customer` `c` WHERE ((SECOND(`c`.`ts`) + MICROSECOND(`c`.`ts`) * 0.000001) > CAST(? AS DOUBLE))',
    );
  });

  it('MySQL divides integers with DIV and anything else with /', () => {
    const q = one(call('eq', [call('div', [col('c', 'x', t.decimal(15, 2)), col('c', 'y', t.int32)], t.decimal()), lit('1', t.decimal(1, 0))]));
    expect(renderFor('mysql', q, PROBED.mysql).sql).toContain('(`c`.`x` / `c`.`y`)');
  });

  it('a template that repeats an argument repeats its numbered parameter, or its value where placeholders are positional', () => {
    const q: RemoteQuery = {
      select: [{ expr: call('gt', [col('c', 'a', t.int32), lit(7, t.int32)]), alias: 'b' }],
      from: table('customer', 'c'),
      where: call('eq', [col('c', 'a', t.int32), lit(8, t.int32)]),
    };
    const r = renderFor('sqlserver', q);
    expect(r.sql).toBe(
      'SELECT CAST(CASE WHEN ([c].[a] > @p1) THEN 1 WHEN NOT ([c].[a] > @p1) THEN 0 END AS BIT) AS [b] FROM [customer] [c] WHERE ([c].[a] = @p2)',
    );
    expect(r.params).toEqual([7, 8]);
    const m = renderFor('mysql', q, PROBED.mysql);
    expect(m.sql).toBe('SELECT (`c`.`a` > ?) AS `b` FROM `customer` `c` WHERE (`c`.`a` = ?)');
    expect(m.params).toEqual([7, 8]);
  });

  it('a GROUP BY or ORDER BY key that is a select item is written as that item, its parameters the same', () => {
    const year = call('date_part', [lit('year', t.string), col('o', 'd', t.date)], t.float64);
    const q: RemoteQuery = {
      select: [
        { expr: year, alias: 'y' },
        { expr: agg('count_star', [], t.int64), alias: 'n' },
      ],
      from: table('orders', 'o'),
      groupBy: [year],
      orderBy: [{ expr: year, desc: false, nullsFirst: false }],
    };
    const pg = renderFor('postgresql', q);
    expect(pg.sql).toBe(
      'SELECT DATE_PART($1::text, "o"."d") AS "y", COUNT(*) AS "n" FROM "orders" "o" GROUP BY DATE_PART($1::text, "o"."d") ORDER BY DATE_PART($1::text, "o"."d") ASC',
    );
    expect(pg.params).toEqual(['year']);
    // a positional placeholder cannot repeat: each use binds the value again
    const next = call('add', [col('o', 'k', t.int32), lit(1, t.int32)], t.int32);
    const lite = renderFor('sqlite', { ...q, select: [{ expr: next, alias: 'k1' }], groupBy: [next], orderBy: [] });
    expect(lite.sql).toBe('SELECT ("o"."k" + ?) AS "k1" FROM "orders" "o" GROUP BY ("o"."k" + ?)');
    expect(lite.params).toEqual([1n, 1n]);
  });

  it('emulated NULL placement in MySQL and SQL Server; SQLite spells it natively', () => {
    const q = one(undefined, { orderBy: [{ expr: col('c', 'a', t.int32), desc: false, nullsFirst: false }] });
    expect(renderQuery(new MysqlDialect(), q).sql).toBe(
      'SELECT `c`.`a` AS `a` FROM `customer` `c` ORDER BY CASE WHEN `c`.`a` IS NULL THEN 1 ELSE 0 END, `c`.`a` ASC',
    );
    expect(renderQuery(new SqlServerDialect(), q).sql).toBe(
      'SELECT [c].[a] AS [a] FROM [customer] [c] ORDER BY CASE WHEN [c].[a] IS NULL THEN 1 ELSE 0 END, [c].[a] ASC',
    );
    // SQLite before 3.30 had no NULLS FIRST/LAST
    const old = new SqliteDialect({ ...PROBED.sqlite!, serverVersion: '3.22.0' });
    expect(renderQuery(old, q).sql).toBe('SELECT "c"."a" AS "a" FROM "customer" "c" ORDER BY CASE WHEN "c"."a" IS NULL THEN 1 ELSE 0 END, "c"."a" ASC');
    expect(errorCode(() => renderQuery(old, { ...q, from: { kind: 'join', type: 'full', left: table('a'), right: table('b'), on: lit(true, t.bool) } }))).toBe(
      'pushdown_unsupported',
    );
  });
});

describe('likeToGlob', () => {
  it.each([
    ['abc', 'abc'],
    ['a%', 'a*'],
    ['_b_', '?b?'],
    ['100\\%', '100%'],
    ['a\\_b', 'a_b'],
    ['a\\\\b', 'a\\b'],
    ['what?*[x]', 'what[?][*][[]x]'],
    ['%Ünï_cödé%', '*Ünï?cödé*'],
  ])('%s → %s', (like, glob) => {
    expect(likeToGlob(like)).toBe(glob);
  });

  it('a trailing escape is an error, as in PostgreSQL', () => {
    expect(errorCode(() => likeToGlob('abc\\'))).toBe('like_trailing_escape');
  });
});
