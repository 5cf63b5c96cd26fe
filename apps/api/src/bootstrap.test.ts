import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type SourceConfig } from '@junction/connectors';
import { loadTpch } from '@junction/tpch';
import { prepareTpoxDemo } from '@junction/tpox';
import { createPgDatabase, pgExec, startHarness, type Harness } from '../test/harness.js';
import { demoExamples, ensureAdmin, registerDemo } from './bootstrap.js';
import { verifyPassword } from './lib/secrets.js';

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let sources: SourceConfig[];

beforeAll(async () => {
  pgdb = await createPgDatabase('api_demo');
  await pgExec(pgdb.url, 'CREATE TABLE public.customer (c_custkey bigint PRIMARY KEY, c_name varchar(25))');
  h = await startHarness();
  const file = path.join(h.dir, 'demo.sqlite');
  const lite = new Database(file);
  lite.exec('CREATE TABLE nation (n_nationkey INTEGER PRIMARY KEY, n_name CHAR(25))');
  lite.close();
  sources = [
    {
      name: 'dbB',
      engine: 'postgresql',
      host: pgdb.host,
      port: pgdb.port,
      database: pgdb.name,
      user: pgdb.user,
      password: pgdb.password,
    },
    { name: 'dbD', engine: 'sqlite', file },
  ];
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

describe('ensureAdmin', () => {
  it('creates admin only when there is no user, with the given or a generated password', async () => {
    const { openMetadata } = await import('./db/client.js');
    const m = await openMetadata({ sqliteFile: path.join(h.dir, 'fresh.db') });
    try {
      const first = await ensureAdmin(m.db);
      expect(first.created).toBe(true);
      expect(first.generatedPassword).toMatch(/^[A-Za-z0-9_-]{20}$/);
      const admin = await m.db.user.findUniqueOrThrow({ where: { username: 'admin' } });
      expect(admin.role).toBe('admin');
      expect(await verifyPassword(first.generatedPassword!, admin.passwordHash)).toBe(true);
      expect(admin.passwordHash).not.toContain(first.generatedPassword!);
      expect(await ensureAdmin(m.db, 'other')).toEqual({ created: false });
    } finally {
      await m.close();
    }
    expect((await ensureAdmin(h.meta.db, 'x')).created).toBe(false);
  });

  it('servers starting together on a new metadata database create one admin and none of them fails', async () => {
    const { openMetadata } = await import('./db/client.js');
    const m = await openMetadata({ sqliteFile: path.join(h.dir, 'together.db') });
    try {
      const results = await Promise.all([ensureAdmin(m.db, 'same-pass'), ensureAdmin(m.db, 'same-pass'), ensureAdmin(m.db, 'same-pass')]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(await m.db.user.count()).toBe(1);
    } finally {
      await m.close();
    }
  });
});

describe('registerDemo', () => {
  it('registers the demo sources, grants them to analysts and viewers, and saves the JDV examples; twice is once', async () => {
    await registerDemo(h.app, sources, 0.01);
    await registerDemo(h.app, sources, 0.01);
    const list = (await h.as('viewer', { method: 'GET', url: '/api/v1/sources' })).json();
    expect(list).toEqual([
      { id: expect.any(String), name: 'dbB', engine: 'postgresql', status: 'online', demo: true },
      { id: expect.any(String), name: 'dbD', engine: 'sqlite', status: 'online', demo: true },
    ]);
    expect(await h.meta.db.grant.count()).toBe(4);
    const examples = (await h.as('viewer', { method: 'GET', url: '/api/v1/saved-queries' })).json();
    expect(examples.map((e: { name: string }) => e.name)).toEqual([
      'A · Customers 1–100 from one source · dbB',
      'B · Cheap African suppliers of ordered tin parts: an 8-table join · dbA + dbB + dbC + dbD',
      'C · Revenue of household orders still open on 1995-03-01, largest first · dbA + dbB',
      "D · Orders per customer, 'special accounts' comments left out: a left join · dbA + dbB",
      'E · Orders of low-balance customers in Argentina: a dependent join · dbA + dbB',
      'F · Low-balance customers of Argentina and Brazil: a union of two sources · dbB + dbD',
      'H · Everything customer $1 bought, with part, supplier and region: an 8-table join · dbA + dbB + dbC + dbD',
    ]);
    const hq = examples.find((e: { name: string }) => e.name.startsWith('H ·'));
    expect(hq.params).toEqual([1]);
    expect(hq.sql).toContain('c_custkey = $1');
    expect(examples.find((e: { name: string }) => e.name.startsWith('A ·')).sql).toBe(
      'SELECT * FROM dbB.customer WHERE c_custkey <= 100',
    );
    const b = examples.find((e: { name: string }) => e.name.startsWith('B ·'));
    expect(b.sql).toContain('p_size BETWEEN 20 AND 24');
    expect(b.description).toBe(
      "JBoss Data Virtualization study, query B: single-user DSS, 8-table federated inner join (TPC-H Q2-like); federated form. Constants set for the demo's scale (SF 0.01): p_size = 22 → p_size BETWEEN 20 AND 24; ps_supplycost < 20 → ps_supplycost < 100.",
    );
  });

  it('replaces examples an earlier version saved under other names or with other SQL', async () => {
    await h.meta.db.savedQuery.create({
      data: { id: 'old-c', name: 'JDV C: join + group by + order by', sql: 'SELECT 1', example: true, shared: true },
    });
    const a = demoExamples(0.01)[0];
    await h.meta.db.savedQuery.updateMany({ where: { example: true, name: a.name }, data: { sql: 'SELECT 2' } });
    await registerDemo(h.app, sources, 0.01);
    const stored = await h.meta.db.savedQuery.findMany({ where: { example: true }, orderBy: { name: 'asc' } });
    expect(stored.map((q) => [q.name, q.sql])).toEqual(demoExamples(0.01).map((e) => [e.name, e.sql]));
  });

  it('points a stored demo source at where the demo runs now', async () => {
    const moved = sources.map((s) => (s.name === 'dbB' ? { ...s, host: 'localhost' } : s));
    await registerDemo(h.app, moved, 0.01);
    const row = await h.meta.db.source.findUniqueOrThrow({ where: { name: 'dbB' } });
    expect(row.host).toBe('localhost');
  });
});

describe('registerDemo with the document demo', () => {
  let hd: Harness;
  let tpch: Awaited<ReturnType<typeof createPgDatabase>>;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'jt-demo-docs-')));
    tpch = await createPgDatabase('api_demo_docs');
    const dbB: SourceConfig = { name: 'dbB', engine: 'postgresql', host: tpch.host, port: tpch.port, database: tpch.name, user: tpch.user, password: tpch.password };
    const loader = createConnector(dbB);
    try {
      await loadTpch([{ name: 'dbB', connector: loader, tables: ['customer'] }], { sf: 0.01 });
    } finally {
      await loader.close();
    }
    hd = await startHarness({ fileRoots: root });
    const extras = await prepareTpoxDemo(path.join(root, 'demo'), { sf: 0.01 });
    await registerDemo(hd.app, [dbB], 0.01, extras);
  }, 120_000);
  afterAll(async () => {
    await hd?.close();
    await tpch?.drop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('adds the XML documents and the Parquet file as sources, and an example joining them with dbB answers exactly', async () => {
    const list = (await hd.as('analyst', { method: 'GET', url: '/api/v1/sources' })).json();
    expect(list.map((s: { name: string; engine: string; status: string }) => [s.name, s.engine, s.status])).toEqual([
      ['dbB', 'postgresql', 'online'],
      ['docs', 'documents', 'online'],
      ['files', 'duckdb', 'online'],
    ]);
    const examples = (await hd.as('analyst', { method: 'GET', url: '/api/v1/saved-queries' })).json();
    const ex = examples.find((e: { name: string }) => e.name === 'Holdings of BUILDING customers at 2005 close · dbB + docs + files');
    const r = await hd.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: ex.sql } });
    expect(r.statusCode).toBe(200);
    // the same SQL on one PostgreSQL database holding TPC-H customer and the shredded documents
    // (packages/tpox shredTpox with prices) gave these rows
    expect(r.json().rows).toEqual([
      [29, 'Customer#000000029', 294, 'USD', 'ZIT', 975, '496.56', '484146.00'],
      [151, 'Customer#000000151', 1514, 'GBP', 'EKY', 970, '497.96', '483021.20'],
      [268, 'Customer#000000268', 2682, 'JPY', 'NOE', 990, '486.25', '481387.50'],
      [544, 'Customer#000000544', 5441, 'CHF', 'GTT', 985, '483.88', '476621.80'],
      [1341, 'Customer#000001341', 13413, 'USD', 'JIC', 970, '486.51', '471914.70'],
      [1385, 'Customer#000001385', 13852, 'EUR', 'OMH', 955, '491.80', '469669.00'],
      [371, 'Customer#000000371', 3711, 'CHF', 'MDZ', 955, '491.48', '469363.40'],
      [981, 'Customer#000000981', 9812, 'USD', 'LHW', 1000, '468.58', '468580.00'],
      [151, 'Customer#000000151', 1511, 'GBP', 'FHO', 965, '485.50', '468507.50'],
      [81, 'Customer#000000081', 812, 'USD', 'SCU', 945, '495.73', '468464.85'],
    ]);
  });
});
