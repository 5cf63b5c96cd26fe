import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMetadata, type OpenedDb } from './client.js';
import { Prisma } from '../generated/prisma/client.js';
import { loadMigrations } from './migrate.js';

/** Every model's scalar fields, from the generated client: what the migrations must create. */
function schemaColumns(): Record<string, string[]> {
  const ns = Prisma as unknown as Record<string, Record<string, string>>;
  return Object.fromEntries(
    Object.values(Prisma.ModelName).map((m) => [m, Object.values(ns[`${m}ScalarFieldEnum`]).sort()]),
  );
}

const TEST_PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';

/** Touches every model through the generated client, so a migration that drifts from the schema fails here. */
async function exerciseAllModels(m: OpenedDb): Promise<void> {
  const { db } = m;
  const user = await db.user.create({ data: { id: 'u1', username: 'ann', passwordHash: 'h', role: 'analyst' } });
  expect(user.disabled).toBe(false);
  await db.session.create({ data: { id: 's1', userId: 'u1', csrfToken: 'c', expiresAt: new Date(Date.now() + 1000) } });
  await db.apiToken.create({
    data: { id: 't1', userId: 'u1', name: 'ci', tokenHash: 'x', prefix: 'jct_ab', scopes: '["query"]' },
  });
  const src = await db.source.create({
    data: { id: 'src1', name: 'dbA', engine: 'postgresql', port: 5432, options: '{}' },
  });
  expect(src.status).toBe('unknown');
  await expect(db.source.create({ data: { id: 'src2', name: 'dbA', engine: 'mysql' } })).rejects.toThrow();
  await db.grant.create({ data: { id: 'g1', role: 'analyst', sourceName: 'dbA' } });
  await db.virtualSchema.create({ data: { id: 'vs1', name: 'sales' } });
  await db.view.create({
    data: { id: 'v1', schemaId: 'vs1', name: 'big', sql: 'SELECT 1', layout: '{}', columns: '[]' },
  });
  await db.savedQuery.create({ data: { id: 'q1', ownerId: 'u1', name: 'A', sql: 'SELECT 1', example: true } });
  await db.queryHistory.create({
    data: { id: 'h1', userId: 'u1', queryId: 'x', sql: 'SELECT 1', status: 'ok', rows: 1, elapsedMs: 3 },
  });
  await db.auditLog.create({ data: { id: 'a1', action: 'source.create', target: 'dbA' } });
  await db.benchmarkRun.create({ data: { id: 'b1', name: 'run', results: '{}' } });
  await db.concurrencyLimit.create({ data: { id: 'l1', scope: 'token', subject: 't1', maxConcurrent: 16 } });
  await expect(db.concurrencyLimit.create({ data: { id: 'l2', scope: 'token', subject: 't1' } })).rejects.toThrow();
  // cascades declared in the schema are in the SQL
  await db.user.delete({ where: { id: 'u1' } });
  expect(await db.session.count()).toBe(0);
  expect(await db.apiToken.count()).toBe(0);
  expect(await db.queryHistory.count()).toBe(0);
  expect((await db.savedQuery.findUniqueOrThrow({ where: { id: 'q1' } })).ownerId).toBeNull();
  await db.virtualSchema.delete({ where: { id: 'vs1' } });
  expect(await db.view.count()).toBe(0);
}

describe('metadata migrations on SQLite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-migrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('applies every committed migration once and the client works on the result', async () => {
    const file = path.join(dir, 'meta.db');
    const first = await openMetadata({ sqliteFile: file });
    expect(first.provider).toBe('sqlite');
    expect(first.applied).toEqual(loadMigrations('sqlite').map((m) => m.name));
    await exerciseAllModels(first);
    await first.close();
    const second = await openMetadata({ sqliteFile: file });
    expect(second.applied).toEqual([]);
    // the client's own connection gives a checkpointed WAL's space back (a per-connection setting)
    expect(await second.db.$queryRawUnsafe('PRAGMA journal_size_limit')).toEqual([{ journal_size_limit: 4194304n }]);
    await second.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT count(*) AS n FROM _junction_migrations').get()).toEqual({
      n: loadMigrations('sqlite').length,
    });
    const tables = Object.fromEntries(
      Object.keys(schemaColumns()).map((t) => [
        t,
        (raw.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as { name: string }[]).map((c) => c.name).sort(),
      ]),
    );
    raw.close();
    expect(tables).toEqual(schemaColumns());
  });

  it('refuses a migration whose text changed after it was applied', async () => {
    const file = path.join(dir, 'meta2.db');
    (await openMetadata({ sqliteFile: file })).close();
    const raw = new Database(file);
    raw.prepare("UPDATE _junction_migrations SET checksum = 'different'").run();
    raw.close();
    await expect(openMetadata({ sqliteFile: file })).rejects.toThrow(/was changed after it was applied/);
  });
});

describe('metadata migrations on PostgreSQL', () => {
  const dbName = `jt_api_migrate_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  let url = '';
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    const u = new URL(TEST_PG_URL);
    u.pathname = `/${dbName}`;
    url = u.toString();
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });

  it('applies every committed migration once and the client works on the result', async () => {
    const first = await openMetadata({ databaseUrl: url, sqliteFile: 'unused' });
    expect(first.provider).toBe('postgresql');
    expect(first.applied).toEqual(loadMigrations('postgresql').map((m) => m.name));
    await exerciseAllModels(first);
    await first.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const cols = await c.query<{ table_name: string; column_name: string }>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_junction_migrations' ORDER BY table_name, column_name",
    );
    await c.end();
    const tables: Record<string, string[]> = {};
    for (const r of cols.rows) (tables[r.table_name] ??= []).push(r.column_name);
    for (const t of Object.keys(tables)) tables[t].sort();
    expect(tables).toEqual(schemaColumns());
    const again = await Promise.all([
      openMetadata({ databaseUrl: url, sqliteFile: 'unused' }),
      openMetadata({ databaseUrl: url, sqliteFile: 'unused' }),
    ]);
    expect(again.map((a) => a.applied)).toEqual([[], []]);
    await Promise.all(again.map((a) => a.close()));
  });
});
