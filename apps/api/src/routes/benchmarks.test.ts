import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchLab } from '../bench-lab/runner.js';
import { createPgDatabase, pgExec, startHarness, TEST_MYSQL_URL, type Harness } from '../../test/harness.js';

/**
 * The benchmark lab against real PostgreSQL and MariaDB: the JDV layout loaded by the lab's load
 * form into four registered sources (dbA, dbB on PostgreSQL; dbC, dbD on MariaDB) and the single
 * layout into a fifth (tpch), then short runs of every phase type through the API.
 */
const SF = 0.01;
let h: Harness;
const pgDbs: Awaited<ReturnType<typeof createPgDatabase>>[] = [];
const myDbs: string[] = [];
const my = new URL(TEST_MYSQL_URL);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const api = (method: string, url: string, payload?: unknown) => h.as('admin', { method, url, payload });
const getRun = async (id: string): Promise<Json> => (await api('GET', `/api/v1/benchmark-runs/${id}`)).json();
const finished = (id: string, ms?: number) =>
  until(
    `run ${id}`,
    () => getRun(id),
    (r) => ['done', 'failed', 'cancelled', 'interrupted'].includes(r.status),
    ms,
  );

async function startRun(body: Json): Promise<string> {
  const created = await api('POST', '/api/v1/benchmarks', body);
  expect(created.statusCode, created.body).toBe(201);
  const run = await api('POST', `/api/v1/benchmarks/${created.json().id}/runs`);
  expect(run.statusCode, run.body).toBe(201);
  return run.json().runId;
}

const SOURCES = { dbA: 'dbA', dbB: 'dbB', dbC: 'dbC', dbD: 'dbD', direct: 'tpch' };

