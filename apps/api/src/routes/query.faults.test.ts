import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  createPgDatabase,
  pgExec,
  pgSourcePayload,
  startHarness,
  type Harness,
  type RoleName,
} from '../../test/harness.js';
import { mariadbBinaries, startPrivateMariadb, type PrivateMariadb } from '../../test/private-mariadb.js';
import { until } from '../../test/wait.js';

// Issue 16: a source that freezes or dies must cost Junction only that source's queries.
// The frozen/killed server is a private MariaDB this file starts; the healthy one is a
// throwaway database on the shared PostgreSQL, which is never stopped.

const TIMEOUT_MS = 2000;

let h: Harness;
let maria: PrivateMariadb;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
const ids: Record<string, string> = {};

async function timed(
  role: RoleName,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ res: LightMyRequestResponse; ms: number }> {
  const t0 = performance.now();
  const res = await h.as(role, { method: 'POST', url: '/api/v1/query', payload, headers });
  return { res, ms: performance.now() - t0 };
}

const status = async (name: string): Promise<{ status: string; statusMessage: string | null }> =>
  (await h.as('admin', { method: 'GET', url: `/api/v1/sources/${ids[name]}` })).json();

const skip = !mariadbBinaries();

describe.skipIf(skip)('a frozen or killed source (private MariaDB)', () => {
  beforeAll(async () => {
    maria = await startPrivateMariadb();
    await maria.exec(
      `CREATE TABLE t (id int PRIMARY KEY, s varchar(40));
       INSERT INTO t VALUES (1, 'one'), (2, 'two');
       CREATE TABLE big (id int PRIMARY KEY);
       INSERT INTO big SELECT seq FROM seq_1_to_1000;`,
    );
    pgdb = await createPgDatabase('api_faults');
    await pgExec(pgdb.url, `CREATE TABLE public.h (id int); INSERT INTO public.h SELECT generate_series(1, 100);`);
    // 8 slots as shipped; a high per-user limit so one user can fill a source's share
    h = await startHarness({ limits: { maxConcurrent: 8, maxQueued: 32, queueTimeoutMs: 10_000, perUser: 8 } });
    for (const [name, payload] of [
      [
        'frozen',
        {
          engine: 'mysql',
          host: maria.host,
          port: maria.port,
          database: maria.database,
          user: maria.user,
          password: maria.password,
        },
      ],
      [
        'healthy',
        {
          engine: 'postgresql',
          host: pgdb.host,
          port: pgdb.port,
          database: pgdb.name,
          user: pgdb.user,
          password: pgdb.password,
        },
      ],
    ] as const) {
      const res = await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: { name, ...payload } });
      expect(res.statusCode, res.body).toBe(201);
      ids[name] = res.json().id;
    }
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'healthy' } });
  });
  afterAll(async () => {
    await h?.close();
    await maria?.stop();
    await pgdb?.drop();
  });

  it('SIGSTOP: timeouts answer on time, the source holds only its share, others keep their latency, cancel is immediate, SIGCONT recovers', async () => {
    expect((await timed('admin', { sql: 'SELECT id, s FROM frozen.t ORDER BY id' })).res.statusCode).toBe(200);
    let baseline = 0;
    for (let i = 0; i < 5; i++) {
      const r = await timed('analyst', { sql: 'SELECT count(*) AS n FROM healthy.h' });
      expect(r.res.statusCode).toBe(200);
      baseline = Math.max(baseline, r.ms);
    }

    maria.freeze();
    const share = 6; // ¾ of 8 slots
    let maxRunning = 0;
    let maxOnFrozen = 0;
    const frozenShare = h.app.junction.shares.get('frozen')!;
    const sampler = setInterval(() => {
      maxRunning = Math.max(maxRunning, h.app.junction.admission.running);
      maxOnFrozen = Math.max(maxOnFrozen, frozenShare.active);
    }, 5);
    const frozen = Array.from({ length: 8 }, () =>
      timed('admin', { sql: 'SELECT id, s FROM frozen.t', timeoutMs: TIMEOUT_MS }),
    );
    let frozenDone = false;
    const allFrozen = Promise.all(frozen).finally(() => (frozenDone = true));
    // every frozen query at its source before the healthy ones start: a healthy query admitted
    // first would leave one frozen query waiting for a global slot, and it would reach the
    // share only after the others were refused, with nobody queueing behind it (no pressure):
    // it would wait for a share and time out instead of being refused
    await until('the frozen queries hold or wait for its share', () => frozenShare.active === share && frozenShare.waiting === 8 - share, 5000);
    const healthy: number[] = [];
    const healthyStatuses: number[] = [];
    while (!frozenDone) {
      const r = await timed('analyst', { sql: 'SELECT count(*) AS n FROM healthy.h' });
      healthyStatuses.push(r.res.statusCode);
      healthy.push(r.ms);
    }
    const results = await allFrozen;
    clearInterval(sampler);

    const timeouts = results.filter((r) => r.res.statusCode === 504);
    const busy = results.filter((r) => r.res.statusCode === 503);
    expect(timeouts).toHaveLength(share);
    for (const r of timeouts) {
      expect(r.res.json()).toMatchObject({ code: 'query_timeout', kind: 'timeout' });
      expect(r.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(r.ms).toBeLessThan(1.5 * TIMEOUT_MS);
    }
    expect(busy).toHaveLength(8 - share);
    for (const r of busy) {
      expect(r.res.json()).toMatchObject({ code: 'source_busy', kind: 'resources', details: { source: 'frozen' } });
      expect(r.res.headers['retry-after']).toBe('1');
      expect(r.ms).toBeLessThan(TIMEOUT_MS);
    }
    // the frozen source never held more than its share, so a healthy query always found a slot
    expect(maxOnFrozen).toBe(share);
    expect(healthyStatuses.every((s) => s === 200)).toBe(true);
    expect(Math.max(...healthy)).toBeLessThan(baseline + 1000);
    console.info(
      `frozen source: timeouts answered in ${timeouts.map((r) => Math.round(r.ms)).join('/')} ms (timeoutMs ${TIMEOUT_MS}); ` +
        `busy in ${busy.map((r) => Math.round(r.ms)).join('/')} ms; queries on the frozen source at most ${maxOnFrozen}, admission slots at most ${maxRunning}/8; ` +
        `healthy queries ${healthy.length}, max ${Math.round(Math.max(...healthy))} ms (baseline max ${Math.round(baseline)} ms)`,
    );

    // the cancels nobody answered make the source degraded, with the reason
    await until('frozen is degraded', async () => (await status('frozen')).status === 'degraded', 10_000);
    expect((await status('frozen')).statusMessage).toMatch(/stopped answering: it did not answer a cancel/);
    await until('all slots free', () => h.app.junction.admission.running === 0, 5000);

    // a cancel ends the query on Junction's side at once, though the source cannot hear it
    const pending = timed('admin', { sql: 'SELECT id, s FROM frozen.t', queryId: 'frozen-cancel' });
    await until('the query runs', () => h.app.junction.running.has('frozen-cancel'), 5000);
    const t0 = performance.now();
    const del = await h.as('admin', { method: 'DELETE', url: '/api/v1/queries/frozen-cancel' });
    expect(del.json()).toEqual({ ok: true });
    const cancelled = await pending;
    const cancelMs = performance.now() - t0;
    expect(cancelled.res.statusCode).toBe(499);
    expect(cancelled.res.json()).toMatchObject({ kind: 'cancelled' });
    expect(cancelMs).toBeLessThan(1000);
    expect(h.app.junction.running.has('frozen-cancel')).toBe(false);
    console.info(`frozen source: cancel answered ${Math.round(cancelMs)} ms after DELETE`);
    await until('all slots free', () => h.app.junction.admission.running === 0, 5000);

    maria.thaw();
    let ok: LightMyRequestResponse | undefined;
    await until(
      'frozen answers again',
      async () => {
        const r = await timed('admin', { sql: 'SELECT id, s FROM frozen.t ORDER BY id', timeoutMs: 5000 });
        if (r.res.statusCode === 200) ok = r.res;
        return ok !== undefined;
      },
      30_000,
    );
    expect(ok!.json().rows).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
    await until('frozen is online again', async () => (await status('frozen')).status === 'online', 5000);
  });

  it('SIGKILL mid-stream: its queries fail as external, others are unaffected, it recovers without a Junction restart', async () => {
    maria.thaw(); // in case the test before failed while the server was stopped
    const streaming = h.as('admin', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT a.id FROM frozen.big a CROSS JOIN frozen.big b' },
      headers: { accept: 'application/x-ndjson' },
    });
    // mid-stream: the statement is running on the server when it dies
    await until(
      'the statement runs on the server',
      async () =>
        Number(
          (
            await maria.rows(`SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%CROSS JOIN%big%'`)
          )[0][0],
        ) > 0,
      10_000,
    );
    await maria.kill();
    const res = await streaming;
    expect(res.statusCode).toBe(200);
    const last = JSON.parse(res.body.trim().split('\n').pop()!);
    expect(last.error).toMatchObject({ kind: 'external' });
    expect(['source_error', 'source_unavailable']).toContain(last.error.code);

    // while it is down: its queries fail fast as external, the healthy source answers
    const down = await timed('admin', { sql: 'SELECT id FROM frozen.t' });
    expect(down.res.statusCode).toBe(502);
    expect(down.res.json()).toMatchObject({ kind: 'external', details: { source: 'frozen' } });
    const other = await timed('analyst', { sql: 'SELECT count(*) AS n FROM healthy.h' });
    expect(other.res.statusCode).toBe(200);
    expect(other.res.json().rows).toEqual([['100']]);

    await maria.restart();
    await until(
      'frozen answers after the restart',
      async () => (await timed('admin', { sql: 'SELECT count(*) AS n FROM frozen.big' })).res.statusCode === 200,
      30_000,
    );
    await until('frozen is online again', async () => (await status('frozen')).status === 'online', 5000);
    await until('all slots free', () => h.app.junction.admission.running === 0, 5000);
  });
});

