import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';
import type { FastifyInstance } from 'fastify';
import { checkSources, SOURCE_CHECK_MS, sourceCheckMs, startSourceMonitor } from './source-monitor.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('checkSources', () => {
  it('notices a SQLite file that went away, and that it came back', async () => {
    const file = path.join(h.dir, 'gone.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE t (id integer primary key)');
    db.close();
    const created = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: { name: 'gone', engine: 'sqlite', file },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const status = async () => (await h.as('admin', { method: 'GET', url: `/api/v1/sources/${id}` })).json();

    copyFileSync(file, `${file}.bak`);
    rmSync(file);
    await checkSources(h.app);
    expect(await status()).toMatchObject({
      status: 'offline',
      statusMessage: expect.stringContaining('does not exist'),
    });

    copyFileSync(`${file}.bak`, file);
    await checkSources(h.app);
    expect(await status()).toMatchObject({ status: 'online', statusMessage: null });
  });
});

describe('the source monitor', () => {
  it('checks often enough that a source gone away shows within 5 s', () => {
    expect(sourceCheckMs(undefined)).toBeLessThanOrEqual(5000);
    expect(sourceCheckMs('')).toBe(SOURCE_CHECK_MS);
    expect(sourceCheckMs('0')).toBe(0);
    expect(sourceCheckMs('1500')).toBe(1500);
    expect(sourceCheckMs('soon')).toBe(SOURCE_CHECK_MS);
  });

  it('keeps checking the other sources while one check hangs', async () => {
    const rows = [
      { id: 'slow', name: 'slow' },
      { id: 'quick', name: 'quick' },
    ];
    const checked: string[] = [];
    const never = new Promise<never>(() => undefined);
    const app = {
      db: { source: { findMany: async () => rows } },
      junction: {
        testSource: (id: string) => {
          checked.push(id);
          return id === 'slow' ? never : Promise.resolve();
        },
      },
      log: { debug: () => undefined },
    } as unknown as FastifyInstance;
    const stop = startSourceMonitor(app, 20);
    try {
      await expect.poll(() => checked.filter((c) => c === 'quick').length, { timeout: 2000 }).toBeGreaterThan(3);
      // the hanging check is never started a second time while it is still out
      expect(checked.filter((c) => c === 'slow')).toHaveLength(1);
    } finally {
      stop();
    }
  });
});
