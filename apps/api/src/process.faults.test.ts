import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload } from '../test/harness.js';
import { startServerProcess, type ServerProcess } from '../test/server-process.js';

/**
 * kill -9 of the real server (main.ts in a child process) during the three kinds of work it
 * keeps state for, then a start on the same data directory: a benchmark run, a materialized
 * view's refresh and a burst of query-history writes. After every kill the metadata database
 * (and the materialized store) must pass SQLite's integrity check.
 *
 * JUNCTION_FAULTS_SECONDS > 0 repeats each kill → restart → check cycle for that long and prints
 * one line per cycle; 0 (CI) runs each once.
 */
const FAULTS_SECONDS = Number(process.env.JUNCTION_FAULTS_SECONDS ?? 0);
const TEST_TIMEOUT = 120_000 + FAULTS_SECONDS * 1500;
/** the record writer's default flush delay (lib/record-writer.ts): the documented loss window */
const FLUSH_DELAY_MS = 500;
/** the write itself and a busy event loop's late timer, on top of the delay */
const FLUSH_MARGIN_MS = 1000;
/** rows of the gated view a refresh loads before it reaches the rows only the gate lets through */
const UNGATED_ROWS = 20_000;
/** the advisory lock the test holds to stop a refresh mid-load, at the source */
const GATE_LOCK = 4242;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API answers are read field by field
type Json = Record<string, any>;

let s: ServerProcess;
let db: Awaited<ReturnType<typeof createPgDatabase>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until ok; the deadline only keeps a broken run from hanging (never an assertion on time). */
async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await sleep(25);
  }
}

function integrity(file: string): unknown {
  const d = new Database(file, { readonly: true });
  try {
    return d.pragma('integrity_check', { simple: true });
  } finally {
    d.close();
  }
}

/** Kills the server, checks its SQLite files, starts it again; resolves with the ms to serving. */
async function killAndRestart(): Promise<number> {
  await s.kill9();
  expect(integrity(path.join(s.dir, 'junction.db'))).toBe('ok');
  expect(integrity(path.join(s.dir, 'materialized.db'))).toBe('ok');
  return s.start();
}

/** One cycle in CI; in long mode, cycles until JUNCTION_FAULTS_SECONDS have passed. */
async function cycles(fault: string, once: (cycle: number) => Promise<{ saw: string; recoveryMs: number }>): Promise<void> {
  const end = Date.now() + FAULTS_SECONDS * 1000;
  let cycle = 0;
  do {
    const r = await once(cycle++);
    if (FAULTS_SECONDS > 0) process.stdout.write(`fault=${fault} user saw=${r.saw} recovery_ms=${r.recoveryMs}\n`);
  } while (Date.now() < end);
}

async function ok(method: string, url: string, body?: unknown, status = 200): Promise<Json> {
  const r = await s.call(method, url, body);
  expect(r.status, JSON.stringify(r.json)).toBe(status);
  return r.json as Json;
}

beforeAll(async () => {
  db = await createPgDatabase('procfault');
  // slow: the first UNGATED_ROWS rows flow; every later one waits for the advisory lock the test
  // may hold, which stops a refresh mid-load for as long as the test wants, without timing
  await pgExec(
    db.url,
    `CREATE TABLE t (i int);
     INSERT INTO t SELECT generate_series(1, ${UNGATED_ROWS});
     CREATE FUNCTION gate() RETURNS boolean LANGUAGE plpgsql VOLATILE COST 1000000
       AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(${GATE_LOCK}); RETURN true; END $$;
     CREATE VIEW slow AS SELECT i FROM t WHERE i <= ${UNGATED_ROWS} OR gate();
     CREATE TABLE small (i int); INSERT INTO small SELECT generate_series(1, 100);`,
  );
  s = await startServerProcess();
  await ok('POST', '/api/v1/sources', pgSourcePayload('pg', db), 201);
  await ok('POST', '/api/v1/schemas', { name: 'rep' }, 201);
  await ok('POST', '/api/v1/views', { schema: 'rep', name: 'v', sql: 'SELECT i FROM pg.public.slow' }, 201);
}, 120_000);

afterAll(async () => {
  await s?.close();
  await db?.drop();
});

