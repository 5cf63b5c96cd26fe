import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrinoConnector } from '@junction/connectors';
import { trinoConfig, trinoForTests } from '../../../../packages/connectors/test/support/trino.js';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, TEST_MYSQL_URL, type Harness } from '../../test/harness.js';
import { until } from '../../test/wait.js';

/**
 * The Trino backend as the server runs it: sources placed in catalogs when registered, queries
 * asking for Trino answered by it with the rows Junction gives locally, grants checked first,
 * catalogs dropped with their source, and a Trino that cannot be reached named as the reason.
 */
const trino = await trinoForTests();
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
const myDb = `jt_trs_${tag}`;

const JOIN = 'SELECT o.id, o.amount, c.name FROM "ordersA".orders o LEFT JOIN "custD".customers c ON o.cust = c.id ORDER BY o.id';

describe.skipIf(trino.skip !== undefined)('the Trino backend of a running server', () => {
  let h: Harness;
  let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
  let dir: string;
  let tc: TrinoConnector;
  const catalogs = async (): Promise<string[]> => (await tc.execute('SHOW CATALOGS')).rows.map((r) => String(r[0]));
  const query = (role: 'admin' | 'analyst', sql: string, engine?: string) =>
    h.as(role, { method: 'POST', url: '/api/v1/query', payload: { sql, ...(engine ? { engine } : {}) } });

  beforeAll(async () => {
    tc = new TrinoConnector(trinoConfig(trino.url!));
    pgdb = await createPgDatabase('api_trs');
    await pgExec(
      pgdb.url,
      `CREATE TABLE public.orders (id int PRIMARY KEY, cust int, amount numeric(12,2));
       INSERT INTO public.orders VALUES (1, 10, 1909572716.10), (2, 20, NULL), (3, 99, -0.05);`,
    );
    const my = await mysql.createConnection(TEST_MYSQL_URL);
    await my.query(`CREATE DATABASE ${myDb}`);
    await my.query(`CREATE TABLE ${myDb}.customers (id int PRIMARY KEY, name varchar(20))`);
    await my.query(`INSERT INTO ${myDb}.customers VALUES (10, 'Mixed Case'), (20, 'trailing  ')`);
    await my.end();
    dir = mkdtempSync(path.join(os.tmpdir(), 'jt-trs-'));
    const lite = new Database(path.join(dir, 'lite.db'));
    lite.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO notes VALUES (1, \'first\');');
    lite.close();

    const u = trino.url!;
    h = await startHarness({ trino: { config: trinoConfig(u) } });
    const my2 = new URL(TEST_MYSQL_URL);
    for (const payload of [
      pgSourcePayload('ordersA', pgdb),
      { name: 'custD', engine: 'mysql', host: my2.hostname, port: Number(my2.port), database: myDb, user: my2.username, password: my2.password },
      { name: 'lite', engine: 'sqlite', file: path.join(dir, 'lite.db') },
    ]) {
      const r = await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload });
      expect(r.statusCode, r.body).toBe(201);
    }
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'ordersA' } });
    await h.app.trino!.start();
    await h.app.trino!.sync();
  });

  afterAll(async () => {
    await h?.close();
    await pgdb?.drop();
    const my = await mysql.createConnection(TEST_MYSQL_URL);
    await my.query(`DROP DATABASE IF EXISTS ${myDb}`);
    await my.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await tc?.close();
  });

  it('places each source in a catalog, SQLite kept local with the reason; a caller sees only the sources they may read', async () => {
    const admin = (await h.as('admin', { method: 'GET', url: '/api/v1/engines' })).json();
    expect(admin.default).toBe('local');
    expect(admin.trino).toMatchObject({ available: true, message: null, autoRowsThreshold: 1_000_000 });
    expect(admin.trino.sources).toEqual([
      { source: 'custD', local: false, catalog: expect.stringMatching(/^junction_custd_[0-9a-f]{8}_v[0-9a-f]{8}$/), reason: null },
      { source: 'lite', local: true, catalog: null, reason: 'Trino has no connector for SQLite: queries reading source "lite" run in Junction.' },
      { source: 'ordersA', local: false, catalog: expect.stringMatching(/^junction_ordersa_[0-9a-f]{8}_v[0-9a-f]{8}$/), reason: null },
    ]);
    const list = await catalogs();
    for (const s of admin.trino.sources) if (s.catalog) expect(list).toContain(s.catalog);
    const analyst = (await h.as('analyst', { method: 'GET', url: '/api/v1/engines' })).json();
    expect(analyst.trino.sources.map((s: { source: string }) => s.source)).toEqual(['ordersA']);
  });

  it('runs a join across PostgreSQL and MariaDB as one Trino statement, with the rows Junction gives locally', async () => {
    const local = await query('admin', JOIN, 'local');
    const onTrino = await query('admin', JOIN, 'trino');
    expect(onTrino.statusCode, onTrino.body).toBe(200);
    const rows = [
      [1, '1909572716.10', 'Mixed Case'],
      [2, null, 'trailing  '],
      [3, '-0.05', null],
    ];
    expect(local.json().rows).toEqual(rows);
    expect(onTrino.json().rows).toEqual(rows);
    expect(onTrino.json().stats.engine).toBe('trino');
    expect(local.json().stats.engine).toBe('local');
    const sent = onTrino.json().stats.sourceStatements as { source: string; sql: string }[];
    expect(sent.map((s) => s.source)).toEqual(['trino']);
    expect(sent[0].sql).toMatch(/FROM "junction_ordersa_[0-9a-f]{8}_v[0-9a-f]{8}"\."public"\."orders"/);
    // the hint asks the same
    expect((await query('admin', `/*+ engine(trino) */ ${JOIN}`)).json().stats.engine).toBe('trino');
  });

  it('keeps the semantic traps: trailing blanks, case and NULL order give the local answer', async () => {
    for (const sql of [
      `SELECT c.id FROM "custD".customers c WHERE c.name = 'trailing' ORDER BY 1`,
      `SELECT c.id FROM "custD".customers c WHERE c.name = 'mixed case' ORDER BY 1`,
      `SELECT o.amount FROM "ordersA".orders o ORDER BY o.amount DESC`,
      `SELECT o.id, o.cust / 7 AS d FROM "ordersA".orders o ORDER BY o.id`,
    ]) {
      const local = (await query('admin', sql, 'local')).json();
      const remote = (await query('admin', sql, 'trino')).json();
      expect(remote.rows, sql).toEqual(local.rows);
    }
    expect((await query('admin', `SELECT o.amount FROM "ordersA".orders o ORDER BY o.amount DESC`, 'trino')).json().rows).toEqual([
      [null],
      ['1909572716.10'],
      ['-0.05'],
    ]);
  });

  it('says why a SQLite source stays in Junction', async () => {
    const r = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT o.id, n.note FROM "ordersA".orders o JOIN lite.notes n ON n.id = o.id', engine: 'trino' },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().text).toContain('Trino has no connector for SQLite: queries reading source "lite" run in Junction.');
  });

  it('checks grants before anything reaches Trino', async () => {
    const r = await query('analyst', JOIN, 'trino');
    expect(r.statusCode).toBe(403);
    expect(r.json().code).toBe('access_denied');
    const ok = await query('analyst', 'SELECT count(*) AS n FROM "ordersA".orders', 'trino');
    // bigint counts travel as JSON strings, as they do from a local run
    expect(ok.json().rows).toEqual([['3']]);
    expect((await query('analyst', 'SELECT count(*) AS n FROM "ordersA".orders', 'local')).json().rows).toEqual([['3']]);
    expect(ok.json().stats.engine).toBe('trino');
  });

  it("drops a removed source's catalog", async () => {
    const before = (await h.as('admin', { method: 'GET', url: '/api/v1/engines' })).json().trino.sources.find((s: { source: string }) => s.source === 'custD').catalog as string;
    const id = (await h.as('admin', { method: 'GET', url: '/api/v1/sources/custD' })).json().id as string;
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/sources/${id}` })).statusCode).toBe(200);
    await until(`catalog ${before} dropped`, async () => !(await catalogs()).includes(before), 10_000);
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/engines' })).json().trino.sources.map((s: { source: string }) => s.source)).toEqual(['lite', 'ordersA']);
  });
});

describe('a Trino that cannot be reached', () => {
  let h: Harness;
  let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
  beforeAll(async () => {
    pgdb = await createPgDatabase('api_trs_down');
    await pgExec(pgdb.url, 'CREATE TABLE public.t (id int); INSERT INTO public.t VALUES (1);');
    // port 9 (discard) on loopback: nothing listens
    h = await startHarness({ trino: { config: { name: 'trino', engine: 'trino', host: '127.0.0.1', port: 9, user: 'junction' } } });
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('src', pgdb) })).statusCode).toBe(201);
    await h.app.trino!.start();
  });
  afterAll(async () => {
    await h?.close();
    await pgdb?.drop();
  });

  it('is reported as unavailable, and a query asking for it runs in Junction saying why', async () => {
    const engines = (await h.as('admin', { method: 'GET', url: '/api/v1/engines' })).json();
    expect(engines.trino.available).toBe(false);
    expect(engines.trino.message).toMatch(/^Trino at 127\.0\.0\.1:9 cannot be reached: /);
    const r = await h.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT id FROM src.t', engine: 'trino' } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().rows).toEqual([[1]]);
    expect(r.json().stats.engine).toBe('local');
    expect(r.json().stats.engineReason).toMatch(/Trino at 127\.0\.0\.1:9 cannot be reached/);
  });
});
