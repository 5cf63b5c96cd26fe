import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgDatabase,
  logCapture,
  pgExec,
  startHarness,
  TEST_MYSQL_URL,
  type Harness,
} from '../../test/harness.js';

const SECRET = `S3cr3t-${Math.random().toString(36).slice(2)}`;
const NEW_SECRET = `N3w-${Math.random().toString(36).slice(2)}`;
const role = `jt_api_src_role_${process.pid}`;

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
const logs = logCapture();
const myDb = `jt_api_src_${process.pid}_${Math.floor(Math.random() * 1e6)}`;

beforeAll(async () => {
  pgdb = await createPgDatabase('api_src');
  await pgExec(pgdb.url, `CREATE ROLE ${role} LOGIN PASSWORD '${SECRET}'; GRANT ALL ON SCHEMA public TO ${role};`);
  await pgExec(
    pgdb.url,
    `CREATE TABLE public.customer (c_custkey bigint PRIMARY KEY, c_name varchar(25) NOT NULL); GRANT SELECT ON public.customer TO ${role};`,
  );
  const my = await mysql.createConnection(TEST_MYSQL_URL);
  await my.query(`CREATE DATABASE ${myDb}`);
  await my.query(`CREATE TABLE ${myDb}.nation (n_nationkey int PRIMARY KEY, n_name char(25) NOT NULL)`);
  await my.end();
  h = await startHarness({ logger: logs.logger });
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
  await pgExec(
    process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test',
    `DROP ROLE IF EXISTS ${role}`,
  ).catch(() => undefined);
  const my = await mysql.createConnection(TEST_MYSQL_URL);
  await my.query(`DROP DATABASE IF EXISTS ${myDb}`);
  await my.end();
});

const pgSource = () => ({
  name: 'crm',
  engine: 'postgresql',
  host: pgdb.host,
  port: pgdb.port,
  database: pgdb.name,
  user: role,
  password: SECRET,
});

