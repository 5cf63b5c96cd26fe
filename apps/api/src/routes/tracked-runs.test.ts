import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  pgdb = await createPgDatabase('api_explain');
  await pgExec(
    pgdb.url,
    `CREATE VIEW public.slow AS SELECT 1 AS n FROM pg_sleep(5);
     CREATE VIEW public.quick AS SELECT 1 AS n;
     CREATE TABLE public.t (x int);`,
  );
  h = await startHarness();
  expect(
    (await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('src', pgdb) })).statusCode,
  ).toBe(201);
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'src' } });
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

const activeSleeps = async () =>
  Number(
    (
      await pgExec(
        pgdb.url,
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = '${pgdb.name}' AND state = 'active' AND query LIKE '%slow%' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].n,
  );
const until = async (cond: () => boolean | Promise<boolean>, ms = 5_000) => {
  for (const end = Date.now() + ms; Date.now() < end && !(await cond());) await new Promise((r) => setTimeout(r, 25));
};
type Running = { id: string; sql: string; user: string };
type History = { queryId: string; sql: string; status: string; elapsedMs: number | null; errorCode: string | null };
const runningOf = async (role: 'admin' | 'analyst' | 'viewer') =>
  (await h.as(role, { method: 'GET', url: '/api/v1/queries' })).json() as Running[];
const historyOf = async (role: 'admin' | 'analyst') =>
  (await h.as(role, { method: 'GET', url: '/api/v1/history' })).json() as History[];

describe('EXPLAIN ANALYZE runs like a query', () => {
  it('is listed while it runs, cancelled by DELETE /queries/:id within 2 s (499), and in the history', async () => {
    const explaining = h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT n FROM src.slow', analyze: true },
    });
    let mine: Running | undefined;
    await until(
      async () => (mine = (await runningOf('analyst')).find((q) => q.sql.includes('src.slow'))) !== undefined,
    );
    expect(mine).toMatchObject({ sql: '/* EXPLAIN ANALYZE */ SELECT n FROM src.slow', user: h.userIds.analyst });
    await until(async () => (await activeSleeps()) > 0);
    // the same ownership rules as a query's
    expect((await runningOf('viewer')).map((q) => q.id)).not.toContain(mine!.id);
    expect((await h.as('viewer', { method: 'DELETE', url: `/api/v1/queries/${mine!.id}` })).statusCode).toBe(404);
    expect((await runningOf('admin')).map((q) => q.id)).toContain(mine!.id);
    const asked = Date.now();
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/queries/${mine!.id}` })).statusCode).toBe(200);
    const res = await explaining;
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(res.statusCode).toBe(499);
    expect(res.json()).toMatchObject({ kind: 'cancelled' });
    expect(res.headers['x-junction-query-id']).toBe(mine!.id);
    await until(async () => (await activeSleeps()) === 0);
    expect(await activeSleeps()).toBe(0);
    expect((await runningOf('analyst')).map((q) => q.id)).not.toContain(mine!.id);
    const [last] = await historyOf('analyst');
    expect(last).toMatchObject({
      queryId: mine!.id,
      sql: mine!.sql,
      status: 'cancelled',
      errorCode: 'query_cancelled',
    });
    expect(last.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('takes a client-chosen queryId, and records a finished run as ok', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT n FROM src.quick', analyze: true, queryId: 'explain-ok-1' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().text).toBeTypeOf('string');
    expect((await historyOf('analyst'))[0]).toMatchObject({ queryId: 'explain-ok-1', status: 'ok', errorCode: null });
    // a plan without ANALYZE contacts no source: neither listed nor in the history
    const before = (await historyOf('analyst')).length;
    expect(
      (await h.as('analyst', { method: 'POST', url: '/api/v1/explain', payload: { sql: 'SELECT n FROM src.slow' } }))
        .statusCode,
    ).toBe(200);
    expect((await historyOf('analyst')).length).toBe(before);
  });

  it('records a failure with its code', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT nope FROM src.quick', analyze: true },
    });
    expect(res.statusCode).toBe(400);
    expect((await historyOf('analyst'))[0]).toMatchObject({ status: 'error', errorCode: res.json().code });
  });
});

describe("the designer's check (POST /views/validate)", () => {
  it('is listed while its scalar subquery runs on the source, cancellable by its owner (499), and in the history', async () => {
    const checking = h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views/validate',
      payload: { sql: 'SELECT (SELECT max(n) FROM src.slow) AS m' },
    });
    let mine: Running | undefined;
    await until(
      async () => (mine = (await runningOf('analyst')).find((q) => q.sql.includes('src.slow'))) !== undefined,
    );
    expect(mine).toBeDefined();
    await until(async () => (await activeSleeps()) > 0);
    expect((await runningOf('analyst')).filter((q) => q.sql.includes('src.slow'))).toHaveLength(1);
    expect((await h.as('viewer', { method: 'DELETE', url: `/api/v1/queries/${mine!.id}` })).statusCode).toBe(404);
    const asked = Date.now();
    expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/queries/${mine!.id}` })).statusCode).toBe(200);
    const res = await checking;
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(res.statusCode).toBe(499);
    await until(async () => (await activeSleeps()) === 0);
    expect(await activeSleeps()).toBe(0);
    expect((await runningOf('analyst')).map((q) => q.id)).not.toContain(mine!.id);
    expect((await historyOf('analyst'))[0]).toMatchObject({ queryId: mine!.id, sql: mine!.sql, status: 'cancelled' });
  });

  it('records a check that passed, and one that failed, still answering 200 with the verdict', async () => {
    const ok = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views/validate',
      payload: { sql: 'SELECT x FROM src.t' },
    });
    expect(ok.json()).toMatchObject({ ok: true, columns: [{ name: 'x' }] });
    expect((await historyOf('analyst'))[0]).toMatchObject({ status: 'ok', errorCode: null });
    expect((await historyOf('analyst'))[0].sql).toContain('SELECT x FROM src.t');
    const bad = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/views/validate',
      payload: { sql: 'SELECT y FROM src.t' },
    });
    expect(bad.statusCode).toBe(200);
    expect(bad.json().ok).toBe(false);
    expect((await historyOf('analyst'))[0]).toMatchObject({ status: 'error', errorCode: bad.json().error.code });
    expect(await runningOf('analyst')).toEqual([]);
  });
});
