import { tpchQueries } from '@junction/tpch';

/**
 * Issue 30's shapes (shapes.ts runs them): the SQL is the same text direct and federated, its
 * tables found through the federated search path. a: TPC-H Q19; b*: IN (subquery) over another
 * source; c*: window functions over a cross-source join; d*: chains of outer joins.
 */
export const SHAPES: Readonly<Record<string, string>> = {
  a: tpchQueries().find((q) => q.number === 19)!.sql,
  b1: `SELECT count(*) AS n, sum(o_totalprice) AS total FROM orders
WHERE o_custkey IN (SELECT c_custkey FROM customer WHERE c_acctbal > 9900)`,
  b2: `SELECT count(*) AS n, sum(l_extendedprice) AS total FROM lineitem
WHERE l_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')`,
  b3: `SELECT o_orderkey, o_orderdate, o_totalprice FROM orders
WHERE o_custkey IN (SELECT c_custkey FROM customer WHERE c_nationkey = 7 AND c_mktsegment = 'AUTOMOBILE')
  AND o_orderdate >= DATE '1998-06-01'`,
  c: `SELECT c_custkey, c_name, o_orderkey, o_totalprice,
  rank() OVER (PARTITION BY c_custkey ORDER BY o_totalprice DESC) AS r,
  sum(o_totalprice) OVER (PARTITION BY c_custkey) AS customer_total
FROM customer JOIN orders ON o_custkey = c_custkey
WHERE c_custkey <= 100`,
  c2: `SELECT c_name, o_orderdate, o_totalprice,
  row_number() OVER (PARTITION BY c_nationkey ORDER BY o_totalprice DESC, o_orderkey) AS rn,
  avg(o_totalprice) OVER (PARTITION BY c_custkey) AS customer_avg
FROM customer JOIN orders ON o_custkey = c_custkey
WHERE c_acctbal > 9990 AND o_orderstatus = 'F'`,
  c3: `SELECT o_orderkey, l_linenumber, l_extendedprice,
  sum(l_extendedprice) OVER (PARTITION BY o_orderkey ORDER BY l_linenumber) AS running,
  lag(l_extendedprice) OVER (ORDER BY o_orderkey, l_linenumber) AS previous
FROM orders JOIN lineitem ON l_orderkey = o_orderkey JOIN customer ON c_custkey = o_custkey
WHERE c_name = 'Customer#000000043'`,
  d1: `SELECT c_custkey, o_orderkey, l_linenumber, l_quantity
FROM customer
  LEFT JOIN orders ON o_custkey = c_custkey AND o_orderdate >= DATE '1998-01-01'
  LEFT JOIN lineitem ON l_orderkey = o_orderkey AND l_quantity > 45
WHERE c_custkey <= 3000`,
  d2: `SELECT n_name, c_custkey, o_orderkey
FROM nation
  LEFT JOIN customer ON c_nationkey = n_nationkey AND c_acctbal > 9990
  LEFT JOIN orders ON o_custkey = c_custkey AND o_orderpriority = '1-URGENT'`,
  d3: `SELECT c_custkey, c_name FROM customer LEFT JOIN orders ON o_custkey = c_custkey
WHERE o_orderkey IS NULL AND c_nationkey = 3`,
  d4: `SELECT n_name, count(c_custkey) AS customers, count(o_orderkey) AS orders, count(l_orderkey) AS returned
FROM nation
  LEFT JOIN customer ON c_nationkey = n_nationkey AND c_mktsegment = 'MACHINERY' AND c_acctbal > 9000
  LEFT JOIN orders ON o_custkey = c_custkey AND o_orderdate >= DATE '1998-01-01'
  LEFT JOIN lineitem ON l_orderkey = o_orderkey AND l_returnflag = 'R'
GROUP BY n_name`,
  d5: `SELECT c_custkey, o_orderkey, l_linenumber
FROM customer
  LEFT JOIN orders ON o_custkey = c_custkey
  LEFT JOIN lineitem ON l_orderkey = o_orderkey AND l_shipdate > DATE '1998-11-01'
WHERE c_nationkey = 9 AND c_mktsegment = 'HOUSEHOLD'`,
};
