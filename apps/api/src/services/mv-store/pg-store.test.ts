import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { openMetadata, type OpenedDb } from '../../db/client.js';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../../test/harness.js';
import { until } from '../../../test/wait.js';

/**
 * Replicas: API servers on one PostgreSQL metadata database. Their materialized views live in its
 * junction_mv schema, with the bookkeeping, so each one reads the same rows and status.
 */
let h: Harness;
let meta: Awaited<ReturnType<typeof createPgDatabase>>;
let src: Awaited<ReturnType<typeof createPgDatabase>>;
const secretKey = randomBytes(32);
const replicas: { app: FastifyInstance; meta: OpenedDb }[] = [];

beforeAll(async () => {
  meta = await createPgDatabase('api_mv_pg_meta');
  src = await createPgDatabase('api_mv_pg_src');
  await pgExec(
    src.url,
    `CREATE TABLE public.amounts (id int PRIMARY KEY, g int NOT NULL, amt numeric(15,2), big numeric(38,10));
     INSERT INTO public.amounts VALUES (1, 1, 1909572716.10, 1234567890123456789012345678.0123456789), (2, 1, 9.00, -0.0000000001), (3, 1, 10.00, 0), (4, 1, NULL, NULL)`,
  );
  h = await startHarness({ metadataUrl: meta.url, secretKey, materializeStore: { url: meta.url } });
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('src', src) })).statusCode).toBe(201);
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'rep' } })).statusCode).toBe(201);
  const v = await h.as('admin', { method: 'POST', url: '/api/v1/views', payload: { schema: 'rep', name: 'v', sql: 'SELECT id, g, amt, big FROM src.amounts' } });
  expect(v.statusCode, v.body).toBe(201);
});
afterAll(async () => {
  for (const r of replicas) {
    await r.app.close();
    await r.meta.close();
  }
  await h?.close();
  await meta?.drop();
  await src?.drop();
});

