import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { renderFor, type RemoteQuery } from '@junction/connectors';
import type { LogicalPlan } from '../plan/logical.js';
import { PlanBuilder, and, call, col, eq, gt, lit, lt, param, remote } from '../optimizer/test-support.js';
import { toRemoteQuery } from './remote-query.js';

const url = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const schema = `jt_remote_query_${Math.random().toString(36).slice(2, 8)}`;
const client = new pg.Client({ connectionString: url });

beforeAll(async () => {
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`CREATE TABLE ${schema}.customer (c_custkey bigint, c_name varchar(25))`);
  await client.query(`CREATE TABLE ${schema}.orders (o_orderkey bigint, o_custkey bigint, o_totalprice numeric(15,2))`);
  await client.query(`INSERT INTO ${schema}.customer VALUES (1,'a'),(2,'b'),(3,'c')`);
  await client.query(
    `INSERT INTO ${schema}.orders VALUES (10,1,5.00),(11,1,7.50),(12,2,1.25),(13,2,100.00),(14,NULL,3.00)`,
  );
});

afterAll(async () => {
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.end();
});

function tables() {
  const b = new PlanBuilder();
  const c = b.scan('dbB', 'customer', { c_custkey: 'int64', c_name: 'varchar(25)' }, undefined, schema);
  const o = b.scan(
    'dbB',
    'orders',
    { o_orderkey: 'int64', o_custkey: 'int64', o_totalprice: 'decimal(15,2)' },
    undefined,
    schema,
  );
  return { b, c, o };
}

const sqlOf = (q: RemoteQuery) => renderFor('postgresql', q).sql.replaceAll(`"${schema}"`, '"S"');

async function rows(q: RemoteQuery): Promise<string[]> {
  const r = renderFor('postgresql', q);
  const res = await client.query({
    text: r.sql,
    values: r.params.map((v) => (typeof v === 'bigint' ? v.toString() : v)),
    rowMode: 'array',
  });
  return res.rows.map((row: unknown[]) => row.map((v) => (v === null ? 'NULL' : String(v))).join('|'));
}

function convert(plan: LogicalPlan, params: unknown[] = []): RemoteQuery {
  return toRemoteQuery(remote(plan) as Extract<LogicalPlan, { kind: 'Remote' }>, params as never);
}

