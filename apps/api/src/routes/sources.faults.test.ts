import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import mysql from 'mysql2/promise';
import { createPgDatabase, pgExec, startHarness, type Harness, type RoleName } from '../../test/harness.js';
import { mariadbBinaries, startPrivateMariadb, type PrivateMariadb } from '../../test/private-mariadb.js';
import { postgresSkipReason, startPrivatePostgres, type PrivatePostgres } from '../../test/private-postgres.js';
import { RecordWriter } from '../lib/record-writer.js';
import { until } from '../../test/wait.js';

// Issue 26: reliability under real faults. A source server restarted under load, a source out of
// connections, a password rotated while queries run, and Junction's own metadata PostgreSQL
// restarted under load. The servers that fail are private ones this file starts; the healthy
// source is a throwaway database on the shared PostgreSQL, which is never stopped.
//
// JUNCTION_FAULTS_SECONDS > 0 repeats each inject → observe → recover cycle until that many
// seconds have passed (a soak); 0, as in CI, runs each once.

const FAULT_SECONDS = Number(process.env.JUNCTION_FAULTS_SECONDS ?? 0);
/** per test: one cycle's worst case on a loaded 2-core machine, plus the soak */
const TEST_TIMEOUT_MS = 240_000 + FAULT_SECONDS * 1000 * 2;
/** what every client asks for; a request may take this plus a margin for the loaded machine */
const QUERY_TIMEOUT_MS = 5000;
const MARGIN_MS = 4000;

const pgSkip = postgresSkipReason();
const mariaSkip = mariadbBinaries() ? undefined : 'mariadbd / mariadb-install-db not found';
if (pgSkip) console.warn(`sources.faults: private PostgreSQL tests skipped: ${pgSkip}`);
if (mariaSkip) console.warn(`sources.faults: private MariaDB test skipped: ${mariaSkip}`);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Load loops end by this time even when the test body threw before it told them to stop: a loop
 * left running would keep hammering the app (and growing its log of answers) after the test.
 */
const loopDeadline = (): number => performance.now() + 150_000;

/** One inject → observe → recover cycle per call, repeated for the soak; one line per cycle. */
async function cycles(
  fault: string,
  run: (cycle: number) => Promise<{ saw: string; recoveryMs: number }>,
): Promise<void> {
  const end = Date.now() + FAULT_SECONDS * 1000;
  let cycle = 0;
  do {
    const r = await run(cycle++);
    console.info(`fault=${fault} user saw=${r.saw} recovery_ms=${Math.round(r.recoveryMs)}`);
  } while (Date.now() < end);
}

interface Obs {
  client: number;
  start: number;
  end: number;
  status: number;
  code?: string;
  body: { code?: string; rows?: unknown[][]; details?: Record<string, unknown>; [k: string]: unknown };
  retryAfter?: string;
}

async function observe(
  h: Harness,
  client: number,
  role: RoleName | null,
  r: { method: string; url: string; payload?: unknown },
): Promise<Obs> {
  // an answer that needs no I/O (health, a cached principal) resolves in microtasks: without a
  // turn of the event loop a request loop would starve the timers that end the test's phases
  await new Promise((resolve) => setImmediate(resolve));
  const start = performance.now();
  const res: LightMyRequestResponse = await h.as(role, r);
  const end = performance.now();
  let body: Obs['body'] = {};
  try {
    body = res.json();
  } catch {
    body = { raw: res.body };
  }
  return {
    client,
    start,
    end,
    status: res.statusCode,
    code: body.code,
    body,
    retryAfter: res.headers['retry-after'] as string | undefined,
  };
}

