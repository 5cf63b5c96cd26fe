import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Value } from '@junction/connectors';
import { collectRows, createEnvironment, type SltEnvironment } from '../../../test/slt/environment.js';
import { formatRows } from '../../../test/slt/slt-file.js';
import { rewriteOdbc } from '../odbc.js';
import { tpchQueries } from '@junction/tpch';

/** TPC-H 1–22 (@junction/tpch's workload/tpch), by id. */
const TPCH_QUERIES: Record<string, string> = Object.fromEntries(tpchQueries().map((q) => [q.id, q.sql]));

/**
 * The 22 TPC-H queries, federated over the JDV layout (dbA/dbB on PostgreSQL, dbC/dbD on
 * MariaDB, TPC-H SF 0.01 loaded into fresh jt_slt_* databases that are dropped afterwards),
 * return exactly the rows PostgreSQL returns for the same SQL on one database holding all
 * tables, with pushdown on and off. This checks the binder's semantics (decorrelation,
 * NULL-aware anti joins, OR factoring, literal typing) end to end.
 */
let env: SltEnvironment;
beforeAll(async () => {
  env = await createEnvironment(0.01);
}, 900_000);
afterAll(async () => {
  await env?.close();
});

/** Qualifies each table with its JDV source: the federated form of the query. */
function qualify(sql: string): string {
  const map: Record<string, string> = {
    orders: 'dbA.orders',
    lineitem: 'dbA.lineitem',
    customer: 'dbB.customer',
    part: 'dbC.part',
    supplier: 'dbC.supplier',
    partsupp: 'dbC.partsupp',
    nation: 'dbD.nation',
    region: 'dbD.region',
  };
  return sql.replace(
    /\b(from|,|join)\s+(orders|lineitem|customer|partsupp|part|supplier|nation|region)\b/gi,
    (_m, kw, t) => `${kw} ${map[t.toLowerCase()]}`,
  );
}

it.each(Object.keys(TPCH_QUERIES))(
  '%s',
  async (q) => {
    const sql = TPCH_QUERIES[q];
    const direct = formatRows((await env.direct.execute(sql)).rows as Value[][], 'rowsort');
    const fed = qualify(sql);
    for (const pushdown of [true, false]) {
      const got = formatRows((await collectRows(env.engine, fed, [], pushdown)).rows, 'rowsort');
      expect(got, `${q} pushdown=${pushdown}\n${fed}`).toEqual(direct);
    }
  },
  300_000,
);

/** Binder semantics traps: each runs federated through Junction and directly on PostgreSQL. */
const TRAPS: { sql: string; ordered?: boolean }[] = [
  // NOT IN with a NULL in the subquery: no rows at all
  {
    sql: 'select c_custkey from customer where c_custkey < 20 and c_custkey not in (select case when o_orderkey = 1 then null else o_custkey end from orders)',
  },
  // NOT IN over an empty subquery keeps every row, NULL probe values included
  {
    sql: 'select n_nationkey from nation where (case when n_nationkey = 3 then null else n_nationkey end) not in (select r_regionkey from region where r_regionkey > 100)',
  },
  // NOT IN where the probe side is NULL and the subquery is not empty: the NULL row goes
  {
    sql: 'select n_nationkey from nation where (case when n_nationkey < 3 then null else n_nationkey end) not in (select r_regionkey from region)',
  },
  // correlated EXISTS / NOT EXISTS with a non-equality correlation
  {
    sql: 'select o_orderkey from orders where o_orderkey < 200 and exists (select 1 from lineitem where l_orderkey = o_orderkey and l_quantity > 45)',
  },
  {
    sql: 'select o_orderkey from orders where o_orderkey < 200 and not exists (select 1 from lineitem where l_orderkey = o_orderkey and l_linenumber > 5 and l_suppkey <> o_custkey)',
  },
  // correlated count: zero, not NULL, for customers without orders
  {
    sql: 'select c_custkey, (select count(*) from orders where o_custkey = c_custkey) as n from customer where c_custkey < 30',
  },
  {
    sql: 'select c_custkey from customer where c_custkey < 60 and 0 = (select count(*) from orders where o_custkey = c_custkey)',
  },
  // correlated aggregate compared per row, uncorrelated one-row subquery joined
  {
    sql: 'select o_orderkey from orders o where o_orderkey < 500 and o_totalprice > (select avg(o2.o_totalprice) from orders o2 where o2.o_custkey = o.o_custkey)',
  },
  { sql: 'select c_custkey from customer where c_acctbal > (select avg(c_acctbal) + 1000 from customer)' },
  // char(n) padding and comparisons, LIKE on char keeps the padding, concatenation drops it
  { sql: "select n_name || '|', length(n_name), n_name like 'CHINA' from nation where n_name = 'CHINA'" },
  // NULL ordering: ASC → NULLS LAST, DESC → NULLS FIRST, explicit overrides
  {
    sql: 'select n_nationkey, case when n_nationkey % 4 = 0 then null else n_nationkey % 4 end as k from nation order by k desc, n_nationkey',
    ordered: true,
  },
  {
    sql: 'select n_nationkey, case when n_nationkey % 4 = 0 then null else n_nationkey % 4 end as k from nation order by k nulls first, n_nationkey desc',
    ordered: true,
  },
  // USING, derived tables with column aliases, CTE referenced twice, UNION of mixed numeric types
  {
    sql: 'select * from (select n_regionkey as k, n_name from nation) a join (select r_regionkey as k, r_name from region) b using (k)',
  },
  {
    sql: 'with t as (select c_nationkey as n, count(*) as c from customer group by c_nationkey) select a.n, a.c + b.c from t a join t b on a.n = b.n + 1',
  },
  {
    sql: 'select c_custkey from customer where c_custkey < 5 union select c_acctbal from customer where c_custkey < 3 union all select 2.5',
  },
  // integer division truncates, decimal division scale, avg of integers
  {
    sql: 'select c_nationkey, sum(c_custkey) / count(*), avg(c_custkey), sum(c_acctbal) / 7, 7 / 2, -7 / 2 from customer group by c_nationkey',
  },
  // dates: unknown literals as dates, interval arithmetic folded, ODBC timestamp escape
  {
    sql: "select count(*) from orders where o_orderdate between '1995-01-01' and date '1995-01-01' + interval '1' month and o_orderdate < {ts '1995-01-20 00:00:00'}",
  },
  // FILTER, count DISTINCT, HAVING, windows over grouped rows
  {
    sql: 'select c_nationkey, count(*) filter (where c_acctbal > 0), count(distinct c_mktsegment), rank() over (order by sum(c_acctbal) desc) from customer group by c_nationkey having count(*) > 1',
  },
];

it.each(TRAPS.map((t, i) => [i + 1, t] as const))(
  'binder trap %i',
  async (_i, trap) => {
    const direct = (await env.direct.execute(rewriteOdbc(trap.sql).text)).rows as Value[][];
    const fed = qualify(trap.sql);
    for (const pushdown of [true, false]) {
      const got = (await collectRows(env.engine, fed, [], pushdown)).rows;
      const mode = trap.ordered ? 'nosort' : 'rowsort';
      expect(formatRows(got, mode), `pushdown=${pushdown}\n${fed}`).toEqual(formatRows(direct, mode));
    }
  },
  300_000,
);