describe('kill -9 of the server', () => {
  it(
    'during a benchmark run: at restart the run is interrupted and keeps its finished phase, environment and summary',
    async () => {
      const REPETITIONS = 20;
      const bench = await ok(
        'POST',
        '/api/v1/benchmarks',
        {
          name: 'killed',
          queries: [{ id: 'Q', federated: 'SELECT count(*) FROM pg.small' }],
          phases: [
            { type: 'single', warmups: 0, repetitions: REPETITIONS },
            { type: 'mix', users: 2, durationSeconds: 3600, intervalSeconds: 0.5 },
          ],
        },
        201,
      );
      await cycles('bench_run', async (cycle) => {
        const { runId } = await ok('POST', `/api/v1/benchmarks/${bench.id}/runs`, undefined, 201);
        let live: Json;
        if (cycle === 0) {
          // the first phase is over once the second runs: what it measured is in the row by then
          live = await until(
            'the mix phase',
            () => ok('GET', `/api/v1/benchmark-runs/${runId}`),
            (r) => r.progress?.phaseIndex === 1 && r.progress.executions > REPETITIONS,
          );
        } else {
          // later cycles kill at any moment of the run's first seconds, its start included
          await sleep(Math.floor(Math.random() * 3000));
          live = await ok('GET', `/api/v1/benchmark-runs/${runId}`);
        }
        const recoveryMs = await killAndRestart();

        const run = await ok('GET', `/api/v1/benchmark-runs/${runId}`);
        expect(run.status).toBe('interrupted');
        expect(run.finishedAt).toEqual(expect.any(String));
        expect(run.progress.error).toBe('The server restarted during the run.');
        // never '{}': every key a reader of the results expects
        expect(Object.keys(run.results).sort()).toEqual(
          ['answers', 'coldWarm', 'environment', 'errors', 'intervals', 'queries', 'samples', 'steps', 'streams', 'summary', 'warnings'].sort(),
        );
        const single = run.results.queries.filter((e: Json) => e.phaseIndex === 0);
        if (live.progress?.phaseIndex === 1) {
          expect(single).toHaveLength(1);
          expect(single[0]).toMatchObject({ query: 'Q', type: 'single', failed: false });
          expect(single[0].partial).toBeUndefined();
          expect(single[0].federated.executions).toBe(REPETITIONS);
          expect(run.results.environment.sources).toEqual([expect.objectContaining({ name: 'pg', engine: 'postgresql' })]);
          expect(run.results.summary.executions).toBeGreaterThanOrEqual(REPETITIONS);
        }
        // what the phase cut short had flushed says so
        for (const e of [...run.results.queries, ...run.results.steps].filter((x: Json) => x.phaseIndex === live.progress?.phaseIndex))
          expect(e.partial).toBe(true);
        const listed = (await ok('GET', '/api/v1/benchmark-runs')).find((r: Json) => r.id === runId);
        expect(listed).toMatchObject({ status: 'interrupted', summary: expect.any(Object) });
        const saw = `status=${run.status},phase_at_kill=${live.progress?.phaseIndex ?? 'start'},finished_phase_execs=${single[0]?.federated?.executions ?? 0},intervals=${run.results.intervals.length}`;
        return { saw, recoveryMs };
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'during a materialized view refresh: at restart the previous rows are served, the half-loaded table is gone, and the refresh runs again',
    async () => {
      await ok('PUT', '/api/v1/materializations/rep/v', { intervalSeconds: null, maxStalenessSeconds: 3600 });
      expect(await ok('POST', '/api/v1/materializations/rep/v/refresh')).toMatchObject({ status: 'ok', rows: UNGATED_ROWS });
      const mv = async () => ((await ok('GET', '/api/v1/materializations')) as Json[]).find((m) => m.view === 'rep.v')!;
      const count = async () => (await ok('POST', '/api/v1/query', { sql: 'SELECT count(*) AS n FROM rep.v' })).rows[0][0];
      const storeFile = path.join(s.dir, 'materialized.db');
      const tables = () => {
        const d = new Database(storeFile, { readonly: true });
        try {
          const pointed = d.prepare('SELECT tbl FROM _junction_materializations').pluck().get() as string;
          const all = d.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'mv\\_%' ESCAPE '\\'`).pluck().all() as string[];
          const loading = all.filter((t) => t !== pointed);
          const rows = Object.fromEntries(loading.map((t) => [t, d.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
          return { pointed, loading, rows };
        } finally {
          d.close();
        }
      };
      const lock = new pg.Client({ connectionString: db.url });
      await lock.connect();
      try {
        await cycles('mv_refresh', async () => {
          const before = (await mv()) as Json;
          const previous = before.rows as number;
          const { pointed: pointedBefore, loading: existing } = tables();
          await pgExec(db.url, `INSERT INTO t SELECT generate_series(${previous + 1}, ${previous + 10})`);
          await lock.query('SELECT pg_advisory_lock($1)', [GATE_LOCK]);
          // the refresh's request dies with the server: its client sees the connection drop
          const cut = s.call('POST', '/api/v1/materializations/rep/v/refresh').then(
            (r) => `HTTP ${r.status}`,
            () => 'connection reset',
          );
          // a table of an earlier refresh may still wait for its drop: the new one is another
          const isNew = (t: string) => !existing.includes(t);
          const mid = await until('the refresh loading rows', async () => tables(), (t) => t.loading.some((x) => isNew(x) && t.rows[x] > 0));
          const half = mid.loading.find(isNew)!;
          const recoveryMs = await killAndRestart();
          expect(await cut).toBe('connection reset');

          // the retry waits at the gate as the killed refresh did: queries read the previous rows
          const retrying = await until('the retried refresh', () => mv(), (m) => m.refreshing === true);
          expect(retrying).toMatchObject({ status: 'ok', rows: previous, refreshedAt: before.refreshedAt, error: null });
          expect(await count()).toBe(String(previous));
          const explain = await ok('POST', '/api/v1/explain', { sql: 'SELECT count(*) AS n FROM rep.v' });
          expect(explain.text.split('\n')[0]).toMatch(/^Materialized view rep\.v read from its stored rows/);
          const after = tables();
          expect(after.pointed).toBe(pointedBefore);
          expect(after.loading).not.toContain(half); // the killed refresh's table was dropped at start
          expect(after.loading.length).toBeLessThanOrEqual(1); // only the retry's own

          await lock.query('SELECT pg_advisory_unlock($1)', [GATE_LOCK]);
          const done = await until('the retry to end', () => mv(), (m) => m.refreshing === false);
          expect(done).toMatchObject({ status: 'ok', rows: previous + 10, error: null, errorCode: null });
          expect(await count()).toBe(String(previous + 10));
          // beside the new table only the replaced one, dropped after its grace period
          const swapped = tables();
          expect(swapped.pointed).not.toBe(pointedBefore);
          expect(swapped.loading).toEqual([pointedBefore]);
          return { saw: `previous_rows_during_retry=${previous},after_retry=${done.rows},killed_request=connection_reset`, recoveryMs };
        });
      } finally {
        await lock.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
        await lock.end();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    `during a burst of history writes: at most the rows of the last ${FLUSH_DELAY_MS} ms flush delay are lost (the documented window), none is duplicated`,
    async () => {
      await cycles('history_burst', async (cycle) => {
        const tag = `burst${cycle}x${Date.now()}`;
        const sqlOf = (n: number) => `SELECT ${n} AS marker /* ${tag} */`;
        const answeredAt = new Map<number, number>();
        const run = async (n: number) => {
          const r = await s.call('POST', '/api/v1/query', { sql: sqlOf(n) });
          expect(r.status).toBe(200);
          expect(r.json.rows).toEqual([[n]]);
          answeredAt.set(n, performance.now());
        };
        // answered well before the kill: these must all be kept
        const EARLY = 40;
        for (let n = 0; n < EARLY; n += 4) await Promise.all([n, n + 1, n + 2, n + 3].map(run));
        await sleep(FLUSH_DELAY_MS + FLUSH_MARGIN_MS);

        // the burst: 8 clients until the kill, which comes after the 100th answer of the burst
        let next = EARLY;
        let killed = false;
        let sent = EARLY;
        const killAfter = EARLY + 100;
        let killedAt = 0;
        let killing: Promise<void> | undefined;
        const client = async () => {
          while (!killed && next < EARLY + 1000) {
            const n = next++;
            sent++;
            try {
              await run(n);
            } catch (e) {
              if (!killed) throw e;
              return; // the kill cut this one off: its row may or may not be kept
            }
            if (answeredAt.size >= killAfter && !killed) {
              killed = true;
              killedAt = performance.now();
              killing = s.kill9();
            }
          }
        };
        await Promise.all(Array.from({ length: 8 }, client));
        expect(killed).toBe(true);
        await killing;
        expect(integrity(path.join(s.dir, 'junction.db'))).toBe('ok');
        const recoveryMs = await s.start();

        const history = (await ok('GET', '/api/v1/history?limit=999')) as Json[];
        const mine = history.filter((h) => h.sql.includes(tag));
        const markers = mine.map((h) => Number(/^SELECT (\d+) AS marker/.exec(h.sql)![1]));
        expect(new Set(mine.map((h) => h.id)).size).toBe(mine.length);
        expect(new Set(markers).size).toBe(markers.length); // no row written twice
        expect(mine.length).toBeLessThanOrEqual(sent);
        for (const m of markers) expect(m).toBeLessThan(next); // only queries that were sent
        const kept = new Set(markers);
        const due = [...answeredAt].filter(([, at]) => killedAt - at > FLUSH_DELAY_MS + FLUSH_MARGIN_MS).map(([n]) => n);
        expect(due.length).toBeGreaterThanOrEqual(EARLY);
        expect(due.filter((n) => !kept.has(n))).toEqual([]);
        for (const h of mine) expect(h).toMatchObject({ status: 'ok', rows: 1 });
        const lost = [...answeredAt.keys()].filter((n) => !kept.has(n)).length;
        return { saw: `sent=${sent},answered=${answeredAt.size},kept=${mine.length},answered_but_lost=${lost},duplicates=0`, recoveryMs };
      });
    },
    TEST_TIMEOUT,
  );
});