describe('sources', () => {
  let id = '';

  it('registers a PostgreSQL source: tests, probes and introspects it, and never returns the password', async () => {
    const res = await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSource() });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    id = body.id;
    expect(body).toMatchObject({
      name: 'crm',
      engine: 'postgresql',
      host: pgdb.host,
      port: pgdb.port,
      database: pgdb.name,
      user: role,
      hasPassword: true,
      status: 'online',
      tables: 1,
    });
    expect(body.semantics.serverVersion).toMatch(/^15/);
    expect(res.body).not.toContain(SECRET);
    const stored = await h.meta.db.source.findUniqueOrThrow({ where: { id } });
    expect(stored.passwordEncrypted).toMatch(/^v1:/);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(h.app.secrets.decrypt(stored.passwordEncrypted!)).toBe(SECRET);
  });

  it('lists, reads, tests and refreshes it; the catalog reflects the refresh', async () => {
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/sources' })).json()).toEqual([
      { id, name: 'crm', engine: 'postgresql', status: 'online', demo: false },
    ]);
    for (const url of [`/api/v1/sources/${id}`, '/api/v1/sources/crm']) {
      const one = await h.as('admin', { method: 'GET', url });
      expect(one.json().id).toBe(id);
      expect(one.body).not.toContain(SECRET);
    }
    const test = await h.as('admin', { method: 'POST', url: `/api/v1/sources/${id}/test` });
    expect(test.json()).toMatchObject({ ok: true });
    await pgExec(
      pgdb.url,
      `CREATE TABLE public.orders (o_orderkey bigint PRIMARY KEY, o_custkey bigint, o_totalprice numeric(15,2)); GRANT SELECT ON public.orders TO ${role};`,
    );
    const refreshed = await h.as('admin', { method: 'POST', url: `/api/v1/sources/${id}/refresh` });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json().tables).toBe(2);
    const tree = (await h.as('admin', { method: 'GET', url: '/api/v1/catalog' })).json();
    expect(tree).toEqual([
      {
        source: 'crm',
        engine: 'postgresql',
        status: 'online',
        defaultSchema: 'public',
        schemas: [
          {
            name: 'public',
            tables: [
              { schema: 'public', name: 'customer', kind: 'table', rowCount: expect.anything() },
              { schema: 'public', name: 'orders', kind: 'table', rowCount: expect.anything() },
            ],
          },
        ],
      },
    ]);
    const cols = (await h.as('admin', { method: 'GET', url: '/api/v1/catalog/crm/public/orders' })).json();
    expect(cols.columns).toEqual([
      { name: 'o_orderkey', type: 'int64', nativeType: 'bigint', nullable: false },
      { name: 'o_custkey', type: 'int64', nativeType: 'bigint', nullable: true },
      { name: 'o_totalprice', type: 'decimal(15,2)', nativeType: 'numeric(15,2)', nullable: true },
    ]);
    expect(cols.primaryKey).toEqual(['o_orderkey']);
    const hits = (await h.as('admin', { method: 'GET', url: '/api/v1/catalog/search?q=CUSTKEY' })).json();
    expect(hits).toEqual(
      expect.arrayContaining([
        { kind: 'column', source: 'crm', schema: 'public', table: 'customer', column: 'c_custkey', type: 'int64' },
        { kind: 'column', source: 'crm', schema: 'public', table: 'orders', column: 'o_custkey', type: 'int64' },
      ]),
    );
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/catalog/crm/public/nope' })).statusCode).toBe(404);
  });

  it('refuses a duplicate name (409) and unreachable or wrong settings (400 with a diagnosis, no secret echoed)', async () => {
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSource() })).statusCode).toBe(409);
    const wrong = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: { ...pgSource(), name: 'crm2', password: 'wrong-' + SECRET },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'source_test_failed', details: { diagnosis: 'auth_failed' } });
    expect(wrong.body).not.toContain(SECRET);
    const closed = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: { ...pgSource(), name: 'crm3', port: 1 },
    });
    expect(closed.statusCode).toBe(400);
    expect(closed.json().details.diagnosis).toMatch(/port_closed|host_unreachable/);
    expect(await h.meta.db.source.count()).toBe(1);
  });

  it('rotates the password without a restart: the new one works, a wrong one leaves the old settings in place', async () => {
    await pgExec(pgdb.url, `ALTER ROLE ${role} PASSWORD '${NEW_SECRET}'`);
    const bad = await h.as('admin', {
      method: 'PATCH',
      url: `/api/v1/sources/${id}`,
      payload: { password: 'still-wrong' },
    });
    expect(bad.statusCode).toBe(400);
    expect(
      h.app.secrets.decrypt((await h.meta.db.source.findUniqueOrThrow({ where: { id } })).passwordEncrypted!),
    ).toBe(SECRET);
    const ok = await h.as('admin', {
      method: 'PATCH',
      url: `/api/v1/sources/${id}`,
      payload: { password: NEW_SECRET },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).not.toContain(NEW_SECRET);
    expect((await h.as('admin', { method: 'POST', url: `/api/v1/sources/${id}/test` })).json().ok).toBe(true);
    expect(
      h.app.secrets.decrypt((await h.meta.db.source.findUniqueOrThrow({ where: { id } })).passwordEncrypted!),
    ).toBe(NEW_SECRET);
    const audit = (await h.as('admin', { method: 'GET', url: '/api/v1/audit?action=source.update' })).json();
    expect(audit[0].details).toEqual({ changed: [], passwordChanged: true });
  });

  it('registers a MySQL source', async () => {
    const u = new URL(TEST_MYSQL_URL);
    const res = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: {
        name: 'geo',
        engine: 'mysql',
        host: u.hostname,
        port: Number(u.port || 3306),
        database: myDb,
        user: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'geo', engine: 'mysql', tables: 1, status: 'online' });
    const cols = (await h.as('admin', { method: 'GET', url: `/api/v1/catalog/geo/${myDb}/nation` })).json();
    expect(cols.columns.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([
      ['n_nationkey', 'int32'],
      ['n_name', 'char(25)'],
    ]);
    expect((await h.as('admin', { method: 'DELETE', url: '/api/v1/sources/geo' })).statusCode).toBe(200);
  });

  it('hides sources without a grant from non-admins, and shows them once granted', async () => {
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/sources' })).json()).toEqual([]);
    expect((await h.as('analyst', { method: 'GET', url: `/api/v1/sources/${id}` })).statusCode).toBe(404);
    expect((await h.as('viewer', { method: 'GET', url: '/api/v1/catalog' })).json()).toEqual([]);
    const g = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { role: 'analyst', sourceName: 'crm' },
    });
    expect(
      (await h.as('analyst', { method: 'GET', url: '/api/v1/sources' })).json().map((s: { name: string }) => s.name),
    ).toEqual(['crm']);
    const detail = await h.as('analyst', { method: 'GET', url: `/api/v1/sources/${id}` });
    expect(detail.statusCode).toBe(200);
    expect(detail.body).not.toContain(NEW_SECRET);
    expect(detail.body).not.toContain(SECRET);
    // connection details are the admins' business
    expect(detail.json()).toMatchObject({
      name: 'crm',
      host: null,
      port: null,
      database: null,
      user: null,
      file: null,
    });
    expect(detail.body).not.toContain(role);
    await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${g.json().id}` });
  });

  it('never wrote a password into logs or the audit log', async () => {
    await h.app.records.flush(); // audit rows are written in batches
    const audit = JSON.stringify(await h.meta.db.auditLog.findMany());
    expect(audit).toContain('source.create');
    for (const secret of [SECRET, NEW_SECRET]) {
      expect(audit).not.toContain(secret);
      expect(logs.lines.join('\n')).not.toContain(secret);
    }
    expect(logs.lines.length).toBeGreaterThan(10);
  });

  it('deletes the source and its grants', async () => {
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'viewer', sourceName: 'crm' } });
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/sources/${id}` })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'GET', url: `/api/v1/sources/${id}` })).statusCode).toBe(404);
    expect(await h.meta.db.grant.count({ where: { sourceName: 'crm' } })).toBe(0);
  });
});

