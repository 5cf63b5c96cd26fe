import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness, type RoleName } from '../../test/harness.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../../../../packages/connectors/test/support/fault-proxy.js';
import { until } from '../../test/wait.js';

// Issue 26: network faults between Junction and one source (latency, loss, a reset mid-result,
// a blackhole) must cost only that source's queries, end them with a clear answer within the
// source's timeouts, and heal without a restart once the network does. `flaky` is a throwaway
// database on the shared PostgreSQL reached through a fault-injecting relay; `healthy` another
// one reached directly. JUNCTION_FAULTS_SECONDS > 0 repeats the cycles for that long (soak).

const POOL_MAX = 4;
// short enough that a blackhole costs seconds; long enough that 30 % loss (a chunk waits 4.6 s
// only after five losses in a row) and 200 ± 100 ms latency (a connect is three round trips) pass
const STATEMENT_TIMEOUT_MS = 5000;
const CONNECT_TIMEOUT_MS = 4000;
// on top of a timeout: the cancel path, two busy cores and a concurrent test run
const MARGIN_MS = 3000;
const RESET_AFTER_BYTES = 128 * 1024;
const BIG_ROWS = 200_000;
const LONG_SECONDS = Number(process.env.JUNCTION_FAULTS_SECONDS ?? 0) || 0;

const T_ROWS = [
  [1, 'one'],
  [2, 'two'],
  [3, 'three'],
];

let h: Harness;
let proxy: FaultProxy;
let flakyDb: Awaited<ReturnType<typeof createPgDatabase>>;
let healthyDb: Awaited<ReturnType<typeof createPgDatabase>>;
let healthyBaselineMs = 0;

async function timed(
  role: RoleName,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ res: LightMyRequestResponse; ms: number }> {
  const t0 = performance.now();
  const res = await h.as(role, { method: 'POST', url: '/api/v1/query', payload, headers });
  return { res, ms: performance.now() - t0 };
}

const flakyT = (): ReturnType<typeof timed> => timed('admin', { sql: 'SELECT id, s FROM flaky.t ORDER BY id' });
const healthyCount = (): ReturnType<typeof timed> => timed('analyst', { sql: 'SELECT count(*) AS n FROM healthy.h' });

/** "200", or "<status>/<code>" of the reply or, for a stream cut after its head, of its last line */
function saw(res: LightMyRequestResponse): string {
  if (res.statusCode !== 200) return `${res.statusCode}/${res.json().code}`;
  if (!String(res.headers['content-type']).includes('ndjson')) return '200';
  const last = JSON.parse(res.body.trim().split('\n').pop()!);
  return last.error ? `200/${last.error.code}` : '200';
}

/** The data lines of an NDJSON reply (between the head and the stats or error line). */
function ndjsonRows(res: LightMyRequestResponse): unknown[][] {
  const lines = res.body.trim().split('\n').map((l) => JSON.parse(l));
  return lines.filter((l) => Array.isArray(l));
}

/**
 * Runs `flaky` while healthy queries run back to back, until every flaky one answered; every
 * healthy one must answer 200 with its exact rows and without waiting behind the faulty source.
 */
async function alongsideHealthy<T>(flaky: Promise<T>): Promise<{ value: T; healthy: number[] }> {
  let done = false;
  const all = flaky.finally(() => (done = true));
  const healthy: number[] = [];
  while (!done) {
    const r = await healthyCount();
    expect(r.res.statusCode, r.res.body).toBe(200);
    expect(r.res.json().rows).toEqual([['100']]);
    healthy.push(r.ms);
  }
  const value = await all;
  // generous: the healthy source shares two cores with the relay, the flaky queries and other tests
  expect(Math.max(...healthy)).toBeLessThan(healthyBaselineMs + 2500);
  return { value, healthy };
}

/** Nothing the fault left behind: connections, running queries, admission slots, shares. */
async function assertNothingLeaks(): Promise<void> {
  await until('the relay holds at most the pool', () => proxy.connections() <= POOL_MAX, 15_000);
  await until('no admission slot held', () => h.app.junction.admission.running === 0, 5000);
  const running = await h.as('admin', { method: 'GET', url: '/api/v1/queries' });
  expect(running.statusCode).toBe(200);
  expect(running.json()).toEqual([]);
  expect(h.app.junction.shares.get('flaky')!.active).toBe(0);
  // a burst of pool-max queries finds every slot, share and pooled connection free
  const burst = await Promise.all(Array.from({ length: POOL_MAX }, () => flakyT()));
  for (const r of burst) {
    expect(r.res.statusCode, r.res.body).toBe(200);
    expect(r.res.json().rows).toEqual(T_ROWS);
  }
  expect(proxy.connections()).toBeLessThanOrEqual(POOL_MAX);
  // a fault that made it offline or degraded is forgotten once it answers again
  await until(
    'flaky is online',
    async () => (await h.as('admin', { method: 'GET', url: '/api/v1/sources/flaky' })).json().status === 'online',
    5000,
  );
}

