import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Materializer, STORE_SOURCE } from '../services/materializer.js';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let db: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  db = await createPgDatabase('api_mview');
  await pgExec(db.url, `CREATE TABLE public.gen (id int PRIMARY KEY, g int NOT NULL, price numeric(12,2)); INSERT INTO public.gen SELECT i, 1, i * 0.25 FROM generate_series(1, 200) i;`);
  h = await startHarness();
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('src', db) })).statusCode).toBe(201);
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'rep' } })).statusCode).toBe(201);
  const v = await h.as('admin', { method: 'POST', url: '/api/v1/views', payload: { schema: 'rep', name: 'gen_v', sql: 'SELECT id, g, price FROM src.gen' } });
  expect(v.statusCode).toBe(201);
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

const rows = async (sql: string) => {
  const res = await h.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().rows as unknown[][];
};
const refresh = () => h.as('admin', { method: 'POST', url: '/api/v1/materializations/rep/gen_v/refresh' });
const PER_GEN = 'SELECT g, count(*) AS n, sum(price) AS total FROM rep.gen_v GROUP BY g';

describe('materialized views', () => {
  it('materializes on demand; queries read the stored rows while fresh, and EXPLAIN says so', async () => {
    const put = await h.as('admin', { method: 'PUT', url: '/api/v1/materializations/rep/gen_v', payload: { intervalSeconds: null, maxStalenessSeconds: 3600 } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ view: 'rep.gen_v', status: 'never', rows: null, refreshedAt: null });
    const r = await refresh();
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ status: 'ok', rows: 200, error: null, refreshing: false });
    expect(r.json().bytes).toBeGreaterThan(0);
    expect(r.json().durationMs).toBeGreaterThanOrEqual(0);
    await pgExec(db.url, 'UPDATE public.gen SET g = 2');
    // the stored rows, with the view's exact types
    expect(await rows(PER_GEN)).toEqual([[1, '200', '5025.00']]);
    const explain = await h.as('admin', { method: 'POST', url: '/api/v1/explain', payload: { sql: PER_GEN } });
    expect(explain.json().text.split('\n')[0]).toMatch(/^Materialized view rep\.gen_v read from its stored rows, refreshed \d+ s ago$/);
    expect(explain.json().text).toContain('[junction_mv]');
  });

  it('a refresh racing with 8 readers never yields a mix of old and new rows', async () => {
    let stop = false;
    const seen: unknown[][][] = [];
    const reader = async () => {
      while (!stop) seen.push(await rows(PER_GEN));
    };
    const readers = Array.from({ length: 8 }, reader);
    for (let g = 3; g <= 6; g++) {
      await pgExec(db.url, `UPDATE public.gen SET g = ${g}`);
      expect((await refresh()).json()).toMatchObject({ status: 'ok', rows: 200 });
    }
    stop = true;
    await Promise.all(readers);
    expect(seen.length).toBeGreaterThan(8);
    for (const result of seen) {
      expect(result).toHaveLength(1); // one generation per answer
      expect(result[0].slice(1)).toEqual(['200', '5025.00']); // and all of it
    }
    expect(await rows(PER_GEN)).toEqual([[6, '200', '5025.00']]);
  });

  it('a failed refresh keeps the previous rows and says why', async () => {
    await pgExec(db.url, 'ALTER TABLE public.gen RENAME TO gen_gone');
    const r = await refresh();
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'materialization_refresh_failed' });
    const list = (await h.as('admin', { method: 'GET', url: '/api/v1/materializations' })).json();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ view: 'rep.gen_v', status: 'failed', rows: 200 });
    expect(list[0].error).toMatch(/gen/);
    expect(list[0].errorCode).toEqual(expect.any(String));
    // a driver's message may quote data: a reader of the view who is not an admin gets a code
    const g = await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'viewer', viewSchema: 'rep', viewName: 'gen_v' } });
    expect(g.statusCode).toBe(201);
    const seen = await h.as('viewer', { method: 'GET', url: '/api/v1/materializations' });
    expect(seen.json()).toEqual([
      { ...list[0], error: 'The last refresh failed; an administrator can see why.', errorCode: list[0].errorCode },
    ]);
    expect(seen.body).not.toContain(list[0].error);
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/grants/${g.json().id}` })).statusCode).toBe(200);
    expect(await rows(PER_GEN)).toEqual([[6, '200', '5025.00']]);
    await pgExec(db.url, 'ALTER TABLE public.gen_gone RENAME TO gen');
    expect((await refresh()).json()).toMatchObject({ status: 'ok', error: null, errorCode: null });
  });

  it('goes back to the definition when the view changes or is no longer materialized', async () => {
    await pgExec(db.url, 'UPDATE public.gen SET g = 7');
    const id = (await h.as('admin', { method: 'GET', url: '/api/v1/views' })).json().find((v: { name: string }) => v.name === 'gen_v').id;
    expect((await h.as('admin', { method: 'PATCH', url: `/api/v1/views/${id}`, payload: { sql: 'SELECT id, g, price FROM src.gen WHERE id <= 100' } })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/materializations' })).json()[0].status).toBe('outdated');
    expect(await rows(PER_GEN)).toEqual([[7, '100', '1262.50']]);
    expect((await refresh()).json()).toMatchObject({ status: 'ok', rows: 100 });
    await pgExec(db.url, 'UPDATE public.gen SET g = 8');
    expect(await rows(PER_GEN)).toEqual([[7, '100', '1262.50']]);
    expect((await h.as('admin', { method: 'DELETE', url: '/api/v1/materializations/rep/gen_v' })).statusCode).toBe(200);
    expect(await rows(PER_GEN)).toEqual([[8, '100', '1262.50']]);
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/materializations' })).json()).toEqual([]);
  });

  it('refreshes on its schedule', async () => {
    const put = await h.as('admin', { method: 'PUT', url: '/api/v1/materializations/rep/gen_v', payload: { intervalSeconds: 1, maxStalenessSeconds: 3600 } });
    expect(put.json()).toMatchObject({ status: 'never', intervalSeconds: 1 });
    const list = async () => (await h.as('admin', { method: 'GET', url: '/api/v1/materializations' })).json()[0];
    const deadline = Date.now() + 60_000;
    while ((await list()).status !== 'ok' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await list()).toMatchObject({ status: 'ok', rows: 100 });
    const first = (await list()).refreshedAt;
    while ((await list()).refreshedAt === first && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await list()).refreshedAt > first).toBe(true);
    expect((await h.as('admin', { method: 'DELETE', url: '/api/v1/materializations/rep/gen_v' })).statusCode).toBe(200);
  });

  it("no source may take the store's name", async () => {
    const res = await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('junction_mv', db) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'source_name_reserved' });
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/sources' })).json().map((s: { name: string }) => s.name)).toEqual(['src']);
  });

  it('materializing is for admins; an unknown view is a 404', async () => {
    const body = { intervalSeconds: 60, maxStalenessSeconds: 60 };
    expect((await h.as('analyst', { method: 'PUT', url: '/api/v1/materializations/rep/gen_v', payload: body })).statusCode).toBe(403);
    expect((await h.as('admin', { method: 'PUT', url: '/api/v1/materializations/rep/nope', payload: body })).statusCode).toBe(404);
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/materializations/rep/nope/refresh' })).statusCode).toBe(404);
  });

  // last: it closes the app's own materializer
  it('a restart reads the stored rows again and drops tables a crash left behind', async () => {
    await h.as('admin', { method: 'PUT', url: '/api/v1/materializations/rep/gen_v', payload: { intervalSeconds: null, maxStalenessSeconds: 3600 } });
    expect((await refresh()).json()).toMatchObject({ status: 'ok', rows: 100 });
    const [g] = (await rows(PER_GEN))[0];
    await pgExec(db.url, `UPDATE public.gen SET g = ${Number(g) + 1}`);
    // what a new process starts from: the store file, an engine that knows the view but not its rows
    const file = h.app.materializer.file;
    await h.app.materializer.close();
    const engine = await h.app.junction.engine();
    engine.setMaterialization('rep', 'gen_v', undefined);
    await engine.removeSource(STORE_SOURCE);
    const raw = new Database(file);
    raw.exec('CREATE TABLE mv_half_loaded (x int)');
    raw.close();
    expect(await rows(PER_GEN)).toEqual([[Number(g) + 1, '100', '1262.50']]);
    const again = new Materializer(h.app.junction, h.app.db, file);
    await again.ready();
    try {
      expect(await rows(PER_GEN)).toEqual([[g, '100', '1262.50']]);
      expect(again.get('rep.gen_v')).toMatchObject({ status: 'ok', rows: 100 });
      const check = new Database(file, { readonly: true });
      expect(check.prepare(`SELECT count(*) FROM sqlite_schema WHERE name = 'mv_half_loaded'`).pluck().get()).toBe(0);
      check.close();
      await again.remove('rep', 'gen_v');
    } finally {
      await again.close();
    }
  });

  it("a refresh the server's stop cut short runs again at the next start; one cut short 3 times in a row is failed instead", async () => {
    const file = h.app.materializer.file;
    const engine = await h.app.junction.engine();
    // what a new process starts from, as above
    const restart = async (m: Materializer, edit: string) => {
      await m.close();
      engine.setMaterialization('rep', 'gen_v', undefined);
      await engine.removeSource(STORE_SOURCE);
      const raw = new Database(file);
      raw.exec(edit);
      raw.close();
      const next = new Materializer(h.app.junction, h.app.db, file);
      await next.ready();
      return next;
    };
    const marker = () => {
      const raw = new Database(file, { readonly: true });
      try {
        return raw.prepare(`SELECT unfinished_refreshes FROM _junction_materializations WHERE view = 'rep.gen_v'`).pluck().get();
      } finally {
        raw.close();
      }
    };
    let m = await restart(h.app.materializer, 'SELECT 1');
    try {
      await m.configure('rep', 'gen_v', { intervalSeconds: null, maxStalenessSeconds: 3600 });
      const first = await m.refresh('rep', 'gen_v');
      expect(first).toMatchObject({ status: 'ok', rows: 100 });
      expect(marker()).toBe(0);

      // a store from before the marker: it gets the column, and nothing to retry
      m = await restart(m, 'ALTER TABLE _junction_materializations DROP COLUMN unfinished_refreshes');
      expect(m.get('rep.gen_v')).toMatchObject({ status: 'ok', refreshing: false, refreshedAt: first.refreshedAt });
      expect(marker()).toBe(0);

      // killed during a refresh: it runs again at start while queries read the previous rows
      await new Promise((r) => setTimeout(r, 5)); // a later refreshedAt than the first one's
      m = await restart(m, 'UPDATE _junction_materializations SET unfinished_refreshes = 1');
      expect(m.get('rep.gen_v')).toMatchObject({ status: 'ok', refreshing: true, refreshedAt: first.refreshedAt });
      const retried = await m.refresh('rep', 'gen_v'); // the retry under way
      expect(retried).toMatchObject({ status: 'ok', rows: 100, refreshing: false });
      expect(retried.refreshedAt! > first.refreshedAt!).toBe(true);
      expect(marker()).toBe(0);

      // killed during each of the last 3: the start gives up on it, keeping the rows it has
      m = await restart(m, 'UPDATE _junction_materializations SET unfinished_refreshes = 3');
      expect(m.get('rep.gen_v')).toMatchObject({
        status: 'failed',
        refreshing: false,
        rows: 100,
        refreshedAt: retried.refreshedAt,
        errorCode: 'materialization_interrupted',
      });
      expect(m.get('rep.gen_v').error).toMatch(/^The server stopped during the last 3 refreshes of rep\.gen_v/);
      expect(marker()).toBe(0);
      expect(await rows(PER_GEN)).toHaveLength(1);
      await m.remove('rep', 'gen_v');
    } finally {
      await m.close();
    }
  });
});