beforeAll(async () => {
  h = await startHarness();
  const pgFor = async (name: string) => {
    const db = await createPgDatabase('lab');
    pgDbs.push(db);
    return {
      name,
      engine: 'postgresql',
      host: db.host,
      port: db.port,
      database: db.name,
      user: db.user,
      password: db.password,
    };
  };
  const myFor = async (name: string) => {
    const db = `jt_lab_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
    const c = await mysql.createConnection(TEST_MYSQL_URL);
    await c.query(`CREATE DATABASE ${db}`);
    await c.end();
    myDbs.push(db);
    return {
      name,
      engine: 'mysql',
      host: my.hostname,
      port: Number(my.port || 3306),
      database: db,
      user: decodeURIComponent(my.username),
      password: decodeURIComponent(my.password),
    };
  };
  for (const s of [
    await pgFor('dbA'),
    await pgFor('dbB'),
    await myFor('dbC'),
    await myFor('dbD'),
    await pgFor('tpch'),
    await myFor('tpchMy'),
    { name: 'lite', engine: 'sqlite', file: liteFile() },
  ]) {
    const r = await api('POST', '/api/v1/sources', s);
    expect(r.statusCode, r.body).toBe(201);
  }
  for (const [layout, sources] of [
    ['jdv', { dbA: 'dbA', dbB: 'dbB', dbC: 'dbC', dbD: 'dbD' }],
    ['single', { direct: 'tpch' }],
    ['single', { direct: 'tpchMy' }],
  ] as const) {
    const started = await api('POST', '/api/v1/benchmarks/load', { layout, sf: SF, sources });
    expect(started.statusCode, started.body).toBe(202);
    const job = await until(
      `load ${layout}`,
      async () => (await api('GET', `/api/v1/benchmarks/load/${started.json().id}`)).json(),
      (j) => j.status !== 'running',
    );
    expect(job).toMatchObject({ status: 'done', fraction: 1 });
    expect(job.rows).toBe(job.totalRows);
  }
}, 300_000);

afterAll(async () => {
  await h?.close();
  for (const db of pgDbs) await db.drop().catch(() => undefined);
  const c = await mysql.createConnection(TEST_MYSQL_URL);
  for (const db of myDbs) await c.query(`DROP DATABASE IF EXISTS ${db}`);
  await c.end();
});

/** an empty SQLite database for a direct target the presets' SQL cannot serve */
function liteFile(): string {
  const file = path.join(h.dir, 'lite.sqlite');
  new Database(file).close();
  return file;
}

/** the harness's app on a socket of its own (the HTTP driver and the CLI need one) */
let listeningAt: Promise<string> | undefined;
function listening(): Promise<string> {
  listeningAt ??= h.app.listen({ port: 0, host: '127.0.0.1' });
  return listeningAt;
}

describe('benchmark lab', () => {
  it('lists the presets', async () => {
    const r = await api('GET', '/api/v1/benchmarks/presets');
    expect(r.statusCode).toBe(200);
    expect(r.json().map((p: Json) => p.id)).toEqual(['jdv', 'oltp-mix', 'streams']);
    for (const p of r.json()) expect(Object.keys(p).sort()).toEqual(['description', 'id', 'name', 'phases', 'queries']);
    // a form starts from the preset's queries and its phases' default settings
    const jdv = r.json()[0];
    expect(jdv.queries.map((q: Json) => q.id)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
    expect(jdv.queries[0].title).toEqual(expect.any(String));
    expect(
      jdv.phases.map((p: Json) => `${p.type} ${p.query ?? p.queries?.join('')} ${p.users ?? p.repetitions}`),
    ).toEqual(['single ABCDEFH 5', 'concurrency G 1,2,5,10,20', 'concurrency H 1,2,4,8,16']);
  });

  let jdvRun = '';
  it('runs a short JDV preset: answers checked, each query alone in three modes, users steps, stored', async () => {
    jdvRun = await startRun({
      name: 'jdv short',
      preset: 'jdv',
      sources: SOURCES,
      settings: { sf: SF, sampleMs: 200 },
      overrides: { warmups: 0, repetitions: 2, users: [1, 2], stepSeconds: 0.5 },
    });
    const run = await finished(jdvRun);
    expect(run.status).toBe('done');
    const res = run.results;
    for (const q of ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']) {
      expect(res.answers[q].equivalent, `${q}: ${JSON.stringify(res.answers[q])}`).toBe(true);
      expect(res.answers[q].direct).toEqual(res.answers[q].federated);
      expect(res.answers[q].rowsCompared).toBe(res.answers[q].direct.rows);
    }
    // H is checked with several keys drawn like the run's (one key, a multiple of 3, has no
    // orders in TPC-H: 0 rows against 0 rows proves nothing)
    const hCheck = res.answers.H;
    expect(hCheck.checks).toHaveLength(5);
    expect(new Set(hCheck.checks.map((c: Json) => c.params[0])).size).toBe(5);
    for (const c of hCheck.checks) expect(c).toMatchObject({ equivalent: true, directRows: c.federatedRows });
    expect(hCheck.rowsCompared).toBeGreaterThan(0);
    expect(hCheck.rowsCompared).toBe(hCheck.checks.reduce((n: number, c: Json) => n + c.directRows, 0));
    expect(res.answers.A.checks).toHaveLength(1);
    // the data's real scale, counted
    expect(res.environment.data).toMatchObject({ table: 'customer', rows: 1500, sf: SF });
    expect(res.warnings ?? []).toEqual([]);
    // the study's answers at this scale select rows for the queries that are not parameterised
    // rows of the study's queries at SF 0.01 (seeded generator, small-scale constants)
    expect(Object.fromEntries(['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((q) => [q, res.answers[q].direct.rows]))).toEqual(
      {
        A: 100,
        B: 15,
        C: 97,
        D: 1000,
        E: 47,
        F: 21,
        G: 15,
      },
    );
    const single = res.queries.filter((e: Json) => e.type === 'single');
    expect(single.map((e: Json) => e.query)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'H']);
    for (const e of single) {
      expect(e.equivalent).toBe(true);
      expect(e.failed).toBe(false);
      for (const m of ['direct', 'pushdown', 'federated']) {
        expect(e[m]).toMatchObject({ executions: 2, errors: 0 });
        for (const k of ['p50Ms', 'p90Ms', 'p95Ms', 'p99Ms', 'maxMs']) expect(e[m][k]).toBeGreaterThan(0);
        expect(e[m].p50Ms).toBeLessThanOrEqual(e[m].maxMs);
      }
      // the same query in each mode returns the same rows per execution: H's random keys are the
      // same in every mode
      expect(e.federated.rows).toBe(e.direct.rows);
      expect(e.pushdown.rows).toBe(e.direct.rows);
    }
    expect(single.find((e: Json) => e.query === 'A').federated.rows).toBe(200);
    // use cases 3 and 4: two levels of users, direct and federated
    expect(res.steps.map((s: Json) => `${s.query} ${s.mode} ${s.users}`)).toEqual([
      'G direct 1',
      'G direct 2',
      'G federated 1',
      'G federated 2',
      'H direct 1',
      'H direct 2',
      'H federated 1',
      'H federated 2',
    ]);
    for (const s of res.steps) {
      expect(s.stats.executions).toBeGreaterThan(0);
      expect(s.stats.errors).toBe(0);
      expect(s.throughput).toBeGreaterThan(0);
    }
    expect(res.intervals.length).toBeGreaterThanOrEqual(8);
    expect(res.samples.length).toBeGreaterThan(0);
    expect(res.samples[0].rssMb).toBeGreaterThan(0);
    // Linux: I/O wait is read from /proc/stat, a share of the machine's CPU time
    for (const x of res.samples) expect(x.ioWaitPct).toBeGreaterThanOrEqual(0);
    for (const x of res.samples) expect(x.ioWaitPct + x.machineBusyPct).toBeLessThanOrEqual(100);
    expect(Object.keys(res.samples.at(-1).sources).sort()).toEqual(['dbA', 'dbB', 'dbC', 'dbD', 'tpch']);
    expect(res.environment.sources.map((s: Json) => s.name).sort()).toEqual(['dbA', 'dbB', 'dbC', 'dbD', 'tpch']);
    expect(res.environment.sf).toBe(SF);
    expect(res.errors).toEqual([]);
    expect(res.summary).toMatchObject({ errors: 0, mismatches: [] });
    expect(run.progress).toMatchObject({ fraction: 1, errors: 0 });
    // what is stored is what the API returns
    const row = await h.meta.db.benchmarkRun.findUniqueOrThrow({ where: { id: jdvRun } });
    expect(row.status).toBe('done');
    expect(JSON.parse(row.results)).toEqual(res);
    expect(row.finishedAt).not.toBeNull();
  });

  it('runs the weighted mix with per-interval summaries, and the streams with a geometric mean and cold vs warm', async () => {
    const mixRun = await startRun({
      name: 'mix short',
      preset: 'oltp-mix',
      sources: SOURCES,
      settings: { sf: SF },
      overrides: { durationSeconds: 1.5, maxUsers: 2 },
    });
    const mix = (await finished(mixRun)).results;
    const phases = [...new Set(mix.queries.map((e: Json) => e.phase))];
    expect(phases).toEqual(['Weighted mix through Junction', 'Weighted mix direct']);
    const fed = mix.queries.filter((e: Json) => e.phase === phases[0]);
    expect(fed.map((e: Json) => e.query)).toEqual(['H', 'A', 'E']);
    const total = fed.reduce((s: number, e: Json) => s + e.federated.executions, 0);
    expect(total).toBe(mix.steps[0].stats.executions);
    expect(fed[0].federated.executions).toBeGreaterThan(fed[2].federated.executions); // weights 70 vs 10
    const intervals = mix.intervals.filter((i: Json) => i.phaseIndex === 0);
    expect(intervals.reduce((s: number, i: Json) => s + i.executions, 0)).toBe(total);
    expect(mix.summary.errors).toBe(0);

    const streamRun = await startRun({
      name: 'streams short',
      preset: 'streams',
      sources: SOURCES,
      settings: { sf: SF },
      overrides: { maxUsers: 2, warmPasses: 1, queries: ['A', 'C', 'H'] },
    });
    const run = await finished(streamRun);
    expect(run.status).toBe('done');
    const s = run.results;
    expect(s.streams.map((x: Json) => [x.mode, x.users, x.orders.length])).toEqual([
      ['federated', 2, 2],
      ['direct', 2, 2],
    ]);
    expect(s.streams[0].orders[0]).toEqual(['A', 'C', 'H']);
    expect([...s.streams[0].orders[1]].sort()).toEqual(['A', 'C', 'H']);
    expect(s.streams[0].geomeanMs).toBeGreaterThan(0);
    expect(s.summary.geomeanMs).toBe(s.streams[0].geomeanMs);
    expect(Object.keys(s.streams[0].perQueryGeomeanMs)).toEqual(['A', 'C', 'H']);
    expect(s.coldWarm.map((c: Json) => c.query)).toEqual(['A', 'C', 'H']);
    for (const c of s.coldWarm) {
      expect(c.coldMs).toBeGreaterThan(0);
      expect(c.warmMs).toHaveLength(1);
      expect(c.warmMs[0]).toBeGreaterThan(0);
      expect(c.secondUserWarmMs).toBeGreaterThan(0);
    }
    expect(s.summary.errors).toBe(0);
  });

  it('marks a wrong answer as a failure, with a sample of the rows that differ', async () => {
    const runId = await startRun({
      name: 'mismatch',
      queries: [
        {
          id: 'X',
          federated: 'SELECT c_custkey, c_name FROM dbB.customer WHERE c_custkey <= 10',
          direct: { source: 'tpch', sql: 'SELECT c_custkey, c_name FROM customer WHERE c_custkey <= 9' },
        },
      ],
      phases: [{ type: 'single', warmups: 0, repetitions: 1 }],
    });
    const run = await finished(runId);
    // a wrong answer fails the run, whatever its times
    expect(run.status).toBe('failed');
    expect(run.progress.failure).toBe('answers');
    expect(run.progress.error).toMatch(/^Wrong answer: X /);
    expect(run.results.answers.X).toMatchObject({
      equivalent: false,
      direct: { rows: 9 },
      federated: { rows: 10 },
      sample: { onlyDirect: [], onlyFederated: ['10 | Customer#000000010'] },
    });
    expect(run.results.queries[0]).toMatchObject({ query: 'X', equivalent: false, failed: true });
    expect(run.results.summary.mismatches).toEqual(['X']);
  });

  it('drives Junction through POST /api/v1/query itself when asked (via http), with the same answers', async () => {
    await listening();
    const tokensBefore = await h.meta.db.apiToken.count();
    const runId = await startRun({
      name: 'via http',
      preset: 'jdv',
      sources: SOURCES,
      settings: { sf: SF, via: 'http' },
      overrides: { queries: ['A', 'C', 'H'], warmups: 0, repetitions: 2, users: [1], stepSeconds: 0.5 },
    });
    const run = await finished(runId);
    expect(run.status).toBe('done');
    const { port } = h.app.server.address() as AddressInfo;
    expect(run.results.environment.http).toBe(`socket 127.0.0.1:${port}`);
    for (const q of ['A', 'C', 'H']) expect(run.results.answers[q].equivalent).toBe(true);
    const a = run.results.queries.find((e: Json) => e.query === 'A');
    expect(a.federated).toMatchObject({ executions: 2, errors: 0, rows: 200 });
    expect(a.pushdown).toMatchObject({ executions: 2, errors: 0, rows: 200 });
    expect(run.results.queries.map((e: Json) => e.query)).toEqual(['A', 'C', 'H', 'H']);
    expect(run.results.steps.map((x: Json) => `${x.mode} ${x.users} ${x.stats.errors}`)).toEqual([
      'direct 1 0',
      'federated 1 0',
    ]);
    // the run's own token is gone once it ended
    expect(await h.meta.db.apiToken.count()).toBe(tokensBefore);
    const history = (await api('GET', '/api/v1/history?limit=999')).json();
    expect(
      history.filter((x: Json) => x.sql.includes('dbB.customer WHERE c_custkey <= 100')).length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('cancels a run; the run never takes the interactive budget (8 users, one user, no 429)', async () => {
    const runId = await startRun({
      name: 'long mix',
      queries: [{ id: 'N', federated: 'SELECT count(*) FROM dbD.nation' }],
      phases: [{ type: 'mix', users: 8, durationSeconds: 300, intervalSeconds: 1 }],
    });
    let q;
    try {
      await until(
        'executions',
        () => getRun(runId),
        (r) => r.status === 'running' && r.progress?.executions >= 20,
      );
      q = await api('POST', '/api/v1/query', { sql: 'SELECT count(*) FROM dbC.part' });
    } catch (e) {
      await api('DELETE', `/api/v1/benchmark-runs/${runId}`);
      throw e;
    }
    const t0 = Date.now();
    const del = await api('DELETE', `/api/v1/benchmark-runs/${runId}`);
    expect(q.statusCode, q.body).toBe(200);
    expect(q.json().rows).toEqual([['2000']]);
    expect(del.json()).toEqual({ ok: true, status: 'cancelled' });
    expect(Date.now() - t0).toBeLessThan(30_000);
    const run = await getRun(runId);
    expect(run.status).toBe('cancelled');
    expect(run.progress.errors).toBe(0);
    expect((await h.meta.db.benchmarkRun.findUniqueOrThrow({ where: { id: runId } })).status).toBe('cancelled');
    expect((await api('DELETE', `/api/v1/benchmark-runs/${runId}`)).statusCode).toBe(409);
  });

  it('records a source failing mid-run as errors while the run goes on', async () => {
    const dbB = pgDbs[1].url;
    const runId = await startRun({
      name: 'failing source',
      queries: [
        { id: 'A', federated: 'SELECT * FROM dbB.customer WHERE c_custkey <= 100' },
        { id: 'N', federated: 'SELECT count(*) FROM dbD.nation' },
      ],
      phases: [{ type: 'mix', users: 2, durationSeconds: 8, intervalSeconds: 1 }],
    });
    try {
      await until(
        'executions',
        () => getRun(runId),
        (r) => r.progress?.executions >= 10,
      );
      await pgExec(dbB, 'ALTER TABLE customer RENAME TO customer_gone');
      await until(
        'errors',
        () => getRun(runId),
        (r) => r.progress?.errors >= 3,
      );
    } finally {
      await pgExec(dbB, 'ALTER TABLE customer_gone RENAME TO customer');
    }
    const run = await finished(runId);
    expect(run.status).toBe('done');
    const a = run.results.queries.find((e: Json) => e.query === 'A').federated;
    const n = run.results.queries.find((e: Json) => e.query === 'N').federated;
    expect(a.errors).toBeGreaterThanOrEqual(3);
    expect(a.executions).toBeGreaterThan(0);
    expect(n.errors).toBe(0);
    expect(run.results.summary.errors).toBe(a.errors);
    expect(run.results.errors[0]).toMatchObject({ query: 'A', mode: 'federated' });
    expect(run.results.intervals.reduce((s: number, i: Json) => s + i.errors, 0)).toBe(a.errors);
  });

  it('exports JSON and CSV, re-imports, and compares two runs with the difference in percent', async () => {
    const exp = await api('GET', `/api/v1/benchmark-runs/${jdvRun}/export`);
    expect(exp.statusCode).toBe(200);
    const imported = await api('POST', '/api/v1/benchmark-runs/import', exp.json());
    expect(imported.statusCode, imported.body).toBe(201);
    const copy = await getRun(imported.json().runId);
    const orig = await getRun(jdvRun);
    expect(copy.results).toEqual(orig.results);
    expect(copy.status).toBe('done');
    // an import says it is one (and of which run), the original does not
    expect(copy.imported).toMatchObject({ from: jdvRun, at: expect.any(String) });
    expect(orig.imported).toBeNull();
    const listed = (await api('GET', '/api/v1/benchmark-runs')).json();
    expect(listed.find((r: Json) => r.id === copy.id).imported).toBe(true);
    expect(listed.find((r: Json) => r.id === jdvRun).imported).toBe(false);
    const cmp = (await api('GET', `/api/v1/benchmark-runs/${jdvRun}/compare/${copy.id}`)).json();
    expect(cmp.queries.length).toBe(7 * 3 + 2 * 2);
    for (const r of cmp.queries) expect(r.p50DiffPct).toBe(0);
    const csv = await api('GET', `/api/v1/benchmark-runs/${jdvRun}/export?format=csv`);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe(
      'run,phase,query,mode,users,throughput,executions,errors,rows,bytes,minMs,meanMs,p50Ms,p90Ms,p95Ms,p99Ms,maxMs,equivalent',
    );
    expect(lines).toHaveLength(1 + 7 * 3 + 2 * 2 + 8);
    const list = (await api('GET', '/api/v1/benchmark-runs')).json();
    expect(list.map((r: Json) => r.id)).toContain(jdvRun);
  });

  it('the CLI (npm run bench -- --preset jdv) drives the same runner over REST and prints a table', async () => {
    const address = await listening();
    const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'packages/query-core/bench/main.ts',
        '--preset',
        'jdv',
        '--url',
        address,
        '--direct',
        'tpch',
        '--sf',
        String(SF),
        '--repetitions',
        '1',
        '--warmups',
        '0',
        '--step-seconds',
        '0.3',
        '--max-users',
        '1',
        '--name',
        'from the CLI',
      ],
      // the token from the environment: npm echoes a command line
      { cwd: repo, timeout: 120_000, env: { ...process.env, JUNCTION_TOKEN: h.tokens.admin } },
    );
    const lines = stdout.split('\n');
    expect(lines).toContain('Use cases 1–2: each query alone');
    for (const q of ['A', 'B', 'C', 'D', 'E', 'F', 'H'])
      expect(lines.find((l) => l.startsWith(`${q} | `))).toMatch(/\| same rows$/);
    expect(lines.filter((l) => / \| (direct|federated) \| 1 \| /.test(l))).toHaveLength(4);
    expect(stdout).toMatch(/run [0-9a-f-]+: done; \d+ executions, 0 errors\n$/);
    const runs = (await api('GET', '/api/v1/benchmark-runs')).json();
    expect(runs.find((r: Json) => r.name === 'from the CLI')).toMatchObject({ status: 'done' });
  });

  it('a run the server was running when it stopped is marked interrupted at the next start, keeping what it flushed', async () => {
    const partial = { steps: [{ phase: 'p', query: 'N', users: 1 }], summary: { executions: 7 } };
    await h.meta.db.benchmarkRun.create({
      data: {
        id: 'interrupted',
        name: 'interrupted',
        results: JSON.stringify(partial),
        status: 'running',
        progress: JSON.stringify({ phase: 'p', executions: 7 }),
      },
    });
    await new BenchLab(h.app).recover();
    const run = await getRun('interrupted');
    expect(run.status).toBe('interrupted');
    expect(run.progress).toMatchObject({ phase: 'p', executions: 7, error: 'The server restarted during the run.' });
    expect(run.results).toEqual(partial);
  });

  it('an unknown run is benchmark_run_not_found', async () => {
    const r = await api('GET', '/api/v1/benchmark-runs/nope');
    expect(r.statusCode).toBe(404);
    expect(r.json().code).toBe('benchmark_run_not_found');
  });

  it("renders the presets' direct SQL for a MySQL target, and refuses SQLite with the reason before any run", async () => {
    const refused = await api('POST', '/api/v1/benchmarks', {
      name: 'lite direct',
      preset: 'jdv',
      sources: { ...SOURCES, direct: 'lite' },
      settings: { sf: SF },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'benchmark_direct_dialect' });
    expect(refused.json().message).toMatch(/SQLite/);
    const runId = await startRun({
      name: 'mysql direct',
      preset: 'jdv',
      sources: { ...SOURCES, direct: 'tpchMy' },
      settings: { sf: SF },
      overrides: { queries: ['B', 'C', 'E', 'H'], warmups: 0, repetitions: 1, users: [1], stepSeconds: 0.3 },
    });
    const run = await finished(runId);
    expect(run.status, JSON.stringify(run.progress)).toBe('done');
    for (const q of ['B', 'C', 'E', 'H']) {
      expect(run.results.answers[q].equivalent, `${q}: ${JSON.stringify(run.results.answers[q])}`).toBe(true);
      expect(run.results.answers[q].rowsCompared).toBeGreaterThan(0);
    }
    expect(run.results.errors).toEqual([]);
  });

  it('cold vs warm purges only what its queries read: an interactive cached result of another source stays', async () => {
    const other = '/*+ cache(ttl=300) */ SELECT count(*) AS n FROM dbD.region';
    const ask = async () => (await api('POST', '/api/v1/query', { sql: other })).json();
    await ask();
    expect((await ask()).stats.cache).toBe('hit');
    const runId = await startRun({
      name: 'cold warm scoped',
      queries: [{ id: 'A', federated: 'SELECT * FROM dbB.customer WHERE c_custkey <= 10' }],
      phases: [{ type: 'coldwarm', warmPasses: 1, cacheTtlSeconds: 60 }],
    });
    const run = await finished(runId);
    expect(run.status).toBe('done');
    expect((await ask()).stats.cache).toBe('hit');
  });

  it('a phase over queries the overrides leave out is dropped, and only the queries left are checked', async () => {
    const created = await api('POST', '/api/v1/benchmarks', {
      name: 'only G',
      preset: 'jdv',
      sources: SOURCES,
      settings: { sf: SF },
      overrides: { queries: ['G'], users: [1], stepSeconds: 0.3 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const def = (await api('GET', `/api/v1/benchmarks/${created.json().id}`)).json().definition;
    expect(def.phases.map((p: Json) => `${p.type} ${p.query ?? p.queries}`)).toEqual(['concurrency G']);
    expect(def.queries.map((q: Json) => q.id)).toEqual(['G']);
    const run = await finished((await api('POST', `/api/v1/benchmarks/${created.json().id}/runs`)).json().runId);
    expect(Object.keys(run.results.answers)).toEqual(['G']);
  });

  it('without a Trino backend the presets leave the trino mode out, and a phase asking for it is refused', async () => {
    const presets = (await api('GET', '/api/v1/benchmarks/presets')).json() as Json[];
    const modes = presets.flatMap((p) => p.phases.flatMap((ph: Json) => ph.modes ?? [ph.mode ?? 'federated']));
    expect(modes).not.toContain('trino');
    const refused = await api('POST', '/api/v1/benchmarks', {
      name: 'on trino',
      queries: [{ id: 'Q', federated: 'SELECT 1' }],
      phases: [{ type: 'single', label: 'alone', warmups: 0, repetitions: 1, modes: ['federated', 'trino'] }],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'trino_not_configured',
      details: { field: 'phases' },
    });
  });

  it('counts the data to check the scale, and warns when the settings say another', async () => {
    const runId = await startRun({
      name: 'wrong scale',
      preset: 'jdv',
      sources: SOURCES,
      settings: { sf: 1 },
      overrides: { queries: ['A'], warmups: 0, repetitions: 1 },
    });
    const run = await finished(runId);
    expect(run.results.environment.data).toMatchObject({ table: 'customer', source: 'dbB', rows: 1500, sf: SF });
    expect(run.results.warnings).toEqual([expect.stringMatching(/SF 0\.01 .*not the SF 1 /)]);
  });

  it('a timed phase moves the progress, flushes results while it runs, has no sliver intervals, and a cancel keeps its finished steps', async () => {
    const runId = await startRun({
      name: 'cancelled steps',
      queries: [{ id: 'N', federated: 'SELECT count(*) FROM dbD.nation' }],
      phases: [{ type: 'concurrency', query: 'N', users: [1, 2, 4, 8], stepSeconds: 2.3 }],
      settings: { sampleMs: 200 },
    });
    const fractions = new Set<number>();
    let flushed: Json = {};
    try {
      await until(
        'the second level',
        async () => {
          const r = await getRun(runId);
          if (r.progress?.step === 'N federated × 1 users') fractions.add(r.progress.fraction);
          return r;
        },
        (r) => r.progress?.step === 'N federated × 2 users',
      );
      // what the run has so far is in its row, not only in memory (a restart keeps it)
      flushed = await until(
        'results flushed',
        async () => JSON.parse((await h.meta.db.benchmarkRun.findUniqueOrThrow({ where: { id: runId } })).results),
        // the first step's, at least: under load the next flush may come after the second ended
        (r) => (r.steps?.length ?? 0) >= 1,
        10_000,
      );
    } finally {
      expect((await api('DELETE', `/api/v1/benchmark-runs/${runId}`)).json().status).toBe('cancelled');
    }
    expect(flushed.intervals.length).toBeGreaterThan(0);
    expect(fractions.size).toBeGreaterThanOrEqual(3);
    const run = await getRun(runId);
    const done = run.results.steps.filter((s: Json) => !s.partial);
    // the steps finished before the cancel, in order, and not all of them
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThan(4);
    expect(done.map((s: Json) => s.users)).toEqual([1, 2, 4, 8].slice(0, done.length));
    const entry = run.results.queries.find((e: Json) => e.query === 'N');
    const steps = run.results.steps.reduce((n: number, s: Json) => n + s.stats.executions, 0);
    expect(entry.federated.executions).toBe(steps);
    expect(entry.federated.executions).toBeGreaterThan(done[0].stats.executions - 1);
    expect(entry.partial).toBe(true);
    // the step of 2.3 s at 1 s intervals: 1 s, then 1.3 s, not 1, 1 and a 0.3 s sliver
    const first = run.results.intervals.filter((i: Json) => i.step === 'N federated × 1 users');
    expect(first.map((i: Json) => Math.round(i.seconds))).toEqual([1, 1]);
    expect(first.reduce((n: number, i: Json) => n + i.executions, 0)).toBe(done[0].stats.executions);
  });

  it('needs query permission to define and run, admin to load', async () => {
    expect((await h.as('viewer', { method: 'GET', url: '/api/v1/benchmarks/presets' })).statusCode).toBe(200);
    expect(
      (await h.as('viewer', { method: 'POST', url: '/api/v1/benchmarks', payload: { name: 'x', preset: 'jdv' } }))
        .statusCode,
    ).toBe(403);
    expect(
      (
        await h.as('analyst', {
          method: 'POST',
          url: '/api/v1/benchmarks/load',
          payload: { layout: 'single', sf: SF, sources: { direct: 'tpch' } },
        })
      ).statusCode,
    ).toBe(403);
    expect((await h.as(null, { method: 'GET', url: '/api/v1/benchmark-runs' })).statusCode).toBe(401);
  });
});
