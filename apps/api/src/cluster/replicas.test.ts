import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { openMetadata, type OpenedDb } from '../db/client.js';
import {
  createPgDatabase,
  pgExec,
  pgSourcePayload,
  startHarness,
  type Harness,
  type RoleName,
} from '../../test/harness.js';
import { until } from '../../test/wait.js';

// Two API servers ("replicas") on one PostgreSQL metadata database, as behind a load balancer:
// A is a harness (its users and tokens), B a second app on the same database and secret key.
let meta: Awaited<ReturnType<typeof createPgDatabase>>;
let src: Awaited<ReturnType<typeof createPgDatabase>>;
let a: Harness;
let bMeta: OpenedDb;
let b: FastifyInstance;

type Req = { method: string; url: string; payload?: unknown; headers?: Record<string, string> };
const onA = (role: RoleName | null, r: Req) => a.as(role, r);
const onB = (role: RoleName | null, r: Req): Promise<LightMyRequestResponse> =>
  b.inject({
    method: r.method as 'GET',
    url: r.url,
    ...(r.payload !== undefined ? { payload: r.payload as object } : {}),
    headers: { ...(role ? { authorization: `Bearer ${a.tokens[role]}` } : {}), ...(r.headers ?? {}) },
  });
const query = (on: typeof onA, role: RoleName, sql: string, queryId?: string) =>
  on(role, { method: 'POST', url: '/api/v1/query', payload: { sql, ...(queryId ? { queryId } : {}) } });

beforeAll(async () => {
  meta = await createPgDatabase('cluster_meta');
  src = await createPgDatabase('cluster_src');
  await pgExec(
    src.url,
    `CREATE TABLE public.region (r_regionkey int PRIMARY KEY, r_name text NOT NULL);
     INSERT INTO public.region VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE');
     CREATE FUNCTION slow_rows() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..100000 LOOP PERFORM pg_sleep(0.01); RETURN NEXT i; END LOOP; END $$;
     CREATE VIEW public.endless AS SELECT n FROM slow_rows() AS n;`,
  );
  const secretKey = randomBytes(32);
  a = await startHarness({ metadataUrl: meta.url, secretKey, cluster: { databaseUrl: meta.url, replicaName: 'A' } });
  bMeta = await openMetadata({ databaseUrl: meta.url, sqliteFile: path.join(a.dir, 'unused.db') });
  b = await buildApp({ db: bMeta.db, secretKey, webDist: null, cluster: { databaseUrl: meta.url, replicaName: 'B' } });
  await b.ready();
});
afterAll(async () => {
  await b?.close();
  await bMeta?.close();
  await a?.close();
  await meta?.drop();
  await src?.drop();
});