/** "502/source_connection_lost×3, 200×40": what the users saw, most frequent first */
function summary(obs: readonly Obs[]): string {
  const counts = new Map<string, number>();
  for (const o of obs) {
    const k = o.code ? `${o.status}/${o.code}` : String(o.status);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}×${n}`)
    .join(',');
}

const T_ROWS = [
  [1, 'one'],
  [2, 'two'],
  [3, 'three'],
];

describe.skipIf(Boolean(pgSkip || mariaSkip))('source faults (private PostgreSQL and MariaDB)', () => {
  let h: Harness;
  let src: PrivatePostgres;
  let maria: PrivateMariadb;
  let healthy: Awaited<ReturnType<typeof createPgDatabase>>;
  const ids: Record<string, string> = {};

  const query = (client: number, sql: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<Obs> =>
    observe(h, client, 'admin', { method: 'POST', url: '/api/v1/query', payload: { sql, timeoutMs } });
  const healthyOk = (o: Obs): boolean => o.status === 200 && JSON.stringify(o.body.rows) === JSON.stringify([['100']]);

  /** A client on the healthy source for as long as `running()`: every answer must be 200 with its rows. */
  async function healthyLoop(running: () => boolean): Promise<Obs[]> {
    const out: Obs[] = [];
    while (running()) out.push(await query(99, 'SELECT count(*) AS n FROM healthy.h'));
    return out;
  }

  beforeAll(async () => {
    [src, maria, healthy] = await Promise.all([
      startPrivatePostgres(),
      // a few connections, so another client can take them all
      startPrivateMariadb({ serverArgs: ['--max-connections=6'] }),
      createPgDatabase('src_faults'),
    ]);
    await src.exec(
      `CREATE TABLE t (id int PRIMARY KEY, s text);
       INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');
       -- ~200 ms a query, so a restart always finds statements in flight
       CREATE VIEW slow AS SELECT t.id, t.s FROM t, pg_sleep(0.2);
       CREATE VIEW longq AS SELECT g AS id FROM generate_series(1, 5) g, pg_sleep(2);
       CREATE ROLE rot LOGIN PASSWORD 'pw-0';
       GRANT SELECT ON t, longq TO rot;`,
    );
    await maria.exec(
      `CREATE TABLE t (id int PRIMARY KEY, s varchar(40)); INSERT INTO t VALUES (1, 'one'), (2, 'two');`,
    );
    await pgExec(healthy.url, `CREATE TABLE public.h (id int); INSERT INTO public.h SELECT generate_series(1, 100);`);
    // room for 16 clients on one source plus the healthy one: the limits are not under test here
    h = await startHarness({
      limits: { maxConcurrent: 40, maxQueued: 80, perUser: 40, perUserQueued: 80, perSource: 32 },
    });
    const pgSource = { engine: 'postgresql', host: src.host, port: src.port, database: src.database };
    for (const [name, payload] of [
      ['src', { ...pgSource, user: src.user, password: src.password, options: { pool: { max: 20 } } }],
      ['rot', { ...pgSource, user: 'rot', password: 'pw-0' }],
      [
        'maria',
        {
          engine: 'mysql',
          host: maria.host,
          port: maria.port,
          database: maria.database,
          user: maria.user,
          password: maria.password,
          // idle connections go at once, so the other client can take every slot
          options: { pool: { max: 4, idleTimeoutMs: 100 } },
        },
      ],
      [
        'healthy',
        {
          engine: 'postgresql',
          host: healthy.host,
          port: healthy.port,
          database: healthy.name,
          user: healthy.user,
          password: healthy.password,
        },
      ],
    ] as const) {
      const res = await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: { name, ...payload } });
      expect(res.statusCode, res.body).toBe(201);
      ids[name] = res.json().id;
    }
  }, 180_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([src?.stop(), maria?.stop(), healthy?.drop()]);
  });

  it(
    'PostgreSQL source restarted under 16 clients: in-flight queries fail as a broken connection (502 source_error), then every client succeeds without a Junction restart',
    async () => {
      const CLIENTS = 16;
      const SQL = 'SELECT id, s FROM src.slow ORDER BY id';
      await cycles('pg_source_restart', async (cycle) => {
        const mode = cycle % 2 === 0 ? 'immediate' : 'fast';
        for (const o of await Promise.all(Array.from({ length: CLIENTS }, (_, i) => query(i, SQL)))) {
          expect(o.status, JSON.stringify(o.body)).toBe(200);
        }
        let back = Infinity;
        let stop = false;
        const deadline = loopDeadline();
        const recovered = new Map<number, number>(); // client → successes after the server is back
        const clients = Array.from({ length: CLIENTS }, async (_, i) => {
          const seen: Obs[] = [];
          while (!stop && (recovered.get(i) ?? 0) < 3 && performance.now() < deadline) {
            const o = await query(i, SQL);
            seen.push(o);
            if (o.start >= back && o.status === 200) recovered.set(i, (recovered.get(i) ?? 0) + 1);
          }
          return seen;
        });
        const healthyObs = healthyLoop(() => !stop && recovered.size < CLIENTS && performance.now() < deadline);
        await sleep(500);
        await src.shutdown(mode);
        await sleep(1000); // the outage: clients keep asking
        await src.start();
        back = performance.now();
        const giveUp = setTimeout(() => (stop = true), 90_000);
        const obs = (await Promise.all(clients)).flat();
        stop = true;
        clearTimeout(giveUp);
        const other = await healthyObs;

        const failed = obs.filter((o) => o.status !== 200);
        // the fault was seen: statements were in flight when the server went away
        expect(failed.length).toBeGreaterThan(0);
        for (const o of failed) {
          // a statement cut by the restart, or a connection refused while the server was down
          expect(o.status, JSON.stringify(o.body)).toBe(502);
          expect(o.body).toMatchObject({ kind: 'external', details: { source: 'src' } });
          if (o.code === 'source_error') expect(o.body.message).toMatch(/the connection to its server broke/);
          else expect(o.code).toBe('source_unavailable');
          expect(o.start).toBeLessThan(back);
        }
        // statements in flight were cut, and said so
        expect(failed.some((o) => o.code === 'source_error')).toBe(true);
        for (const o of obs) expect(o.end - o.start).toBeLessThan(QUERY_TIMEOUT_MS + MARGIN_MS);
        for (const o of obs.filter((x) => x.status === 200)) expect(o.body.rows).toEqual(T_ROWS);
        // once the server is back, nothing a client starts fails: the pool dropped its dead connections
        const after = obs.filter((o) => o.start >= back);
        expect(after.filter((o) => o.status !== 200)).toEqual([]);
        expect(recovered.size).toBe(CLIENTS);
        expect(other.length).toBeGreaterThan(0);
        expect(other.filter((o) => !healthyOk(o))).toEqual([]);

        const firstOk = new Map<number, number>();
        for (const o of after)
          if (!firstOk.has(o.client) || o.end < firstOk.get(o.client)!) firstOk.set(o.client, o.end);
        const first = Math.min(...firstOk.values()) - back;
        const all = Math.max(...firstOk.values()) - back;
        console.info(
          `pg source ${mode} restart: ${obs.length} queries by ${CLIENTS} clients (${summary(obs)}); healthy source ${other.length}×200; ` +
            `server back → first success ${Math.round(first)} ms, → all ${CLIENTS} clients succeeding ${Math.round(all)} ms`,
        );
        return { saw: summary(failed), recoveryMs: all };
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'MariaDB out of connections: source_too_many_connections (503, Retry-After) at once, the source stays online, others unaffected, it recovers when connections free up',
    async () => {
      const SQL = 'SELECT id, s FROM maria.t ORDER BY id';
      const MARIA_ROWS = [
        [1, 'one'],
        [2, 'two'],
      ];
      await cycles('mariadb_max_connections', async () => {
        expect((await query(0, SQL)).body.rows).toEqual(MARIA_ROWS);
        // Junction's pooled connections idle out first, so the other client can take every slot
        await until(
          "Junction's idle connections are closed",
          async () =>
            Number(
              (
                await maria.rows(
                  `SELECT count(*) FROM information_schema.PROCESSLIST WHERE USER = 'jt' AND ID <> CONNECTION_ID()`,
                )
              )[0]![0],
            ) === 0,
          15_000,
        );
        const held: mysql.Connection[] = [];
        for (;;) {
          try {
            held.push(
              await mysql.createConnection({
                host: maria.host,
                port: maria.port,
                user: maria.user,
                password: maria.password,
                database: maria.database,
              }),
            );
          } catch (e) {
            expect((e as { errno?: number }).errno).toBe(1040);
            break;
          }
          expect(held.length).toBeLessThan(20);
        }
        try {
          const stop = { v: false };
          const deadline = loopDeadline();
          const healthyObs = healthyLoop(() => !stop.v && performance.now() < deadline);
          const refused = await Promise.all(Array.from({ length: 4 }, (_, i) => query(i, SQL)));
          stop.v = true;
          for (const o of refused) {
            expect(o.status, JSON.stringify(o.body)).toBe(503);
            expect(o.body).toMatchObject({
              code: 'source_too_many_connections',
              kind: 'resources',
              details: { source: 'maria', driverCode: '1040' },
            });
            expect(o.retryAfter).toBe('1');
            // refused at the handshake: no waiting for a connect or query timeout
            expect(o.end - o.start).toBeLessThan(QUERY_TIMEOUT_MS);
          }
          const other = await healthyObs;
          expect(other.filter((o) => !healthyOk(o))).toEqual([]);
          // a full server is up: the source is not marked offline
          const status = (await h.as('admin', { method: 'GET', url: `/api/v1/sources/${ids.maria}` })).json().status;
          expect(status).not.toBe('offline');

          await held.pop()!.end();
          await held.pop()!.end();
          const freed = performance.now();
          let ok: Obs | undefined;
          await until(
            'maria answers once connections are free',
            async () => {
              const o = await query(0, SQL);
              if (o.status === 200) ok = o;
              else expect(o.code).toBe('source_too_many_connections');
              return ok !== undefined;
            },
            30_000,
          );
          expect(ok!.body.rows).toEqual(MARIA_ROWS);
          const recoveryMs = ok!.end - freed;
          console.info(
            `mariadb max_connections=6, another client holding every connection it could open (${held.length + 2}): ${summary(refused)} in ` +
              `${refused.map((o) => Math.round(o.end - o.start)).join('/')} ms; healthy ${other.length}×200; ` +
              `connections freed → first success ${Math.round(recoveryMs)} ms`,
          );
          return { saw: summary(refused), recoveryMs };
        } finally {
          await Promise.all(held.map((c) => c.end().catch(() => undefined)));
        }
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'password rotated while queries run: the long query finishes with its rows, new queries use the new password, the old pool drains',
    async () => {
      const SHORT = 'SELECT id, s FROM rot.t ORDER BY id';
      await cycles('credential_rotation', async (cycle) => {
        const oldPw = `pw-${cycle}`;
        const newPw = `pw-${cycle + 1}`;
        expect((await query(0, SHORT)).body.rows).toEqual(T_ROWS);
        const long = query(100, 'SELECT id FROM rot.longq ORDER BY id', 60_000);
        await until(
          'the long query runs on the server',
          async () =>
            Number(
              (
                await src.rows(
                  `SELECT count(*) FROM pg_stat_activity WHERE usename = 'rot' AND state = 'active' AND query LIKE '%longq%'`,
                )
              )[0]![0],
            ) > 0,
          15_000,
        );
        let patched = Infinity;
        let stop = false;
        const deadline = loopDeadline();
        const loops = Array.from({ length: 4 }, async (_, i) => {
          const seen: Obs[] = [];
          while (!stop && performance.now() < deadline) seen.push(await query(i, SHORT));
          return seen;
        });
        const rotatedAt = String((await src.rows(`SELECT clock_timestamp()::text`))[0]![0]);
        const t0 = performance.now();
        await src.exec(`ALTER ROLE rot PASSWORD '${newPw}'`);
        const patch = await h.as('admin', {
          method: 'PATCH',
          url: `/api/v1/sources/${ids.rot}`,
          payload: { password: newPw },
        });
        expect(patch.statusCode, patch.body).toBe(200);
        patched = performance.now();
        const longRes = await long;
        // let the clients run on the new pool for a moment
        await sleep(1000);
        stop = true;
        const obs = (await Promise.all(loops)).flat();

        // started before the change, finished on the old pool's connection with its exact rows
        expect(longRes.status, JSON.stringify(longRes.body)).toBe(200);
        expect(longRes.body.rows).toEqual([[1], [2], [3], [4], [5]]);
        expect(longRes.end).toBeGreaterThan(patched);
        for (const o of obs) {
          if (o.status === 200) {
            expect(o.body.rows).toEqual(T_ROWS);
          } else {
            // between ALTER ROLE and the update a new connection of the old pool is refused; never after
            expect(o.start).toBeLessThan(patched);
            expect(o.body).toMatchObject({ code: 'source_unavailable', details: { diagnosis: 'auth_failed' } });
          }
        }
        expect(obs.filter((o) => o.start >= patched).length).toBeGreaterThan(0);
        // the old pool drains: once the long query is done no session opened before the rotation is left
        await until(
          'the old pool has closed its connections',
          async () =>
            Number(
              (
                await src.rows(
                  `SELECT count(*) FROM pg_stat_activity WHERE usename = 'rot' AND backend_start < '${rotatedAt}'::timestamptz`,
                )
              )[0]![0],
            ) === 0,
          10_000,
        );
        // and the new one is the one in use, connected with the new password
        const fresh = Number(
          (
            await src.rows(
              `SELECT count(*) FROM pg_stat_activity WHERE usename = 'rot' AND backend_start >= '${rotatedAt}'::timestamptz`,
            )
          )[0]![0],
        );
        expect(fresh).toBeGreaterThan(0);
        const detail = (await h.as('admin', { method: 'GET', url: `/api/v1/sources/${ids.rot}` })).json();
        expect(detail.status).toBe('online');
        const firstAfter = Math.min(...obs.filter((o) => o.start >= patched && o.status === 200).map((o) => o.end));
        const recoveryMs = firstAfter - t0;
        console.info(
          `credential rotation (${oldPw} → ${newPw}): PATCH took ${Math.round(patched - t0)} ms; long query ${longRes.status} ` +
            `after ${Math.round(longRes.end - longRes.start)} ms; ${summary(obs)}; ALTER ROLE → first success on the new pool ${Math.round(recoveryMs)} ms`,
        );
        return { saw: `long=${longRes.status},${summary(obs)}`, recoveryMs };
      });
    },
    TEST_TIMEOUT_MS,
  );
});

describe.skipIf(Boolean(pgSkip))('metadata PostgreSQL restarted under load', () => {
  /** the app's error log: a 500 names its cause there */
  const appErrors: string[] = [];
  let h: Harness;
  let meta: PrivatePostgres;
  let healthy: Awaited<ReturnType<typeof createPgDatabase>>;

  beforeAll(async () => {
    [meta, healthy] = await Promise.all([startPrivatePostgres(), createPgDatabase('meta_faults')]);
    await pgExec(healthy.url, `CREATE TABLE public.h (id int); INSERT INTO public.h SELECT generate_series(1, 100);`);
    h = await startHarness({
      metadataUrl: meta.url,
      limits: { maxConcurrent: 16, maxQueued: 64, perUser: 16, perUserQueued: 64 },
      // sign-ins are part of the load: the per-address limit is not under test
      signInsPerMinute: 100_000,
      signInLockout: null,
      records: { flushDelayMs: 50 },
      logger: { level: 'error', stream: { write: (line: string) => void appErrors.push(line) } },
    });
    expect(h.meta.provider).toBe('postgresql');
    const res = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: {
        name: 'hs',
        engine: 'postgresql',
        host: healthy.host,
        port: healthy.port,
        database: healthy.name,
        user: healthy.user,
        password: healthy.password,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([meta?.stop(), healthy?.drop()]);
  });

  it(
    'requests during the outage get 503 metadata_unavailable (no 500, no hang), the process keeps serving, writes and buffered history land after it',
    async () => {
      await cycles('metadata_pg_restart', async (cycle) => {
        const mode = cycle % 2 === 0 ? 'fast' : 'immediate';
        let back = Infinity;
        let stop = false;
        const deadline = loopDeadline();
        const kinds = ['query', 'query', 'query', 'signin', 'saved', 'health'] as const;
        const done = new Set<number>();
        const request = (kind: (typeof kinds)[number], i: number): Promise<Obs> => {
          switch (kind) {
            case 'query':
              return observe(h, i, 'admin', {
                method: 'POST',
                url: '/api/v1/query',
                payload: { sql: 'SELECT count(*) AS n FROM hs.h', timeoutMs: QUERY_TIMEOUT_MS },
              });
            case 'signin':
              return observe(h, i, null, {
                method: 'POST',
                url: '/api/v1/auth/login',
                payload: { username: 'viewer', password: h.passwords.viewer },
              });
            case 'saved':
              return observe(h, i, 'analyst', {
                method: 'POST',
                url: '/api/v1/saved-queries',
                payload: { name: `s-${randomUUID()}`, sql: 'SELECT 1' },
              });
            case 'health':
              return observe(h, i, null, { method: 'GET', url: '/api/v1/health' });
          }
        };
        const workers = kinds.map(async (kind, i) => {
          const seen: Obs[] = [];
          let okAfter = 0;
          while (!stop && okAfter < 3 && performance.now() < deadline) {
            const o = await request(kind, i);
            seen.push(o);
            if (o.start >= back && o.status < 300) okAfter++;
          }
          done.add(i);
          return { kind, seen };
        });
        await sleep(500);
        await meta.shutdown(mode);
        const down = performance.now();
        await sleep(1500); // the outage
        await meta.start();
        back = performance.now();
        const giveUp = setTimeout(() => (stop = true), 90_000);
        const results = await Promise.all(workers);
        clearTimeout(giveUp);
        expect(done.size).toBe(kinds.length);
        const obs = results.flatMap((r) => r.seen);

        for (const o of obs) {
          expect(
            o.end - o.start,
            `${kinds[o.client]} ${o.status} ${JSON.stringify(o.body)} started ${Math.round(o.start - down)} ms after the shutdown`,
          ).toBeLessThan(QUERY_TIMEOUT_MS + MARGIN_MS);
          if (o.status < 300) continue;
          // the outage is a retryable 503, never a 500 or a hang
          expect(
            o.status,
            `${kinds[o.client]}: ${JSON.stringify(o.body)}\n${[
              ...new Set(
                appErrors.map((l) => {
                  const j = JSON.parse(l);
                  return `${j.err?.type} ${j.err?.code} ${JSON.stringify(j.err?.meta?.driverAdapterError?.cause ?? null)} ${String(j.err?.message).slice(-200)}`;
                }),
              ),
            ].join('\n')}`,
          ).toBe(503);
          expect(o.body).toMatchObject({ code: 'metadata_unavailable', kind: 'resources' });
          expect(o.retryAfter).toBe('2');
        }
        const during = obs.filter((o) => o.start >= down && o.end <= back);
        // sign-ins and saved queries need the database: the users saw the outage
        expect(during.some((o) => o.status === 503)).toBe(true);
        // the process kept serving: what needs no metadata answered throughout
        const health = results.find((r) => r.kind === 'health')!.seen;
        expect(health.every((o) => o.status === 200)).toBe(true);
        expect(health.some((o) => o.start >= down && o.end <= back)).toBe(true);
        // once it is back, what a client starts succeeds
        expect(obs.filter((o) => o.start >= back && o.status >= 300)).toEqual([]);

        // every query that answered has its history row, those of the outage included
        const answered = obs.filter((o) => o.status === 200 && typeof o.body.queryId === 'string');
        await h.app.records.flush();
        const rows = await h.meta.db.queryHistory.findMany({
          where: { queryId: { in: answered.map((o) => o.body.queryId as string) } },
          select: { queryId: true },
        });
        expect(new Set(rows.map((r) => r.queryId)).size).toBe(answered.length);
        expect(h.app.records.dropped).toBe(0);
        const duringQueries = answered.filter((o) => o.start >= down && o.end <= back).length;

        const firstOk = new Map<string, number>();
        for (const r of results)
          for (const o of r.seen)
            if (o.start >= back && o.status < 300 && !firstOk.has(r.kind)) firstOk.set(r.kind, o.end);
        const recoveryMs = Math.max(...firstOk.values()) - back;
        console.info(
          `metadata PG ${mode} restart: ${obs.length} requests (${summary(obs)}); queries answered during the outage ${duringQueries}, ` +
            `all ${answered.length} history rows written; server back → first success of every kind ${Math.round(recoveryMs)} ms ` +
            `(${[...firstOk].map(([k, t]) => `${k} ${Math.round(t - back)}`).join(', ')})`,
        );
        return { saw: summary(obs.filter((o) => o.status >= 300)), recoveryMs };
      });
    },
    TEST_TIMEOUT_MS,
  );

  it('the record writer keeps rows through an outage, bounded by maxPending, and writes them when the database is back', async () => {
    const warnings: string[] = [];
    const w = new RecordWriter(
      h.meta.db,
      { warn: (_o, msg) => void warnings.push(msg) },
      {
        flushDelayMs: 10,
        maxPending: 5,
        retryMinMs: 50,
        retryMaxMs: 200,
      },
    );
    const row = (i: number) => ({
      id: randomUUID(),
      userId: h.userIds.admin,
      queryId: `outage-${i}`,
      sql: `SELECT ${i}`,
      params: null,
      status: 'ok',
      rows: 1,
      elapsedMs: 1,
      errorCode: null,
    });
    await meta.shutdown('immediate');
    try {
      // the first row finds the database down; the rest arrive while it stays down
      await w.history(row(0));
      await until('the writer has seen the outage', () => warnings.some((m) => /unreachable/.test(m)), 10_000);
      const t0 = performance.now();
      for (let i = 1; i < 8; i++) await w.history(row(i));
      // no backpressure while the database is down: add() did not wait for it
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(w.pending).toBe(5);
      expect(w.dropped).toBe(3);
      await expect(w.flush()).rejects.toBeDefined();
    } finally {
      await meta.start();
    }
    // no flush: the writer's own retry writes the 5 newest rows
    await until(
      'the buffered rows are written',
      async () => (await h.meta.db.queryHistory.count({ where: { queryId: { startsWith: 'outage-' } } })) === 5,
      30_000,
    );
    const ids = (await h.meta.db.queryHistory.findMany({ where: { queryId: { startsWith: 'outage-' } } })).map(
      (r) => r.queryId,
    );
    expect(ids.sort()).toEqual(['outage-3', 'outage-4', 'outage-5', 'outage-6', 'outage-7']);
    expect(w.pending).toBe(0);
    expect(warnings.some((m) => /oldest history\/audit rows were dropped/.test(m))).toBe(true);
    await w.close();
  }, 120_000);
});
