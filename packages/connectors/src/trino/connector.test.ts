import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../contract/connector.js';
import { JunctionError } from '../contract/errors.js';
import type { RemoteQuery } from '../contract/remote-query.js';
import { t, type Row } from '../contract/types.js';
import { createConnector } from '../create-connector.js';
import { call, col, lit, table } from '../sql/ir-builders.js';
import { closedPort, collect, sourceFromUrl } from '../../test/support/sources.js';
import { trinoConfig, trinoForTests } from '../../test/support/trino.js';
import { TrinoConnector } from './connector.js';
import { quoteString } from './literals.js';

const trino = await trinoForTests();
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
const PG_CATALOG = `jt_pg_${tag}`;
const MY_CATALOG = `jt_my_${tag}`;
const TPCH_CATALOG = `jt_tpch_${tag}`;
const PG_SCHEMA = `jt_trino_${tag}`;
const MY_TABLE = `jt_trino_cust_${tag}`;

const pgUrl = new URL(process.env.TEST_PG_URL!);
const myUrl = new URL(process.env.TEST_MYSQL_URL!);

/** CREATE CATALOG for a test database, every property value through the one escaping function. */
function createCatalog(name: string, connector: string, url: string, user: string, password: string): string {
  return `CREATE CATALOG ${name} USING ${connector} WITH ("connection-url" = ${quoteString(url)}, "connection-user" = ${quoteString(user)}, "connection-password" = ${quoteString(password)}, "case-insensitive-name-matching" = 'true')`;
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(trino.skip !== undefined)('Trino connector against a live Trino 476', () => {
  let tc: TrinoConnector;
  let pg: Connector;
  let my: Connector;

  beforeAll(async () => {
    tc = new TrinoConnector(trinoConfig(trino.url!, { options: { catalogs: { sales: { catalog: PG_CATALOG, schema: PG_SCHEMA } } } }));
    pg = createConnector(sourceFromUrl(pgUrl.href, 'pg'));
    my = createConnector(sourceFromUrl(myUrl.href, 'my'));
    await pg.execute(`CREATE SCHEMA ${PG_SCHEMA}`);
    await pg.execute(
      `CREATE TABLE ${PG_SCHEMA}.orders (id integer, cust integer, amount numeric(12,2), note varchar(20), code char(5), ts timestamp(6), big bigint)`,
    );
    await pg.execute(`INSERT INTO ${PG_SCHEMA}.orders VALUES
      (1, 10, 1909572716.10, 'Abc', 'AB', '2024-03-05 10:11:12.345678', 9223372036854775807),
      (2, 20, -0.05, 'abc  ', 'XYZ  ', '2024-03-10 00:00:00', -7),
      (3, 30, NULL, NULL, NULL, NULL, NULL),
      (4, 10, 0.00, 'x''y', 'Q', '1999-12-31 23:59:59.5', 2)`);
    await pg.execute(`CREATE SEQUENCE ${PG_SCHEMA}.seq`);
    await my.execute(`CREATE TABLE ${MY_TABLE} (id int PRIMARY KEY, name varchar(20), segment char(10), balance decimal(15,2)) DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci`);
    await my.execute(`INSERT INTO ${MY_TABLE} VALUES (10, 'Mixed Case', 'BUILDING', 1909572716.10), (20, 'trailing  ', 'AUTO', NULL), (30, NULL, NULL, -1.50), (40, 'mixed case', 'BUILDING', 0.00)`);
    const pu = pgUrl;
    await tc.execute(createCatalog(PG_CATALOG, 'postgresql', `jdbc:postgresql://${pu.hostname}:${pu.port || 5432}${pu.pathname}`, decodeURIComponent(pu.username), decodeURIComponent(pu.password)));
    await tc.execute(createCatalog(MY_CATALOG, 'mariadb', `jdbc:mariadb://${myUrl.hostname}:${myUrl.port || 3306}`, decodeURIComponent(myUrl.username), decodeURIComponent(myUrl.password)));
    await tc.execute(`CREATE CATALOG ${TPCH_CATALOG} USING tpch`);
  });

  afterAll(async () => {
    for (const c of [PG_CATALOG, MY_CATALOG, TPCH_CATALOG]) await tc?.execute(`DROP CATALOG IF EXISTS ${c}`).catch(() => undefined);
    await pg?.execute(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`).catch(() => undefined);
    await my?.execute(`DROP TABLE IF EXISTS ${MY_TABLE}`).catch(() => undefined);
    await Promise.all([tc?.close(), pg?.close(), my?.close()]);
  });

  const myDb = decodeURIComponent(myUrl.pathname.slice(1));
  const orders = () => table('orders', 'o', PG_SCHEMA, tc.catalogFor('sales')!.catalog);
  const customer = () => table(MY_TABLE, 'c', myDb, MY_CATALOG);

  it('answers test() and probe() with the server version', async () => {
    const d = await tc.test();
    expect(d).toMatchObject({ ok: true, serverVersion: 'Trino 476' });
    expect((await tc.probe()).serverVersion).toBe('Trino 476');
  });

  it('joins a PostgreSQL and a MariaDB catalog with exact rows and types, NULLs ordered as asked', async () => {
    const q: RemoteQuery = {
      select: [
        { expr: col('o', 'id', t.int32), alias: 'id' },
        { expr: col('o', 'amount', t.decimal(12, 2)), alias: 'amount' },
        { expr: col('o', 'note', t.varchar(20)), alias: 'note' },
        { expr: col('o', 'code', t.char(5)), alias: 'code' },
        { expr: col('o', 'ts', t.timestamp), alias: 'ts' },
        { expr: col('o', 'big', t.int64), alias: 'big' },
        { expr: col('c', 'name', t.varchar(20)), alias: 'name' },
        { expr: col('c', 'segment', t.char(10)), alias: 'segment' },
        { expr: col('c', 'balance', t.decimal(15, 2)), alias: 'balance' },
      ],
      from: {
        kind: 'join',
        type: 'left',
        left: orders(),
        right: customer(),
        on: call('eq', [col('o', 'cust', t.int32), col('c', 'id', t.int32)]),
      },
      orderBy: [
        { expr: col('o', 'note', t.varchar(20)), desc: true, nullsFirst: true },
        { expr: col('o', 'id', t.int32), desc: false, nullsFirst: false },
      ],
    };
    const r = tc.render(q);
    const { rows } = await collect(tc.stream(r, { batchSize: 2 }));
    expect(rows).toEqual<Row[]>([
      [3, null, null, null, null, null, null, null, '-1.50'],
      [4, '0.00', "x'y", 'Q    ', '1999-12-31T23:59:59.5', 2n, 'Mixed Case', 'BUILDING  ', '1909572716.10'],
      [2, '-0.05', 'abc  ', 'XYZ  ', '2024-03-10T00:00:00', -7n, 'trailing  ', 'AUTO      ', null],
      [1, '1909572716.10', 'Abc', 'AB   ', '2024-03-05T10:11:12.345678', 9223372036854775807n, 'Mixed Case', 'BUILDING  ', '1909572716.10'],
    ]);
  });

  it('keeps Junction\'s string semantics on MariaDB data: no PAD SPACE, case-sensitive grouping', async () => {
    const name = col('c', 'name', t.varchar(20));
    const eq = await collect(
      tc.stream(tc.render({ select: [{ expr: col('c', 'id', t.int32), alias: 'id' }], from: customer(), where: call('eq', [name, lit('trailing', t.varchar(20))]) })),
    );
    expect(eq.rows).toEqual([]);
    const grouped = await collect(
      tc.stream(
        tc.render({
          select: [{ expr: name, alias: 'name' }],
          from: customer(),
          distinct: true,
          orderBy: [{ expr: name, desc: false, nullsFirst: true }],
        }),
      ),
    );
    // code-point order: NULL first as asked, 'M' (77) before 'm' (109) before 't'
    expect(grouped.rows).toEqual([[null], ['Mixed Case'], ['mixed case'], ['trailing  ']]);
  });

  it('computes the traps as PostgreSQL does: char(n), integer division, substring from 0, seconds with fraction', async () => {
    const code = col('o', 'code', t.char(5));
    const ts = col('o', 'ts', t.timestamp);
    const q: RemoteQuery = {
      select: [
        { expr: col('o', 'id', t.int32), alias: 'id' },
        { expr: call('length', [code], t.int32), alias: 'len' },
        { expr: call('eq', [code, lit('AB   ', t.char(5))]), alias: 'is_ab' },
        { expr: call('div', [col('o', 'big', t.int64), lit(2n, t.int64)], t.int64), alias: 'half' },
        { expr: call('substring', [col('o', 'note', t.varchar(20)), lit(0, t.int32), lit(3, t.int32)], t.string), alias: 'sub' },
        { expr: call('date_part', [lit('second', t.string), ts], t.decimal()), alias: 'sec' },
        { expr: call('date_part', [lit('dow', t.string), ts], t.float64), alias: 'dow' },
        { expr: call('trim', [col('o', 'note', t.varchar(20))], t.string), alias: 'tr' },
      ],
      from: orders(),
      orderBy: [{ expr: col('o', 'id', t.int32), desc: false, nullsFirst: false }],
    };
    const viaTrino = (await collect(tc.stream(tc.render(q)))).rows;
    const pgQuery: RemoteQuery = { ...q, from: table('orders', 'o', PG_SCHEMA) };
    const viaPg = (await collect(pg.stream(pg.render(pgQuery)))).rows;
    expect(viaTrino).toEqual(viaPg);
    expect(viaTrino).toEqual([
      [1, 2, true, 4611686018427387903n, 'Ab', '12.345678', 2, 'Abc'],
      [2, 3, false, -3n, 'ab', '0.000000', 0, 'abc'],
      [3, null, null, null, null, null, null, null],
      [4, 1, false, 1n, "x'", '59.500000', 5, "x'y"],
    ]);
  });

  it('shows Trino\'s distributed plan', async () => {
    const plan = await tc.explainDistributed(tc.render({ select: [{ expr: col('o', 'id', t.int32), alias: 'id' }], from: orders() }).sql);
    expect(plan).toMatch(/^Fragment 0 \[/m);
    expect(plan).toContain(`${PG_CATALOG}:${PG_SCHEMA}.orders`);
  });

  it('cancels a long query on Trino when the signal aborts', async () => {
    const marker = `jt_cancel_${tag}`;
    const ac = new AbortController();
    const sql = `SELECT /* ${marker} */ count(*) FROM ${TPCH_CATALOG}.sf100.lineitem a CROSS JOIN ${TPCH_CATALOG}.sf100.orders b WHERE a.orderkey + b.orderkey = 7`;
    const outcome = collect(tc.stream({ sql, params: [], columns: [{ name: 'n', type: t.int64, nullable: true }] }, { signal: ac.signal })).then(
      () => undefined,
      (e: unknown) => e,
    );
    const info = async () => {
      const res = await fetch(new URL('/v1/query', trino.url), { headers: { 'X-Trino-User': 'junction' } });
      const all = (await res.json()) as { query: string; state: string; errorCode?: { name: string } }[];
      return all.find((q) => q.query.includes(marker));
    };
    await until('the query to run on Trino', async () => (await info())?.state === 'RUNNING');
    ac.abort();
    const err = await outcome;
    expect(err).toBeInstanceOf(JunctionError);
    expect((err as JunctionError).kind).toBe('cancelled');
    expect((err as JunctionError).code).toBe('source_statement_cancelled');
    await until('Trino to end the query', async () => (await info())?.state === 'FAILED');
    expect((await info())?.errorCode?.name).toBe('USER_CANCELED');
  });

  it('cancels the query on Trino when the consumer stops reading early', async () => {
    const marker = `jt_break_${tag}`;
    const columns = [{ name: 'k', type: t.int64, nullable: true }];
    let batches = 0;
    for await (const b of tc.stream({ sql: `SELECT /* ${marker} */ orderkey FROM ${TPCH_CATALOG}.sf100.lineitem`, params: [], columns }, { batchSize: 100 })) {
      expect(b.rows).toHaveLength(100);
      expect(typeof b.rows[0][0]).toBe('bigint');
      if (++batches === 2) break;
    }
    const info = async () => {
      const res = await fetch(new URL('/v1/query', trino.url), { headers: { 'X-Trino-User': 'junction' } });
      return ((await res.json()) as { query: string; state: string; errorCode?: { name: string } }[]).find((q) => q.query.includes(marker));
    };
    await until('Trino to end the query', async () => (await info())?.state === 'FAILED');
    expect((await info())?.errorCode?.name).toBe('USER_CANCELED');
  });

  it('stops a query at its timeout with kind timeout', async () => {
    const sql = `SELECT count(*) FROM ${TPCH_CATALOG}.sf100.lineitem`;
    const err = await collect(tc.stream({ sql, params: [], columns: [] }, { timeoutMs: 300 })).then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'source_statement_timeout', kind: 'timeout' });
  });

  it('turns a catalog with a wrong password into a clear error naming Trino\'s errorName', async () => {
    const bad = `jt_bad_${tag}`;
    await tc.execute(createCatalog(bad, 'postgresql', `jdbc:postgresql://${pgUrl.hostname}:${pgUrl.port || 5432}${pgUrl.pathname}`, 'junction', 'not-the-password'));
    try {
      const err = await collect(tc.stream(tc.render({ select: [{ expr: col('o', 'id', t.int32), alias: 'id' }], from: table('orders', 'o', PG_SCHEMA, bad) }))).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(JunctionError);
      expect((err as JunctionError).code).toBe('source_error');
      expect((err as JunctionError).details).toMatchObject({ source: 'trino', errorName: 'JDBC_ERROR', errorType: 'EXTERNAL' });
      expect((err as JunctionError).message).toMatch(/^Source "trino" failed the query: JDBC_ERROR: .*password authentication failed for user "junction"/);
      expect((err as JunctionError).message).not.toContain('not-the-password');
    } finally {
      await tc.execute(`DROP CATALOG IF EXISTS ${bad}`);
    }
  });

  it('raises division by zero as the data error Junction raises', async () => {
    const q: RemoteQuery = { select: [{ expr: call('div', [col('o', 'id', t.int32), lit(0, t.int32)], t.int32), alias: 'x' }], from: orders() };
    await expect(collect(tc.stream(tc.render(q)))).rejects.toMatchObject({ code: 'division_by_zero', kind: 'user' });
  });

  it('runs read-only statements in a READ ONLY transaction and refuses writes', async () => {
    expect((await tc.execute('SELECT ? + 1', [41], { readOnly: true })).rows).toEqual([[42]]);
    await expect(tc.execute(`CREATE TABLE ${PG_CATALOG}.${PG_SCHEMA}.nope (a integer)`, [], { readOnly: true })).rejects.toMatchObject({
      code: 'native_not_read_only',
    });
    await expect(tc.execute(`EXPLAIN ANALYZE SELECT 1`, [], { readOnly: true })).rejects.toMatchObject({ code: 'native_not_read_only' });
    // a query that would write in the source is refused there, and said so in Junction's words
    const nextval = `SELECT * FROM TABLE(${PG_CATALOG}.system.query(query => 'SELECT nextval(''${PG_SCHEMA}.seq'') AS n'))`;
    await expect(tc.execute(nextval, [], { readOnly: true })).rejects.toMatchObject({ code: 'native_not_read_only' });
    expect((await pg.execute(`SELECT last_value, is_called FROM ${PG_SCHEMA}.seq`)).rows).toEqual([[1n, false]]);
  });
});

describe('Trino connector without a Trino', () => {
  it('says source_unavailable when nothing listens', async () => {
    const port = await closedPort();
    const tc = new TrinoConnector({ name: 'trino', engine: 'trino', host: '127.0.0.1', port });
    try {
      const err = await collect(tc.stream({ sql: 'SELECT 1', params: [], columns: [] })).then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'source_unavailable', kind: 'external', details: { source: 'trino', diagnosis: 'port_closed' } });
      expect(await tc.test()).toMatchObject({ ok: false, code: 'port_closed' });
    } finally {
      await tc.close();
    }
  });
});