/** A TCP relay to PostgreSQL that can be shut (its port closed, live connections cut) and reopened on the same port. */
async function relayTo(host: string, port: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let listenPort = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(port, host);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(listenPort, '127.0.0.1', () => {
        listenPort = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const sock of sockets) sock.destroy();
      server!.close(() => resolve());
    });
  await open();
  return { port: () => listenPort, open, shut };
}

describe('source status follows queries', () => {
  it('a query that cannot reach the source marks it offline; a later successful query marks it online', async () => {
    const relay = await relayTo(pgdb.host, pgdb.port);
    const statusOf = async (id: string) =>
      (await h.as('admin', { method: 'GET', url: `/api/v1/sources/${id}` })).json() as {
        status: string;
        statusMessage: string | null;
      };
    // fire-and-forget updates: poll until the metadata row shows the change
    const until = async (id: string, status: string) => {
      for (let i = 0; i < 100 && (await statusOf(id)).status !== status; i++)
        await new Promise((r) => setTimeout(r, 20));
      return statusOf(id);
    };
    try {
      const created = await h.as('admin', {
        method: 'POST',
        url: '/api/v1/sources',
        payload: {
          ...pgSource(),
          name: 'flaky',
          host: '127.0.0.1',
          port: relay.port(),
          user: pgdb.user,
          password: pgdb.password,
        },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json().id as string;
      expect((await statusOf(id)).status).toBe('online');
      await relay.shut();
      // let the pool see its idle connections closed, so the query must open a new one
      await new Promise((r) => setTimeout(r, 300));
      const failed = await h.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT c_custkey FROM flaky.customer' },
      });
      expect(failed.statusCode).toBe(502);
      expect(failed.json()).toMatchObject({
        code: 'source_unavailable',
        kind: 'external',
        details: { source: 'flaky' },
      });
      const offline = await until(id, 'offline');
      expect(offline.status).toBe('offline');
      expect(offline.statusMessage).toBe(failed.json().message);
      await relay.open();
      const ok = await h.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT c_custkey FROM flaky.customer' },
      });
      expect(ok.statusCode).toBe(200);
      expect(await until(id, 'online')).toMatchObject({ status: 'online', statusMessage: null });
      // a failing query that reached nobody says nothing about reachability
      const bad = await h.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT no_such_column FROM flaky.customer' },
      });
      expect(bad.statusCode).toBe(400);
      await new Promise((r) => setTimeout(r, 100));
      expect((await statusOf(id)).status).toBe('online');
      expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/sources/${id}` })).statusCode).toBe(200);
    } finally {
      await relay.shut().catch(() => undefined);
    }
  });
});

/** A TCP listener that only counts who knocks: proof that a refused source was never contacted. */
async function knockCounter() {
  let knocks = 0;
  const server = net.createServer((sock) => {
    knocks++;
    sock.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    knocks: () => knocks,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('where a source may point (JUNCTION_SOURCE_ALLOW)', () => {
  let g: Harness;
  let root: string;
  let dataDir: string;
  let shared: string;
  let knock: Awaited<ReturnType<typeof knockCounter>>;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'jt-allow-api-'));
    dataDir = path.join(root, 'data');
    shared = path.join(root, 'shared');
    mkdirSync(path.join(dataDir, 'sqlite'), { recursive: true });
    mkdirSync(shared);
    // Junction's own files, as SQLite files a source could otherwise read
    for (const f of [
      path.join(dataDir, 'junction.db'),
      path.join(dataDir, 'sqlite', 'demo.sqlite'),
      path.join(shared, 'ok.sqlite'),
    ]) {
      const db = new Database(f);
      db.exec('CREATE TABLE t (x INT)');
      db.close();
    }
    symlinkSync(path.join(dataDir, 'junction.db'), path.join(shared, 'innocent.sqlite'));
    knock = await knockCounter();
    g = await startHarness({ dataDir, sourceAllow: `10.255.255.0/24, db.example.invalid, ${shared}` });
  });
  afterAll(async () => {
    await g?.close();
    await knock?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const create = (payload: Record<string, unknown>) =>
    g.as('admin', { method: 'POST', url: '/api/v1/sources', payload });
  const pgAt = (port: number) => ({
    name: 'scan',
    engine: 'postgresql',
    host: '127.0.0.1',
    port,
    database: 'x',
    user: 'x',
    password: 'x',
  });

  it('refuses a host outside the list with 403 source_not_allowed, before connecting, the same for an open or closed port', async () => {
    const open = await create(pgAt(knock.port));
    const closed = await create(pgAt(await closedPort()));
    const listening = await create(pgAt(pgdb.port));
    expect(open.statusCode).toBe(403);
    expect(open.json()).toMatchObject({
      code: 'source_not_allowed',
      kind: 'forbidden',
      details: { field: 'host', rule: 'JUNCTION_SOURCE_ALLOW' },
    });
    expect(open.json().message).toContain('JUNCTION_SOURCE_ALLOW');
    expect(closed.body).toBe(open.body);
    expect(listening.body).toBe(open.body);
    expect(knock.knocks()).toBe(0);
    expect(await g.meta.db.source.count()).toBe(0);
    await g.app.records.flush();
    expect(await g.meta.db.auditLog.count({ where: { action: 'source.refused', target: 'scan' } })).toBe(3);
  });

  it('refuses a SQLite file in the data directory, also through a symlink, and allows the listed folder', async () => {
    for (const file of [
      path.join(dataDir, 'junction.db'),
      path.join(dataDir, 'secret.key'),
      path.join(shared, 'innocent.sqlite'),
    ]) {
      const res = await create({ name: 'peek', engine: 'sqlite', file });
      expect(res.statusCode, file).toBe(403);
      expect(res.json(), file).toMatchObject({ code: 'source_not_allowed', details: { rule: 'data_directory' } });
    }
    // listed hosts and folders, not the default: the demo folder is not listed here
    const demo = await create({ name: 'demo', engine: 'sqlite', file: path.join(dataDir, 'sqlite', 'demo.sqlite') });
    expect(demo.json()).toMatchObject({ code: 'source_not_allowed', details: { rule: 'JUNCTION_SOURCE_ALLOW' } });
    const ok = await create({ name: 'lite', engine: 'sqlite', file: path.join(shared, 'ok.sqlite') });
    expect(ok.statusCode).toBe(201);
  });

  it('checks an update too: the stored settings stay', async () => {
    const lite = (await g.as('admin', { method: 'GET', url: '/api/v1/sources/lite' })).json();
    const res = await g.as('admin', {
      method: 'PATCH',
      url: `/api/v1/sources/${lite.id}`,
      payload: { file: path.join(dataDir, 'junction.db') },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'source_not_allowed', details: { rule: 'data_directory' } });
    expect((await g.meta.db.source.findUniqueOrThrow({ where: { id: lite.id } })).file).toBe(
      path.join(shared, 'ok.sqlite'),
    );
  });

  it('tests a stored source the rules refuse without contacting it: one diagnosis whatever listens there', async () => {
    // stored before the rules were tightened
    const id = randomUUID();
    await g.meta.db.source.create({
      data: {
        id,
        name: 'legacy',
        engine: 'postgresql',
        host: '127.0.0.1',
        port: knock.port,
        options: '{}',
        status: 'online',
      },
    });
    const test = () => g.as('admin', { method: 'POST', url: `/api/v1/sources/${id}/test` });
    const open = await test();
    await g.meta.db.source.update({ where: { id }, data: { port: await closedPort() } });
    const closed = await test();
    expect(open.statusCode).toBe(200);
    expect(open.json()).toMatchObject({ ok: false, code: 'source_not_allowed' });
    expect(closed.body).toBe(open.body);
    expect(knock.knocks()).toBe(0);
    expect(await g.meta.db.source.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'offline' });
    const refresh = await g.as('admin', { method: 'POST', url: `/api/v1/sources/${id}/refresh` });
    expect(refresh.statusCode).toBe(403);
    expect(refresh.json().code).toBe('source_not_allowed');
    const patch = await g.as('admin', { method: 'PATCH', url: `/api/v1/sources/${id}`, payload: { password: 'x' } });
    expect(patch.statusCode).toBe(403);
    expect(knock.knocks()).toBe(0);
  });
});

describe('the default rules with a data directory', () => {
  it('allows any host and the data directory’s sqlite/ folder, refuses other files', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'jt-allow-default-'));
    const dataDir = path.join(root, 'data');
    mkdirSync(path.join(dataDir, 'sqlite'), { recursive: true });
    const demoFile = path.join(dataDir, 'sqlite', 'dbC.sqlite');
    const elsewhere = path.join(root, 'elsewhere.sqlite');
    for (const f of [demoFile, elsewhere, path.join(dataDir, 'materialized.db')]) {
      const db = new Database(f);
      db.exec('CREATE TABLE t (x INT)');
      db.close();
    }
    const d = await startHarness({ dataDir });
    try {
      const as = (payload: Record<string, unknown>) =>
        d.as('admin', { method: 'POST', url: '/api/v1/sources', payload });
      expect((await as({ name: 'dbC', engine: 'sqlite', file: demoFile })).statusCode).toBe(201);
      expect(
        (await as({ name: 'store', engine: 'sqlite', file: path.join(dataDir, 'materialized.db') })).json(),
      ).toMatchObject({
        code: 'source_not_allowed',
        details: { rule: 'data_directory' },
      });
      expect((await as({ name: 'other', engine: 'sqlite', file: elsewhere })).json()).toMatchObject({
        code: 'source_not_allowed',
        details: { rule: 'JUNCTION_SOURCE_ALLOW' },
      });
      expect((await as({ ...pgSource(), user: pgdb.user, password: pgdb.password })).statusCode).toBe(201);
    } finally {
      await d.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
