-- A pgbench custom script (pgbench -n -M prepared -f pgbench_point.sql) for the client harness:
-- a parameterised point query on the fixture table pgc_types whose answer the script checks.
-- With -M prepared every :variable in a query is sent as a parameter ($1, $2) of a statement
-- prepared once per client. A wrong answer runs a failing statement, so the client aborts and
-- pgbench exits 2 ("client N script 0 aborted ...").
\set id random(1, 2)
\set k random(1, 1000000)
SELECT id AS got_id, :k::int8 * 2 AS got_k2 FROM pgc_types WHERE id = :id \gset
\if :got_id != :id
  SELECT 1 / 0 AS wrong_row;
\elif :got_k2 != 2 * :k
  SELECT 1 / 0 AS wrong_parameter;
\endif