describe('toRemoteQuery', () => {
  it('names each table as the engine running the statement does when that is not its source', () => {
    const b = new PlanBuilder();
    const o = b.scan('dbA', 'orders', { o_orderkey: 'int64' });
    const c = b.scan('dbB', 'customer', { c_custkey: 'int64' }, undefined, 'sales');
    const j = b.join('inner', o, c, eq(col(o, 'o_orderkey'), col(c, 'c_custkey')));
    const q = toRemoteQuery(remote(j) as Extract<LogicalPlan, { kind: 'Remote' }>, [], (t) => ({ catalog: `${t.source.toLowerCase()}_cat`, schema: t.source === 'dbB' ? 'crm' : t.schema, table: t.table }));
    expect(q.from).toMatchObject({
      kind: 'join',
      left: { kind: 'table', catalog: 'dba_cat', schema: 'public', table: 'orders' },
      right: { kind: 'table', catalog: 'dbb_cat', schema: 'crm', table: 'customer' },
    });
  });

  it('renders filter, projection, sort and limit as one SELECT with the Remote fields in order', async () => {
    const { b, o } = tables();
    const f = b.filter(o, gt(col(o, 'o_totalprice'), lit('2', 'decimal')));
    const p = b.project(f, [
      ['price', col(f, 'o_totalprice')],
      ['key', col(f, 'o_orderkey')],
    ]);
    const q = convert(b.limit(b.sort(p, [['price', 'desc']]), 2, 1));
    expect(sqlOf(q)).toBe(
      'SELECT "orders"."o_totalprice" AS "price", "orders"."o_orderkey" AS "key" FROM "S"."orders" "orders" WHERE ("orders"."o_totalprice" > $1::numeric) ORDER BY "orders"."o_totalprice" DESC LIMIT 2 OFFSET 1',
    );
    expect(await rows(q)).toEqual(['7.50|11', '5.00|10']);
  });

  it('turns a filter over an aggregate into HAVING and nests what a filter above a limit reads', async () => {
    const { b, o } = tables();
    const a = b.aggregate(
      b.filter(o, lt(col(o, 'o_orderkey'), param(0, 'int64'))),
      ['o_custkey'],
      [['total', 'sum', [col(o, 'o_totalprice')]]],
    );
    const h = b.filter(a, gt(col(a, 'total'), lit('4', 'decimal')));
    const top = b.limit(b.sort(h, [['total', 'desc']]), 2);
    const q = convert(b.filter(top, gt(col(top, 'total'), lit('50', 'decimal'))), [100n]);
    expect(sqlOf(q)).toBe(
      'SELECT "s"."o_custkey" AS "o_custkey", "s"."total" AS "total" FROM (SELECT "orders"."o_custkey" AS "o_custkey", SUM("orders"."o_totalprice") AS "total" FROM "S"."orders" "orders" WHERE ("orders"."o_orderkey" < $1::bigint) GROUP BY "orders"."o_custkey" HAVING (SUM("orders"."o_totalprice") > $2::numeric) ORDER BY SUM("orders"."o_totalprice") DESC LIMIT 2) "s" WHERE ("s"."total" > $3::numeric)',
    );
    expect(await rows(q)).toEqual(['2|101.25']);
  });

  it('puts a null-supplying side filter into ON, a preserved side filter into WHERE, and nests a limited side', async () => {
    const { b, c, o } = tables();
    const right = b.limit(
      b.sort(b.filter(o, gt(col(o, 'o_totalprice'), lit('2', 'decimal'))), [['o_orderkey', 'asc']]),
      3,
    );
    const j = b.join(
      'left',
      b.filter(c, lt(col(c, 'c_custkey'), lit(3))),
      right,
      eq(col(c, 'c_custkey'), col(o, 'o_custkey')),
    );
    const q = convert(b.select(j, ['c_name', 'o_orderkey']));
    expect(sqlOf(q)).toBe(
      'SELECT "customer"."c_name" AS "c_name", "s"."o_orderkey" AS "o_orderkey" FROM "S"."customer" "customer" LEFT JOIN (SELECT "orders"."o_orderkey" AS "o_orderkey", "orders"."o_custkey" AS "o_custkey", "orders"."o_totalprice" AS "o_totalprice" FROM "S"."orders" "orders" WHERE ("orders"."o_totalprice" > $1::numeric) ORDER BY "orders"."o_orderkey" ASC LIMIT 3) "s" ON ("customer"."c_custkey" = "s"."o_custkey") WHERE ("customer"."c_custkey" < $2::bigint)',
    );
    expect((await rows(q)).sort()).toEqual(['a|10', 'a|11', 'b|13']);
  });

  it('moves a filter on the null-supplying side into ON without nesting', async () => {
    const { b, c, o } = tables();
    const j = b.join(
      'left',
      c,
      b.filter(o, gt(col(o, 'o_totalprice'), lit('6', 'decimal'))),
      eq(col(c, 'c_custkey'), col(o, 'o_custkey')),
    );
    const q = convert(b.select(j, ['c_name', 'o_orderkey']));
    expect(sqlOf(q)).toBe(
      'SELECT "customer"."c_name" AS "c_name", "orders"."o_orderkey" AS "o_orderkey" FROM "S"."customer" "customer" LEFT JOIN "S"."orders" "orders" ON (("customer"."c_custkey" = "orders"."o_custkey") AND ("orders"."o_totalprice" > $1::numeric))',
    );
    expect((await rows(q)).sort()).toEqual(['a|11', 'b|13', 'c|NULL']);
  });

  it('renders an inner join whose condition was pushed into its inputs as CROSS JOIN', async () => {
    const { b, c, o } = tables();
    const j = b.join(
      'inner',
      b.filter(c, eq(col(c, 'c_custkey'), lit(3))),
      b.filter(o, eq(col(o, 'o_orderkey'), lit(12))),
    );
    const q = convert(b.select(j, ['c_name', 'o_orderkey']));
    expect(sqlOf(q)).toBe(
      'SELECT "customer"."c_name" AS "c_name", "orders"."o_orderkey" AS "o_orderkey" FROM "S"."customer" "customer" CROSS JOIN "S"."orders" "orders" WHERE (("customer"."c_custkey" = $1::bigint) AND ("orders"."o_orderkey" = $2::bigint))',
    );
    expect(await rows(q)).toEqual(['c|12']);
  });

  it('gives duplicate output names unique aliases and keeps the select list equal to the Remote fields', () => {
    const { b, o } = tables();
    const p = b.project(o, [
      ['x', col(o, 'o_orderkey')],
      ['x', call('add', col(o, 'o_custkey'), lit(1))],
      ['9 lives', col(o, 'o_custkey')],
    ]);
    const q = convert(p);
    expect(q.select.map((s) => s.alias)).toEqual(['x', 'x_2', 'c9_lives']);
  });

  it('fails with a user error when a parameter has no value', () => {
    const { b, o } = tables();
    expect(() => convert(b.filter(o, and(eq(col(o, 'o_custkey'), param(1, 'int64')))), [1n])).toThrow(/parameter \$2/);
  });
});