/** Another server on the same metadata database, started as `npm start` starts one. */
async function replica(): Promise<FastifyInstance> {
  const m = await openMetadata({ databaseUrl: meta.url, sqliteFile: path.join(h.dir, 'unused.db') });
  const app = await buildApp({ db: m.db, secretKey, webDist: null, materializeStore: { url: meta.url } });
  await app.ready();
  await app.junction.start();
  await app.materializer.ready();
  replicas.push({ app, meta: m });
  return app;
}
const call = (app: FastifyInstance, method: string, url: string, payload?: object) =>
  app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${h.tokens.admin}` }, ...(payload ? { payload } : {}) });
const rows = async (app: FastifyInstance, sql: string) => {
  const res = await call(app, 'POST', '/api/v1/query', { sql });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().rows as unknown[][];
};
const status = async (app: FastifyInstance) => (await call(app, 'GET', '/api/v1/materializations')).json()[0];
const metaRows = async (sql: string) => (await pgExec(meta.url, sql)).rows;
const ALL = 'SELECT * FROM rep.v ORDER BY id';
/** locks in this test's databases (other suites may share the server) */
const OURS = `database IN (SELECT oid FROM pg_database WHERE datname LIKE 'jt\\_api\\_mv\\_pg\\_%\\_${process.pid}\\_%')`;
const PER_G = 'SELECT g, count(*) AS n, sum(amt) AS s FROM rep.v GROUP BY g';

describe('materialized views in PostgreSQL, shared by replicas', () => {
  it('live in the metadata database, schema junction_mv, with exact numeric columns; filters reach the store', async () => {
    const definition = await rows(h.app, ALL);
    expect(definition).toEqual([
      [1, 1, '1909572716.10', '1234567890123456789012345678.0123456789'],
      [2, 1, '9.00', '-0.0000000001'],
      [3, 1, '10.00', '0.0000000000'],
      [4, 1, null, null],
    ]);
    const put = await call(h.app, 'PUT', '/api/v1/materializations/rep/v', { intervalSeconds: null, maxStalenessSeconds: 3600 });
    expect(put.json(), put.body).toMatchObject({ view: 'rep.v', status: 'never' });
    const r = await call(h.app, 'POST', '/api/v1/materializations/rep/v/refresh');
    expect(r.json(), r.body).toMatchObject({ status: 'ok', rows: 4, refreshing: false });
    await pgExec(src.url, 'UPDATE public.amounts SET g = 2');
    expect(await rows(h.app, ALL)).toEqual(definition);
    expect(await rows(h.app, PER_G)).toEqual([[1, '4', '1909572735.10']]);

    const [{ tbl }] = await metaRows(`SELECT tbl FROM junction_mv._junction_materializations WHERE view = 'rep.v'`);
    const types = await metaRows(
      `SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'junction_mv.${tbl}'::regclass AND attnum > 0 ORDER BY attnum`,
    );
    expect(types).toEqual([
      { attname: 'id', type: 'integer' },
      { attname: 'g', type: 'integer' },
      { attname: 'amt', type: 'numeric(15,2)' },
      { attname: 'big', type: 'numeric(38,10)' },
    ]);
    // numeric compares as a number in the store, so the filter is the store's to run
    const res = await call(h.app, 'POST', '/api/v1/query', { sql: 'SELECT id FROM rep.v WHERE amt > 9.5 ORDER BY id' });
    expect(res.json().rows).toEqual([[1], [3]]);
    const sent = res.json().stats.sourceStatements as { source: string; sql: string }[];
    expect(sent.map((s) => s.source)).toEqual(['junction_mv']);
    expect(sent[0].sql).toMatch(/WHERE .*"amt" > /);
  });

  it('a refresh on one replica is read by another within about a second, status included', async () => {
    const other = await replica();
    expect(await rows(other, PER_G)).toEqual([[1, '4', '1909572735.10']]);
    const before = await status(other);
    expect(before).toMatchObject({ view: 'rep.v', status: 'ok', rows: 4 });
    const r = await call(h.app, 'POST', '/api/v1/materializations/rep/v/refresh');
    expect(r.json()).toMatchObject({ status: 'ok', rows: 4 });
    // the other replica follows the store's bookkeeping (it polls every second)
    await until('the other replica reads the new rows', async () => JSON.stringify(await rows(other, PER_G)) === JSON.stringify([[2, '4', '1909572735.10']]), 10_000);
    expect(await status(other)).toEqual(await status(h.app));
    expect((await status(other)).refreshedAt).toBe(r.json().refreshedAt);
  });

  it('refresh requests on both replicas at once run one refresh; the second waits and answers with its outcome', async () => {
    const other = replicas[0].app;
    await pgExec(src.url, 'UPDATE public.amounts SET g = 3');
    const retired = async () => Number((await metaRows(`SELECT count(*) AS n FROM junction_mv._junction_mv_tables WHERE view = 'rep.v'`))[0].n);
    const retiredBefore = await retired();
    // the source's table locked: the first refresh holds the view's claim until this commits
    const gate = new pg.Client({ connectionString: src.url });
    await gate.connect();
    try {
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE public.amounts IN ACCESS EXCLUSIVE MODE');
      const both = [call(h.app, 'POST', '/api/v1/materializations/rep/v/refresh'), call(other, 'POST', '/api/v1/materializations/rep/v/refresh')];
      // one replica reads the locked table, the other waits for the claim
      await until(
        'one refresh at the source, the other waiting for it',
        async () => {
          const [{ advisory, relation }] = await metaRows(
            `SELECT count(*) FILTER (WHERE locktype = 'advisory') AS advisory, count(*) FILTER (WHERE locktype = 'relation') AS relation FROM pg_locks WHERE NOT granted AND ${OURS}`,
          );
          return Number(advisory) === 1 && Number(relation) >= 1;
        },
        20_000,
      );
      expect((await status(h.app)).refreshing).toBe(true);
      await gate.query('COMMIT');
      const [a, b] = await Promise.all(both);
      expect(a.statusCode, a.body).toBe(200);
      expect(b.statusCode, b.body).toBe(200);
      expect(a.json()).toMatchObject({ status: 'ok', rows: 4 });
      // the same refresh: one time, one table
      expect(b.json().refreshedAt).toBe(a.json().refreshedAt);
      expect(await retired()).toBe(retiredBefore + 1);
    } finally {
      await gate.end();
    }
    for (const app of [h.app, other]) expect(await rows(app, PER_G)).toEqual([[3, '4', '1909572735.10']]);
    expect(await metaRows(`SELECT unfinished_refreshes FROM junction_mv._junction_materializations`)).toEqual([{ unfinished_refreshes: 0 }]);
  });

  it("a replica's restart finds the materializations; one a stopped server left unfinished runs again", async () => {
    const before = await status(h.app);
    await pgExec(src.url, 'UPDATE public.amounts SET g = 4');
    const again = await replica();
    expect(await status(again)).toEqual({ ...before, refreshing: false });
    expect(await rows(again, PER_G)).toEqual([[3, '4', '1909572735.10']]);
    const explain = (await call(again, 'POST', '/api/v1/explain', { sql: PER_G })).json();
    expect(explain.text.split('\n')[0]).toMatch(/^Materialized view rep\.v read from its stored rows/);

    // a server killed during a refresh leaves its marker and no lock: the next start finishes it
    await pgExec(meta.url, `UPDATE junction_mv._junction_materializations SET unfinished_refreshes = 1`);
    const third = await replica();
    await until('the interrupted refresh to run again', async () => JSON.stringify(await rows(third, PER_G)) === JSON.stringify([[4, '4', '1909572735.10']]), 20_000);
    await until('every replica to read it', async () => JSON.stringify(await rows(h.app, PER_G)) === JSON.stringify([[4, '4', '1909572735.10']]), 10_000);
    expect(await metaRows(`SELECT unfinished_refreshes FROM junction_mv._junction_materializations`)).toEqual([{ unfinished_refreshes: 0 }]);
  });

  it('a scheduled refresh is run by one replica, whichever takes the view first', async () => {
    const servers = [h.app, ...replicas.map((x) => x.app)];
    expect(servers).toHaveLength(4);
    const gate = new pg.Client({ connectionString: src.url });
    await gate.connect();
    const waits = async () =>
      Number(
        (await pgExec(src.url, `SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND locktype = 'relation' AND relation = 'public.amounts'::regclass`)).rows[0].n,
      );
    try {
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE public.amounts IN ACCESS EXCLUSIVE MODE');
      await gate.query('UPDATE public.amounts SET g = 6');
      const put = await call(h.app, 'PUT', '/api/v1/materializations/rep/v', { intervalSeconds: 1, maxStalenessSeconds: 3600 });
      expect(put.json()).toMatchObject({ intervalSeconds: 1 });
      await until('a scheduled refresh at the source', async () => (await waits()) >= 1, 20_000);
      // every replica's schedule comes round several times while that refresh waits at the source
      await new Promise((r) => setTimeout(r, 3000));
      expect(await waits()).toBe(1);
      // nothing else of any replica's waits either, and the bookkeeping counts one refresh under way
      expect(Number((await metaRows(`SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND ${OURS}`))[0].n)).toBe(1);
      expect(await metaRows(`SELECT unfinished_refreshes FROM junction_mv._junction_materializations`)).toEqual([{ unfinished_refreshes: 1 }]);
      for (const app of servers) expect((await status(app)).refreshing).toBe(true);
      await gate.query('COMMIT');
    } finally {
      await gate.end();
    }
    for (const app of servers) await until('every replica to read the refreshed rows', async () => JSON.stringify(await rows(app, PER_G)) === JSON.stringify([[6, '4', '1909572735.10']]), 10_000);
    expect((await call(h.app, 'PUT', '/api/v1/materializations/rep/v', { intervalSeconds: null, maxStalenessSeconds: 3600 })).statusCode).toBe(200);
  });

  it('removing it on one replica sends every replica back to the definition, one refreshing it included', async () => {
    const servers = [h.app, ...replicas.map((x) => x.app)];
    for (const app of servers) await until('every replica to stop its schedule', async () => (await status(app)).intervalSeconds === null, 10_000);
    // replicas[1] refreshes at the source (held by the lock) while replicas[0] removes the view
    const gate = new pg.Client({ connectionString: src.url });
    await gate.connect();
    let refreshing: Promise<{ statusCode: number; json: () => { code: string } }>;
    try {
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE public.amounts IN ACCESS EXCLUSIVE MODE');
      await gate.query('UPDATE public.amounts SET g = 5');
      refreshing = call(replicas[1].app, 'POST', '/api/v1/materializations/rep/v/refresh');
      await until('the refresh to wait at the source', async () => (await status(replicas[1].app)).refreshing === true, 10_000);
      expect((await call(replicas[0].app, 'DELETE', '/api/v1/materializations/rep/v')).statusCode).toBe(200);
      await gate.query('COMMIT');
    } finally {
      await gate.end();
    }
    const refreshed = await refreshing!;
    expect(refreshed.statusCode).toBe(404);
    expect(refreshed.json().code).toBe('materialization_not_found');
    for (const r of servers) {
      await until('the definition read again', async () => JSON.stringify(await rows(r, PER_G)) === JSON.stringify([[5, '4', '1909572735.10']]), 10_000);
      expect((await call(r, 'GET', '/api/v1/materializations')).json()).toEqual([]);
    }
  });
});

describe('materialized views in a registered PostgreSQL source', () => {
  let single: Harness;
  let warehouse: Awaited<ReturnType<typeof createPgDatabase>>;
  beforeAll(async () => {
    warehouse = await createPgDatabase('api_mv_pg_wh');
    single = await startHarness({ materializeStore: { source: 'warehouse', schema: 'mv_store' } });
  });
  afterAll(async () => {
    await single?.close();
    await warehouse?.drop();
  });

  it('are kept in the schema the setting names, once the source is registered', async () => {
    const body = { intervalSeconds: null, maxStalenessSeconds: 3600 };
    expect((await single.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('src', src) })).statusCode).toBe(201);
    expect((await single.as('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'rep' } })).statusCode).toBe(201);
    const v = await single.as('admin', { method: 'POST', url: '/api/v1/views', payload: { schema: 'rep', name: 'w', sql: 'SELECT id, amt FROM src.amounts' } });
    expect(v.statusCode, v.body).toBe(201);
    const early = await single.as('admin', { method: 'PUT', url: '/api/v1/materializations/rep/w', payload: body });
    expect(early.statusCode).toBe(400);
    expect(early.json()).toMatchObject({ code: 'materialized_store_invalid', details: { source: 'warehouse' } });
    expect(early.json().message).toBe('The materialized view store is the source "warehouse" (JUNCTION_MV_STORE), and no source has that name.');

    expect((await single.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('warehouse', warehouse) })).statusCode).toBe(201);
    expect((await single.as('admin', { method: 'PUT', url: '/api/v1/materializations/rep/w', payload: body })).statusCode).toBe(200);
    const r = await single.as('admin', { method: 'POST', url: '/api/v1/materializations/rep/w/refresh' });
    expect(r.json(), r.body).toMatchObject({ status: 'ok', rows: 4 });
    const [{ tbl }] = (await pgExec(warehouse.url, `SELECT tbl FROM mv_store._junction_materializations WHERE view = 'rep.w'`)).rows;
    expect((await pgExec(warehouse.url, `SELECT id, amt::text AS amt FROM mv_store.${tbl} ORDER BY id`)).rows).toEqual([
      { id: 1, amt: '1909572716.10' },
      { id: 2, amt: '9.00' },
      { id: 3, amt: '10.00' },
      { id: 4, amt: null },
    ]);
    const q = await single.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT amt FROM rep.w WHERE id = 1' } });
    expect(q.json().rows).toEqual([['1909572716.10']]);
    expect(q.json().stats.sourceStatements.map((s: { source: string }) => s.source)).toEqual(['junction_mv']);

    // the store's tables hold every view's rows: the source's readers do not see them, even after a refresh
    const id = (await single.as('admin', { method: 'GET', url: '/api/v1/sources/warehouse' })).json().id as string;
    expect((await single.as('admin', { method: 'POST', url: `/api/v1/sources/${id}/refresh` })).statusCode).toBe(200);
    const direct = await single.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: `SELECT * FROM warehouse.mv_store.${tbl}` } });
    expect(direct.statusCode).toBe(400);
    expect(direct.json().code).toBe('unknown_table');
    const listed = (await single.as('admin', { method: 'GET', url: '/api/v1/sources/warehouse' })).json();
    expect(JSON.stringify(listed)).not.toContain('mv_store');
  });
});
