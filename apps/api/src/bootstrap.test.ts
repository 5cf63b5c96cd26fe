import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceConfig } from '@junction/connectors';
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
