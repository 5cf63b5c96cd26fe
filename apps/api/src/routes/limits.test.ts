import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { limitsFromEnv } from '../lib/limits.js';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  pgdb = await createPgDatabase('api_limits');
  // two seconds per query: long enough that a waiter's short timeout is over well before it ends
  await pgExec(
    pgdb.url,
    `CREATE VIEW public.slow AS SELECT 1 AS n FROM pg_sleep(2);
     CREATE VIEW public.short AS SELECT 1 AS n FROM pg_sleep(0.3);
     CREATE VIEW public.fast AS SELECT 1 AS n;`,
  );
  // by default one query per user and no queue: each test below raises what it needs through the API
  h = await startHarness({ limits: { maxConcurrent: 16, maxQueued: 16, perUser: 1, perUserQueued: 0 } });
  const res = await h.as('admin', {
    method: 'POST',
    url: '/api/v1/sources',
    payload: pgSourcePayload('src', pgdb),
  });
  expect(res.statusCode).toBe(201);
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'src' } });
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
});

const tokenOf = async (userId: string) => (await h.meta.db.apiToken.findFirstOrThrow({ where: { userId } })).id;
const bearer = (token: string, sql: string) =>
  h.app.inject({
    method: 'POST',
    url: '/api/v1/query',
    payload: { sql },
    headers: { authorization: `Bearer ${token}` },
  });
const put = (url: string, payload: object) => h.as('admin', { method: 'PUT', url, payload });
/** Polls on the event loop until the server reaches a state (bounded by the test's timeout). */
const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setImmediate(r));
};

