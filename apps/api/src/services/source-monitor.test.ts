import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';
import { checkSources } from './source-monitor.js';

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