/** Heals the network and measures how long until the flaky source answers its exact rows again. */
async function recover(): Promise<number> {
  proxy.set({ kind: 'none' });
  const t0 = performance.now();
  await until(
    'flaky answers again',
    async () => {
      const r = await flakyT();
      return r.res.statusCode === 200 && JSON.stringify(r.res.json().rows) === JSON.stringify(T_ROWS);
    },
    30_000,
  );
  return Math.round(performance.now() - t0);
}

type Cycle = () => Promise<{ saw: string; recoveryMs: number }>;

const cycles: Record<Exclude<Fault['kind'], 'none'>, Cycle> = {
  async latency() {
    proxy.set({ kind: 'latency', ms: 200, jitterMs: 100 });
    const { value } = await alongsideHealthy(
      Promise.all([
        ...Array.from({ length: POOL_MAX - 1 }, () => flakyT()),
        timed('admin', { sql: 'SELECT count(*) AS n, sum(id) AS s FROM flaky.big' }),
      ]),
    );
    for (const r of value.slice(0, -1)) {
      expect(r.res.statusCode, r.res.body).toBe(200);
      expect(r.res.json().rows).toEqual(T_ROWS);
      expect(r.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + MARGIN_MS);
    }
    const agg = value.at(-1)!;
    expect(agg.res.statusCode, agg.res.body).toBe(200);
    expect(agg.res.json().rows).toEqual([[String(BIG_ROWS), String((BIG_ROWS * (BIG_ROWS + 1)) / 2)]]);
    return { saw: saw(value[0].res), recoveryMs: await recover() };
  },

  async loss() {
    proxy.set({ kind: 'loss', rate: 0.3 });
    const { value } = await alongsideHealthy(
      Promise.all([
        ...Array.from({ length: POOL_MAX - 1 }, () => flakyT()),
        // a result of many chunks, so a lost one and the head-of-line wait behind it are certain
        timed('admin', { sql: 'SELECT id FROM flaky.big WHERE id <= 20000 ORDER BY id' }),
      ]),
    );
    for (const r of value.slice(0, -1)) {
      expect(r.res.statusCode, r.res.body).toBe(200);
      expect(r.res.json().rows).toEqual(T_ROWS);
    }
    const many = value.at(-1)!;
    expect(many.res.statusCode, many.res.body).toBe(200);
    expect(many.res.json().rows).toEqual(Array.from({ length: 20000 }, (_, i) => [i + 1]));
    return { saw: saw(value[0].res), recoveryMs: await recover() };
  },

  async reset() {
    proxy.set({ kind: 'reset', afterBytes: RESET_AFTER_BYTES });
    const ndjson = { accept: 'application/x-ndjson' };
    const { value } = await alongsideHealthy(
      Promise.all([
        timed('admin', { sql: 'SELECT id FROM flaky.big WHERE id <= 90000' }),
        timed('admin', { sql: 'SELECT id FROM flaky.big WHERE id <= 90000' }),
        timed('admin', { sql: 'SELECT id FROM flaky.big' }, ndjson),
        timed('admin', { sql: 'SELECT id FROM flaky.big' }, ndjson),
      ]),
    );
    for (const r of value.slice(0, 2)) {
      // a broken connection is the source's failure, said so: not a 500 'internal'
      expect(r.res.statusCode, r.res.body).toBe(502);
      const body = r.res.json();
      expect(body).toMatchObject({ code: 'source_error', kind: 'external', details: { source: 'flaky', driverCode: 'ECONNRESET' } });
      expect(body.message).toMatch(/^Source "flaky" failed the query: the connection to its server broke \(read ECONNRESET\)/);
      expect(r.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + MARGIN_MS);
    }
    for (const r of value.slice(2)) {
      expect(r.res.statusCode).toBe(200);
      const last = JSON.parse(r.res.body.trim().split('\n').pop()!);
      expect(last.error).toMatchObject({
        code: 'source_error',
        kind: 'external',
        details: { source: 'flaky', driverCode: 'ECONNRESET' },
      });
      // cut mid-result: some rows arrived, not all
      const rows = ndjsonRows(r.res);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.length).toBeLessThan(BIG_ROWS);
    }
    const recoveryMs = await recover();
    // and the whole big result streams again
    const whole = await timed('admin', { sql: 'SELECT id FROM flaky.big' }, ndjson);
    expect(whole.res.statusCode).toBe(200);
    const rows = ndjsonRows(whole.res);
    expect(rows).toHaveLength(BIG_ROWS);
    expect(rows.every((row, i) => row[0] === i + 1 || row[0] === String(i + 1))).toBe(true);
    expect(JSON.parse(whole.res.body.trim().split('\n').pop()!)).toHaveProperty('stats');
    return { saw: saw(value[0].res), recoveryMs };
  },

  async blackhole() {
    // pooled connections exist before the fault, so the first queries meet it on them
    expect((await flakyT()).res.statusCode).toBe(200);
    proxy.set({ kind: 'blackhole' });
    // one more than the pool: it meets the fault waiting for a connection
    const { value } = await alongsideHealthy(Promise.all(Array.from({ length: POOL_MAX + 1 }, () => flakyT())));
    for (const r of value) {
      expect(r.res.statusCode, r.res.body).toBe(504);
      expect(r.res.json()).toMatchObject({
        code: 'source_statement_timeout',
        kind: 'timeout',
        details: { source: 'flaky', timeoutMs: STATEMENT_TIMEOUT_MS },
      });
      expect(r.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + MARGIN_MS);
    }
    // still blackholed: the stopped queries hold no slot, share or listing past their timeout
    await until('no admission slot held', () => h.app.junction.admission.running === 0, 2000);
    expect(h.app.junction.shares.get('flaky')!.active).toBe(0);
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/queries' })).json()).toEqual([]);

    // the path flaps while staying black: every connection drops, so the next query needs a new
    // one, which the blackhole lets open (TCP) but never answer
    proxy.resetAll();
    // a cancel request sent into the blackhole may still be connecting: it gives up after 5 s
    await until('the relay holds no connection', () => proxy.connections() === 0, 10_000);
    // the stopped statements' connections go back (or are cut) within the cancel grace (2 s); a
    // query sent before that may wait for one of them, and then its new connection's 4 s connect
    // timeout runs past its 5 s statement timeout (seen once on a loaded CI machine: 504, not 502)
    await new Promise((r) => setTimeout(r, 2500));
    const fresh = await alongsideHealthy(flakyT());
    expect(fresh.value.res.statusCode, fresh.value.res.body).toBe(502);
    expect(fresh.value.res.json()).toMatchObject({
      code: 'source_unavailable',
      kind: 'external',
      details: { source: 'flaky', diagnosis: 'timeout' },
    });
    expect(fresh.value.ms).toBeLessThan(CONNECT_TIMEOUT_MS + MARGIN_MS);
    await until('no admission slot held', () => h.app.junction.admission.running === 0, 2000);
    return { saw: `${saw(value[0].res)}+${saw(fresh.value.res)}`, recoveryMs: await recover() };
  },
};