describe('concurrency limits', () => {
  it('over its limit a query waits in a bounded queue, then gets 429 with Retry-After; a full queue refuses at once', async () => {
    const id = await tokenOf(h.userIds.admin);
    expect(
      (await put(`/api/v1/limits/token/${id}`, { maxConcurrent: 1, maxQueued: 1, queueTimeoutMs: 200 })).statusCode,
    ).toBe(200);
    const order: string[] = [];
    const send = (name: string) =>
      h.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT n FROM src.slow' } }).then((r) => {
        order.push(`${name} ${r.statusCode}`);
        return r;
      });
    const running = send('first');
    // each arrives in turn: the first holds the token's one slot, the waiter fills its queue
    await until(() => h.app.junction.admission.running === 1);
    const waiting = send('waiter');
    await until(() => h.app.junction.admission.waitingFor(`token:${id}`) === 1);
    const refused = send('third');
    const [a, b, c] = await Promise.all([running, waiting, refused]);
    expect([a.statusCode, b.statusCode, c.statusCode]).toEqual([200, 429, 429]);
    // the third found the queue full and was refused at once; the waiter gave up after its
    // 200 ms, long before the running query's two seconds were over
    expect(order).toEqual(['third 429', 'waiter 429', 'first 200']);
    for (const r of [b, c]) {
      expect(r.headers['retry-after']).toBe('1');
      expect(r.json()).toMatchObject({
        code: 'user_concurrency_limit',
        kind: 'resources',
        details: { scope: 'token', limit: 1, maxQueued: 1, queueTimeoutMs: 200, retryAfterSeconds: 1 },
      });
    }
    await h.as('admin', { method: 'DELETE', url: `/api/v1/limits/token/${id}` });
  });

  it('a waiting query runs when a slot frees, one at a time', async () => {
    const id = await tokenOf(h.userIds.admin);
    await put(`/api/v1/limits/token/${id}`, { maxConcurrent: 1, maxQueued: 5, queueTimeoutMs: 60_000 });
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, h.app.junction.admission.running)), 5);
    const results = await Promise.all(
      Array.from({ length: 3 }, () =>
        h.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT n FROM src.short' } }),
      ),
    );
    clearInterval(watch);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(most).toBe(1);
    await h.as('admin', { method: 'DELETE', url: `/api/v1/limits/token/${id}` });
  });

  it("a token's own limit is counted on its own, not against its user's", async () => {
    const made = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'app', scopes: ['query'] },
    });
    const app = made.json() as { id: string; token: string };
    expect((await put(`/api/v1/limits/token/${app.id}`, { maxConcurrent: 2 })).statusCode).toBe(200);
    expect(
      (
        await h.app.inject({
          method: 'GET',
          url: '/api/v1/limits/mine',
          headers: { authorization: `Bearer ${app.token}` },
        })
      ).json(),
    ).toEqual({ scope: 'token', maxConcurrent: 2, maxQueued: 0, queueTimeoutMs: 5_000 });
    // two on the application's token and one on the person's own token, all at once
    const started = [
      bearer(app.token, 'SELECT n FROM src.slow'),
      bearer(app.token, 'SELECT n FROM src.slow'),
      bearer(h.tokens.analyst, 'SELECT n FROM src.slow'),
    ];
    await until(() => h.app.junction.admission.running === 3);
    // the person's limit (the default, 1, no queue) still holds for their other requests
    const extra = await bearer(h.tokens.analyst, 'SELECT n FROM src.fast');
    const [x, y, own] = await Promise.all(started);
    expect([x.statusCode, y.statusCode, own.statusCode, extra.statusCode]).toEqual([200, 200, 200, 429]);
    expect(extra.json().details).toMatchObject({ scope: 'default', limit: 1 });
  });

  it("a role's limit applies to each member; a user's own setting overrides it", async () => {
    expect((await put('/api/v1/limits/role/analyst', { maxConcurrent: 2, maxQueued: 0 })).statusCode).toBe(200);
    const two = await Promise.all([0, 1, 2].map(() => bearer(h.tokens.analyst, 'SELECT n FROM src.slow')));
    expect(two.map((r) => r.statusCode).sort()).toEqual([200, 200, 429]);
    expect(two.find((r) => r.statusCode === 429)!.json().details).toMatchObject({ scope: 'role', limit: 2 });
    // the role's other fields still apply to a user who sets only maxConcurrent
    expect((await put(`/api/v1/limits/user/${h.userIds.analyst}`, { maxConcurrent: 3 })).statusCode).toBe(200);
    const mine = await h.as('analyst', { method: 'GET', url: '/api/v1/limits/mine' });
    expect(mine.json()).toEqual({ scope: 'user', maxConcurrent: 3, maxQueued: 0, queueTimeoutMs: 5_000 });
    const three = await Promise.all([0, 1, 2].map(() => bearer(h.tokens.analyst, 'SELECT n FROM src.slow')));
    expect(three.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    await h.as('admin', { method: 'DELETE', url: `/api/v1/limits/user/${h.userIds.analyst}` });
    await h.as('admin', { method: 'DELETE', url: '/api/v1/limits/role/analyst' });
  });

  it('the server-wide limit is settable too and keeps its 503', async () => {
    expect((await put('/api/v1/limits/server', { maxConcurrent: 1, maxQueued: 0 })).statusCode).toBe(200);
    const [a, b] = await Promise.all([
      bearer(h.tokens.admin, 'SELECT n FROM src.slow'),
      bearer(h.tokens.analyst, 'SELECT n FROM src.slow'),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 503]);
    const busy = [a, b].find((r) => r.statusCode === 503)!;
    expect(busy.json().code).toBe('server_busy');
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await h.as('admin', { method: 'DELETE', url: '/api/v1/limits/server' })).statusCode).toBe(200);
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/limits' })).json().server).toEqual({
      maxConcurrent: 16,
      maxQueued: 16,
      queueTimeoutMs: 10_000,
    });
  });

  it('settings are stored in the metadata database and apply after a restart', async () => {
    const id = await tokenOf(h.userIds.viewer);
    await put(`/api/v1/limits/token/${id}`, { maxConcurrent: 7, queueTimeoutMs: 1_500 });
    await put('/api/v1/limits/role/viewer', { maxQueued: 3 });
    const again = await buildApp({ db: h.meta.db, secretKey: randomBytes(32), webDist: null, limits: { perUser: 1 } });
    try {
      await again.ready();
      const mine = await again.inject({
        method: 'GET',
        url: '/api/v1/limits/mine',
        headers: { authorization: `Bearer ${h.tokens.viewer}` },
      });
      expect(mine.json()).toEqual({ scope: 'token', maxConcurrent: 7, maxQueued: 3, queueTimeoutMs: 1_500 });
    } finally {
      await again.close();
    }
    const listed = (await h.as('admin', { method: 'GET', url: '/api/v1/limits' })).json();
    expect(listed.overrides.filter((o: { subject: string }) => o.subject === 'viewer' || o.subject === id)).toEqual([
      expect.objectContaining({
        scope: 'role',
        subject: 'viewer',
        maxConcurrent: null,
        maxQueued: 3,
        queueTimeoutMs: null,
      }),
      expect.objectContaining({
        scope: 'token',
        subject: id,
        maxConcurrent: 7,
        maxQueued: null,
        queueTimeoutMs: 1_500,
      }),
    ]);
    expect(listed.defaults).toEqual({
      server: { maxConcurrent: 16, maxQueued: 16, queueTimeoutMs: 10_000 },
      principal: { maxConcurrent: 1, maxQueued: 0, queueTimeoutMs: 5_000 },
    });
    const audit = (await h.as('admin', { method: 'GET', url: '/api/v1/audit?action=limits.set' })).json();
    expect(audit.find((a: { target: string }) => a.target === 'role:viewer')).toMatchObject({
      action: 'limits.set',
      details: { maxQueued: 3 },
    });
    await h.as('admin', { method: 'DELETE', url: `/api/v1/limits/token/${id}` });
    await h.as('admin', { method: 'DELETE', url: '/api/v1/limits/role/viewer' });
  });

  it('only admins set limits; unknown subjects are 404, bad values 400', async () => {
    expect(
      (await h.as('analyst', { method: 'PUT', url: '/api/v1/limits/server', payload: { maxConcurrent: 99 } }))
        .statusCode,
    ).toBe(403);
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/limits' })).statusCode).toBe(403);
    const noUser = await put('/api/v1/limits/user/nobody', { maxConcurrent: 2 });
    expect([noUser.statusCode, noUser.json().code]).toEqual([404, 'user_not_found']);
    expect((await put('/api/v1/limits/token/nothing', { maxConcurrent: 2 })).json().code).toBe('token_not_found');
    expect((await put('/api/v1/limits/role/owner', { maxConcurrent: 2 })).json().code).toBe('role_not_found');
    const zero = await put('/api/v1/limits/role/viewer', { maxConcurrent: 0 });
    expect([zero.statusCode, zero.json().details.field]).toEqual([400, 'body.maxConcurrent']);
    expect((await put('/api/v1/limits/role/viewer', {})).statusCode).toBe(400);
    expect((await put('/api/v1/limits/group/x', { maxConcurrent: 1 })).statusCode).toBe(400);
    expect((await h.as('admin', { method: 'DELETE', url: '/api/v1/limits/role/viewer' })).statusCode).toBe(404);
  });

  it('a deleted user takes its settings and its tokens\u2019 with it', async () => {
    const made = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/users',
      payload: { username: 'svc', password: 'svc-password-1', role: 'analyst' },
    });
    const userId = made.json().id as string;
    await put(`/api/v1/limits/user/${userId}`, { maxConcurrent: 5 });
    expect(h.app.junction.limitStore.get('user', userId)?.maxConcurrent).toBe(5);
    expect((await h.as('admin', { method: 'DELETE', url: `/api/v1/users/${userId}` })).statusCode).toBe(200);
    expect(h.app.junction.limitStore.get('user', userId)).toBeUndefined();
    expect(await h.meta.db.concurrencyLimit.count({ where: { subject: userId } })).toBe(0);
  });
});