describe('JSON replies are bounded by bytes', () => {
  let j: Harness;
  let db: Awaited<ReturnType<typeof createPgDatabase>>;
  beforeAll(async () => {
    db = await createPgDatabase('api_jsonbytes');
    // ~6 KB a row, 50,000 rows: the 300 MB reply of issue 16
    await pgExec(
      db.url,
      `CREATE VIEW public.wide AS SELECT g AS id, repeat(md5(g::text), 190) AS pad FROM generate_series(1, 50000) g`,
    );
    // every request on one source here: its share must not be what limits them
    j = await startHarness({ limits: { maxConcurrent: 8, perUser: 8, perSource: 8 } });
    const res = await j.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: pgSourcePayload('w', db),
    });
    expect(res.statusCode).toBe(201);
  });
  afterAll(async () => {
    await j?.close();
    await db?.drop();
  });

  it('8 concurrent 300 MB results get a 400 that says to use NDJSON, with the RSS bounded', async () => {
    const limit = j.app.junction.limits.maxJsonBytes;
    global.gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        j.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT id, pad FROM w.wide' } }),
      ),
    );
    clearInterval(sampler);
    for (const r of results) {
      expect(r.statusCode).toBe(400);
      const body = r.json();
      expect(body).toMatchObject({ code: 'json_reply_too_large', kind: 'user', details: { maxJsonBytes: limit } });
      expect(body.message).toMatch(/application\/x-ndjson/);
      expect(body.message).toMatch(/maxRows/);
    }
    const grownMb = (peak - base) / 2 ** 20;
    console.info(
      `8 concurrent JSON requests of 50,000 × 6 KB rows: RSS ${Math.round(base / 2 ** 20)} MB → peak ${Math.round(peak / 2 ** 20)} MB (+${Math.round(grownMb)} MB); limit ${limit} bytes`,
    );
    // at most 8 replies of `limit` bytes in flight, plus the engine's batches: not 8 × 300 MB
    expect(grownMb).toBeLessThan((8 * limit) / 2 ** 20 + 400);
    await until('all slots free', () => j.app.junction.admission.running === 0, 5000);
  });

  it('a reply under the limit is one valid JSON document of the exact length', async () => {
    const r = await j.as('admin', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id, pad FROM w.wide WHERE id <= 2000' },
    });
    expect(r.statusCode).toBe(200);
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    const body = r.json();
    expect(body.rows).toHaveLength(2000);
    expect(body.rows[1999][0]).toBe(2000);
    expect(body.stats.rows).toBe(2000);
    expect(body.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'pad']);
  });

  it('max_rows_exceeded is a client error that points at NDJSON', async () => {
    const r = await j.as('admin', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id FROM w.wide', maxRows: 10 },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'max_rows_exceeded', kind: 'user', details: { maxRows: 10 } });
    expect(r.json().message).toMatch(/application\/x-ndjson/);
  });
});
