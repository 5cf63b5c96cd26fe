import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('source statistics', () => {
  it('a refresh reads the statistics ANALYZE wrote, and the plan estimates with them', async () => {
    const file = path.join(h.dir, 'stats.sqlite');
    const db = new Database(file);
    // 1000 rows, g with 4 values under an index
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, g INT NOT NULL); CREATE INDEX t_g ON t (g);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO t SELECT i, i % 4 FROM n;`);
    const created = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: { name: 'lite', engine: 'sqlite', file },
    });
    expect(created.statusCode).toBe(201);
    const groups = async (): Promise<number> => {
      const res = await h.as('admin', {
        method: 'POST',
        url: '/api/v1/explain',
        payload: { sql: 'SELECT g, count(*) FROM lite.t GROUP BY g' },
      });
      expect(res.statusCode).toBe(200);
      return res.json().plan.estimatedRows as number;
    };
    // no statistics yet: a tenth of the 1000 counted rows
    expect(await groups()).toBe(100);
    db.exec('ANALYZE');
    db.close();
    expect(
      (await h.as('admin', { method: 'POST', url: `/api/v1/sources/${created.json().id}/refresh` })).statusCode,
    ).toBe(200);
    // sqlite_stat1 gives g 4 distinct values: 4 groups
    expect(await groups()).toBe(4);
  });
});