describe('limits from the environment', () => {
  it('reads whole numbers and refuses anything else at start', () => {
    expect(
      limitsFromEnv({
        JUNCTION_MAX_CONCURRENT: '12',
        JUNCTION_MAX_QUEUED: '0',
        JUNCTION_QUEUE_TIMEOUT_MS: '2500',
        JUNCTION_USER_CONCURRENCY: '6',
        JUNCTION_USER_QUEUED: '8',
        JUNCTION_USER_QUEUE_TIMEOUT_MS: '750',
        JUNCTION_QUERY_MEMORY_BYTES: '1073741824',
      }),
    ).toEqual({
      maxConcurrent: 12,
      maxQueued: 0,
      queueTimeoutMs: 2500,
      perUser: 6,
      perUserQueued: 8,
      perUserQueueTimeoutMs: 750,
      memoryBudgetBytes: 1073741824,
    });
    expect(limitsFromEnv({ JUNCTION_USER_CONCURRENCY: '' })).toEqual({});
    expect(() => limitsFromEnv({ JUNCTION_USER_CONCURRENCY: '0' })).toThrow(
      'JUNCTION_USER_CONCURRENCY must be a whole number from 1 (got "0")',
    );
    expect(() => limitsFromEnv({ JUNCTION_MAX_QUEUED: 'lots' })).toThrow('JUNCTION_MAX_QUEUED');
    expect(() => limitsFromEnv({ JUNCTION_QUERY_MEMORY_BYTES: '65536' })).toThrow(
      'JUNCTION_QUERY_MEMORY_BYTES must be a whole number from 1048576 (got "65536")',
    );
  });
});