async function runCycle(kind: keyof typeof cycles): Promise<void> {
  const r = await cycles[kind]();
  await assertNothingLeaks();
  console.info(`fault=${kind} user saw=${r.saw} recovery_ms=${r.recoveryMs}`);
}

describe('network faults between Junction and one source', () => {
  beforeAll(async () => {
    flakyDb = await createPgDatabase('netf_flaky');
    await pgExec(
      flakyDb.url,
      `CREATE TABLE public.t (id int PRIMARY KEY, s text);
       INSERT INTO public.t VALUES (1, 'one'), (2, 'two'), (3, 'three');
       CREATE TABLE public.big AS SELECT g AS id FROM generate_series(1, ${BIG_ROWS}) g;
       ANALYZE public.big;`,
    );
    healthyDb = await createPgDatabase('netf_healthy');
    await pgExec(healthyDb.url, `CREATE TABLE public.h (id int); INSERT INTO public.h SELECT generate_series(1, 100);`);
    proxy = await startFaultProxy(flakyDb.host, flakyDb.port);
    h = await startHarness({ limits: { maxConcurrent: 8, maxQueued: 32, queueTimeoutMs: 10_000, perUser: 8 } });
    const flaky = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: {
        ...pgSourcePayload('flaky', flakyDb),
        host: '127.0.0.1',
        port: proxy.port,
        options: {
          pool: { max: POOL_MAX },
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
          statementTimeoutMs: STATEMENT_TIMEOUT_MS,
        },
      },
    });
    expect(flaky.statusCode, flaky.body).toBe(201);
    const healthy = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: pgSourcePayload('healthy', healthyDb),
    });
    expect(healthy.statusCode, healthy.body).toBe(201);
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'healthy' } });
    for (let i = 0; i < 5; i++) {
      const r = await healthyCount();
      expect(r.res.statusCode, r.res.body).toBe(200);
      healthyBaselineMs = Math.max(healthyBaselineMs, r.ms);
    }
    // a full pool before the faults: pooled connections meet them as well as new ones
    await assertNothingLeaks();
  });
  afterAll(async () => {
    proxy?.set({ kind: 'none' });
    await h?.close();
    await proxy?.close();
    await flakyDb?.drop();
    await healthyDb?.drop();
  });

  for (const kind of Object.keys(cycles) as (keyof typeof cycles)[]) {
    it(`${kind}: flaky answers as it should, healthy is untouched, flaky heals, nothing leaks`, async () => {
      await runCycle(kind);
    });
  }

  it.runIf(LONG_SECONDS > 0)(
    `soak: inject → observe → recover for ${LONG_SECONDS} s`,
    async () => {
      const deadline = Date.now() + LONG_SECONDS * 1000;
      const kinds = Object.keys(cycles) as (keyof typeof cycles)[];
      for (let i = 0; Date.now() < deadline; i++) await runCycle(kinds[i % kinds.length]);
    },
    LONG_SECONDS * 1000 + 120_000,
  );
});