describe('several API servers on one PostgreSQL metadata database', () => {
  it('each reply names its server; /runtime says which it is and that it is shared', async () => {
    expect((await onA(null, { method: 'GET', url: '/api/v1/health' })).headers['x-junction-replica']).toBe('A');
    const refused = await onB(null, { method: 'GET', url: '/api/v1/runtime' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['x-junction-replica']).toBe('B');
    const runtime = (await onB('admin', { method: 'GET', url: '/api/v1/runtime' })).json();
    expect(runtime.replica).toMatchObject({ name: 'B', shared: true, id: b.cluster.self.id });
    expect((await a.app.cluster.replicas!.live()).map((r) => r.name)).toEqual(['A', 'B']);
  });

  it('a source registered on A is queryable on B at once; deleted on A, it is gone on B', async () => {
    const sql = 'SELECT r_name FROM src.region WHERE r_regionkey < 3 ORDER BY r_regionkey';
    const before = await query(onB, 'admin', sql);
    expect(before.statusCode).toBe(400);
    expect(before.json()).toMatchObject({ code: 'unknown_table', message: 'relation "src.region" does not exist' });
    const created = await onA('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: pgSourcePayload('src', src),
    });
    expect(created.statusCode).toBe(201);
    const after = await query(onB, 'admin', sql);
    expect(after.statusCode).toBe(200);
    expect(after.json().rows).toEqual([['AFRICA'], ['AMERICA'], ['ASIA']]);
    // B shows the source as the row says, with its catalog (B never introspected it)
    const detail = (await onB('admin', { method: 'GET', url: `/api/v1/sources/${created.json().id}` })).json();
    expect(detail).toMatchObject({ name: 'src', status: 'online', tables: 2 });

    expect((await onA('admin', { method: 'DELETE', url: `/api/v1/sources/${created.json().id}` })).statusCode).toBe(
      200,
    );
    const gone = await query(onB, 'admin', sql);
    expect(gone.statusCode).toBe(400);
    expect(gone.json()).toMatchObject({ code: 'unknown_table', message: 'relation "src.region" does not exist' });
    // back for the tests below
    expect(
      (await onA('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('src', src) })).statusCode,
    ).toBe(201);
  });

  it('a token created on A works on B; revoked on B, A refuses it at the next request', async () => {
    const created = await onA('analyst', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'ci', scopes: ['read'] },
    });
    expect(created.statusCode).toBe(201);
    const bearer = { authorization: `Bearer ${created.json().token}` };
    const me = await onB(null, { method: 'GET', url: '/api/v1/auth/me', headers: bearer });
    expect(me.statusCode).toBe(200);
    expect(me.json().username).toBe('analyst');
    // A has it cached now (for half a second)
    expect((await onA(null, { method: 'GET', url: '/api/v1/auth/me', headers: bearer })).statusCode).toBe(200);
    const revoked = await onB('analyst', { method: 'DELETE', url: `/api/v1/tokens/${created.json().id}` });
    expect(revoked.statusCode).toBe(200);
    const refused = await onA(null, { method: 'GET', url: '/api/v1/auth/me', headers: bearer });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('unauthenticated');
  });

  it('a disabled user is refused on the other server at once', async () => {
    const user = await onA('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'dora', password: 'dora-password', role: 'analyst' },
    });
    const login = await onB(null, {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'dora', password: 'dora-password' },
    });
    expect(login.statusCode).toBe(200);
    const cookie = { cookie: `junction_session=${login.cookies.find((c) => c.name === 'junction_session')!.value}` };
    expect((await onB(null, { method: 'GET', url: '/api/v1/auth/me', headers: cookie })).statusCode).toBe(200);
    const disabled = await onA('admin', {
      method: 'PATCH',
      url: `/api/v1/users/${user.json().id}`,
      payload: { disabled: true },
    });
    expect(disabled.statusCode).toBe(200);
    expect((await onB(null, { method: 'GET', url: '/api/v1/auth/me', headers: cookie })).statusCode).toBe(401);
  });

  it('a grant revoked on A stops the analyst on B at the next query', async () => {
    const grant = await onA('admin', {
      method: 'POST',
      url: '/api/v1/grants',
      payload: { role: 'analyst', sourceName: 'src' },
    });
    expect(grant.statusCode).toBe(201);
    const sql = 'SELECT count(*) AS n FROM src.region';
    const allowed = await query(onB, 'analyst', sql);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json().rows).toEqual([['4']]);
    expect((await onA('admin', { method: 'DELETE', url: `/api/v1/grants/${grant.json().id}` })).statusCode).toBe(200);
    const denied = await query(onB, 'analyst', sql);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('access_denied');
  });

  it("a view changed on A changes B's cached result", async () => {
    expect((await onA('admin', { method: 'POST', url: '/api/v1/schemas', payload: { name: 'rep' } })).statusCode).toBe(
      201,
    );
    const view = await onA('admin', {
      method: 'POST',
      url: '/api/v1/views',
      payload: {
        schema: 'rep',
        name: 'regions',
        sql: '/*+ cache(ttl=300) */ SELECT r_name FROM src.region WHERE r_regionkey < 2',
      },
    });
    expect(view.statusCode).toBe(201);
    const sql = 'SELECT r_name FROM rep.regions ORDER BY r_name';
    expect((await query(onB, 'admin', sql)).json()).toMatchObject({
      rows: [['AFRICA'], ['AMERICA']],
      stats: { cache: 'miss' },
    });
    expect((await query(onB, 'admin', sql)).json()).toMatchObject({
      rows: [['AFRICA'], ['AMERICA']],
      stats: { cache: 'hit' },
    });
    const patched = await onA('admin', {
      method: 'PATCH',
      url: `/api/v1/views/${view.json().id}`,
      payload: { sql: '/*+ cache(ttl=300) */ SELECT r_name FROM src.region WHERE r_regionkey >= 2' },
    });
    expect(patched.statusCode).toBe(200);
    expect((await query(onB, 'admin', sql)).json()).toMatchObject({
      rows: [['ASIA'], ['EUROPE']],
      stats: { cache: 'miss' },
    });
    expect((await onA('admin', { method: 'DELETE', url: `/api/v1/views/${view.json().id}` })).statusCode).toBe(200);
    expect((await query(onB, 'admin', sql)).json()).toMatchObject({ code: 'unknown_table' });
  });

  it('a cache purged on A is purged on B', async () => {
    const sql = '/*+ cache(ttl=300) */ SELECT count(*) AS n FROM src.region';
    await query(onB, 'admin', sql);
    expect((await query(onB, 'admin', sql)).json().stats.cache).toBe('hit');
    expect(
      (await onA('admin', { method: 'POST', url: '/api/v1/cache/purge', payload: { source: 'src' } })).statusCode,
    ).toBe(200);
    expect((await query(onB, 'admin', sql)).json().stats.cache).toBe('miss');
  });

  it('B lists a query running on A with its server, cancels it there, and only for its owner or an admin', async () => {
    const id = `long-${randomUUID()}`;
    const running = query(onA, 'admin', 'SELECT n FROM src.endless', id);
    await until('the query runs on A', () => a.app.junction.running.has(id), 10_000);
    const listed = await onB('admin', { method: 'GET', url: '/api/v1/queries' });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers['x-junction-unanswered-replicas']).toBeUndefined();
    expect(listed.json().filter((q: { id: string }) => q.id === id)).toEqual([
      {
        id,
        sql: 'SELECT n FROM src.endless',
        startedAt: expect.any(String),
        user: a.userIds.admin,
        replica: 'A',
      },
    ]);
    // another user's query: not listed for them, and not theirs to cancel, through any server
    const theirs = await onB('analyst', { method: 'GET', url: '/api/v1/queries' });
    expect(theirs.json().map((q: { id: string }) => q.id)).not.toContain(id);
    const notYours = await onB('analyst', { method: 'DELETE', url: `/api/v1/queries/${id}` });
    expect(notYours.statusCode).toBe(404);
    expect(notYours.json().code).toBe('query_not_found');
    expect(a.app.junction.running.has(id)).toBe(true);

    expect((await onB('admin', { method: 'DELETE', url: `/api/v1/queries/${id}` })).statusCode).toBe(200);
    const res = await running;
    expect(res.statusCode).toBe(499);
    expect(res.json()).toMatchObject({
      code: 'query_cancelled',
      kind: 'cancelled',
      message: 'The query was cancelled: cancelled by admin',
    });
    expect(
      (await onB('admin', { method: 'GET', url: '/api/v1/queries' })).json().map((q: { id: string }) => q.id),
    ).not.toContain(id);
    expect((await onB('admin', { method: 'DELETE', url: `/api/v1/queries/${id}` })).statusCode).toBe(404);
  });

  it('limits changed on A apply on B at once', async () => {
    const url = `/api/v1/limits/user/${a.userIds.analyst}`;
    const set = await onA('admin', { method: 'PUT', url, payload: { maxConcurrent: 3, maxQueued: 1 } });
    expect(set.statusCode).toBe(200);
    expect((await onB('analyst', { method: 'GET', url: '/api/v1/limits/mine' })).json()).toEqual({
      scope: 'user',
      maxConcurrent: 3,
      maxQueued: 1,
      queueTimeoutMs: 5000,
    });
    expect((await onB('admin', { method: 'DELETE', url })).statusCode).toBe(200);
    expect((await onA('analyst', { method: 'GET', url: '/api/v1/limits/mine' })).json()).toEqual({
      scope: 'default',
      maxConcurrent: 4,
      maxQueued: 16,
      queueTimeoutMs: 5000,
    });
  });

  it('a benchmark run on A is followed and cancelled through B; a run of a server gone is marked interrupted', async () => {
    const bench = await onA('admin', {
      method: 'POST',
      url: '/api/v1/benchmarks',
      payload: {
        name: 'regions',
        queries: [{ id: 'R', federated: 'SELECT count(*) FROM src.region' }],
        phases: [{ type: 'mix', users: 1, durationSeconds: 300, intervalSeconds: 1 }],
      },
    });
    expect(bench.statusCode).toBe(201);
    const started = await onA('admin', { method: 'POST', url: `/api/v1/benchmarks/${bench.json().id}/runs` });
    expect(started.statusCode).toBe(201);
    const { runId } = started.json();
    const onBRun = async () => (await onB('admin', { method: 'GET', url: `/api/v1/benchmark-runs/${runId}` })).json();
    // B reads the run's row, which A writes every second
    await until('B sees the run make progress', async () => (await onBRun()).progress?.executions > 0, 20_000);
    expect(a.app.cluster.self.id).toBe(
      (await a.meta.db.benchmarkRun.findUniqueOrThrow({ where: { id: runId } })).replica,
    );
    const cancelled = await onB('admin', { method: 'DELETE', url: `/api/v1/benchmark-runs/${runId}` });
    expect(cancelled.json()).toEqual({ ok: true, status: 'cancelled' });
    expect((await onBRun()).status).toBe('cancelled');
    expect((await onB('admin', { method: 'DELETE', url: `/api/v1/benchmark-runs/${runId}` })).statusCode).toBe(409);

    // a server killed during a run wrote no end: the others mark it after their next heartbeat
    const orphan = randomUUID();
    await a.meta.db.benchmarkRun.create({
      data: {
        id: orphan,
        name: 'orphan',
        results: '{}',
        status: 'running',
        replica: 'killed-1',
        userId: a.userIds.admin,
      },
    });
    await until(
      'the orphan run is marked interrupted',
      async () => (await a.meta.db.benchmarkRun.findUniqueOrThrow({ where: { id: orphan } })).status === 'interrupted',
      20_000,
    );
  });

  it('a server that does not answer is named, and a cancel it may hold is not taken for "no such query"', async () => {
    // a live row whose server listens nowhere: asks wait for it (a second), then name it
    await a.meta.db.$executeRawUnsafe(
      `INSERT INTO "Replica" ("id", "name", "seenAt") VALUES ('ghost-1', 'ghost', now() AT TIME ZONE 'UTC')`,
    );
    try {
      const listed = await onB('admin', { method: 'GET', url: '/api/v1/queries' });
      expect(listed.statusCode).toBe(200);
      expect(listed.headers['x-junction-unanswered-replicas']).toBe('ghost');
      const cancel = await onB('admin', { method: 'DELETE', url: '/api/v1/queries/nowhere' });
      expect(cancel.statusCode).toBe(503);
      expect(cancel.json()).toMatchObject({ code: 'replica_unreachable', details: { replicas: ['ghost'] } });
    } finally {
      await a.meta.db.replica.delete({ where: { id: 'ghost-1' } });
    }
  });
});

describe('one server on SQLite metadata', () => {
  it('runs nothing of the cluster: no heartbeat, no other server asked', async () => {
    const h = await startHarness();
    try {
      expect(h.app.cluster.shared).toBe(false);
      expect(h.app.cluster.replicas).toBeUndefined();
      const runtime = await h.as('admin', { method: 'GET', url: '/api/v1/runtime' });
      expect(runtime.json().replica).toMatchObject({ shared: false, name: h.app.cluster.self.name });
      expect(runtime.headers['x-junction-replica']).toBe(h.app.cluster.self.name);
      expect(await h.meta.db.replica.count()).toBe(0);
      expect((await h.as('admin', { method: 'DELETE', url: '/api/v1/queries/nowhere' })).statusCode).toBe(404);
    } finally {
      await h.close();
    }
  });
});
