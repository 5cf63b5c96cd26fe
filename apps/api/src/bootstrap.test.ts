import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceConfig } from '@junction/connectors';
import { createPgDatabase, pgExec, startHarness, type Harness } from '../test/harness.js';
import { ensureAdmin, JDV_EXAMPLES, registerDemo } from './bootstrap.js';
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
});

describe('registerDemo', () => {
  it('registers the demo sources, grants them to analysts and viewers, and saves JDV A–H as examples; twice is once', async () => {
    await registerDemo(h.app, sources);
    await registerDemo(h.app, sources);
    const list = (await h.as('viewer', { method: 'GET', url: '/api/v1/sources' })).json();
    expect(list).toEqual([
      { id: expect.any(String), name: 'dbB', engine: 'postgresql', status: 'online', demo: true },
      { id: expect.any(String), name: 'dbD', engine: 'sqlite', status: 'online', demo: true },
    ]);
    expect(await h.meta.db.grant.count()).toBe(4);
    const examples = (await h.as('viewer', { method: 'GET', url: '/api/v1/saved-queries' })).json();
    expect(examples.map((e: { name: string }) => e.name.slice(0, 5))).toEqual(
      JDV_EXAMPLES.map((e) => `JDV ${e.letter}`),
    );
    const hq = examples.find((e: { name: string }) => e.name.startsWith('JDV H'));
    expect(hq.params).toEqual([1]);
    expect(hq.sql).toContain('c_custkey = $1');
    expect(examples.find((e: { name: string }) => e.name.startsWith('JDV A')).sql).toBe(
      'SELECT * FROM dbB.customer WHERE c_custkey <= 100',
    );
  });

  it('points a stored demo source at where the demo runs now', async () => {
    const moved = sources.map((s) => (s.name === 'dbB' ? { ...s, host: 'localhost' } : s));
    await registerDemo(h.app, moved);
    const row = await h.meta.db.source.findUniqueOrThrow({ where: { name: 'dbB' } });
    expect(row.host).toBe('localhost');
  });
});
