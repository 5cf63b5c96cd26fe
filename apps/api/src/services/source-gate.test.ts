import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type SourceConfig } from '@junction/connectors';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';
import { SourceAllow } from '../lib/source-allow.js';

/**
 * The source gate against real sources: every path that can execute SQL, tried by users without
 * the grant, reaches nothing. What reaches a source is recorded under the gate, by a connector
 * factory wrapping the real connectors: every statement, with the stack that sent it, so a call
 * that does not come through services/source-gate.ts fails the test too.
 */

interface Sent {
  source: string;
  kind: 'execute' | 'stream';
  sql: string;
  viaGate: boolean;
}
const sent: Sent[] = [];
/** every connector the app opened, by source name */
const opened: string[] = [];

function recorded(inner: Connector): Connector {
  const note = (kind: Sent['kind'], sql: string) =>
    sent.push({ source: inner.name, kind, sql, viaGate: (new Error().stack ?? '').includes('source-gate.ts') });
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'execute')
        return (sql: string, ...rest: unknown[]) => {
          note('execute', sql);
          return (target.execute as (...a: unknown[]) => unknown).call(target, sql, ...rest);
        };
      if (prop === 'stream')
        return (q: { sql: string }, ...rest: unknown[]) => {
          note('stream', q.sql);
          return (target.stream as (...a: unknown[]) => unknown).call(target, q, ...rest);
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
    set(target, prop, value) {
      return Reflect.set(target, prop, value);
    },
  });
}

let h: Harness;
let db: Awaited<ReturnType<typeof createPgDatabase>>;
let dir: string;
let liteFile: string;
const reached = (source: string) => sent.filter((s) => s.source === source);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Role = 'admin' | 'analyst' | 'viewer';
const api = (role: Role, method: string, url: string, payload?: unknown) => h.as(role, { method, url, payload });
const finished = (role: Role, id: string) =>
  until(
    `run ${id}`,
    async () => (await api(role, 'GET', `/api/v1/benchmark-runs/${id}`)).json() as Json,
    (r) => ['done', 'failed', 'cancelled'].includes(r.status),
  );

/** A benchmark whose one query has a direct target on `source`, created and run by `role`. */
async function runDirect(
  role: Role,
  source: string,
  sql: string,
  federated = 'SELECT 1',
): Promise<{ benchmark: string; run: string }> {
  const created = await api(role, 'POST', '/api/v1/benchmarks', {
    name: `direct ${source}`,
    queries: [{ id: 'q', federated, direct: { source, sql } }],
    phases: [{ type: 'single', warmups: 0, repetitions: 1, modes: ['direct'] }],
    settings: { sampleMs: 100 },
  });
  expect(created.statusCode, created.body).toBe(201);
  const run = await api(role, 'POST', `/api/v1/benchmarks/${created.json().id}/runs`);
  expect(run.statusCode, run.body).toBe(201);
  return { benchmark: created.json().id, run: run.json().runId };
}

beforeAll(async () => {
  db = await createPgDatabase('gate');
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(
    `CREATE TABLE secrets (id int PRIMARY KEY, v text); INSERT INTO secrets VALUES (1, 'alpha'), (2, 'beta')`,
  );
  await c.end();
  dir = mkdtempSync(path.join(os.tmpdir(), 'jt-gate-'));
  liteFile = path.join(dir, 'lite.db');
  const lite = new Database(liteFile);
  lite.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'one')`);
  lite.close();
  h = await startHarness({
    connectorFactory: (config: SourceConfig) => {
      opened.push(config.name);
      return recorded(createConnector(config));
    },
  });
  for (const payload of [pgSourcePayload('vault', db), { name: 'lite', engine: 'sqlite', file: liteFile }]) {
    const r = await api('admin', 'POST', '/api/v1/sources', payload);
    expect(r.statusCode, r.body).toBe(201);
  }
});

afterAll(async () => {
  await h?.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  sent.length = 0;
  opened.length = 0;
});

describe('every path that executes SQL refuses a user without the grant, and nothing reaches the source', () => {
  const denied = (permission: string) => ({
    code: 'forbidden',
    kind: 'forbidden',
    message: `This needs the "${permission}" permission, which this token does not have.`,
    details: { permission },
  });
  const noGrant = (offset: number) => ({
    code: 'access_denied',
    kind: 'forbidden',
    message: 'you may not read source "vault"; ask an administrator for access',
    position: { offset, line: 1, column: offset + 1, length: 13 },
    details: { source: 'vault' },
  });
  const savedNotFound = () => ({
    code: 'saved_query_not_found',
    kind: 'not_found',
    message: `No saved query with id or name "${saved}".`,
    details: { id: saved },
  });
  let saved = '';
  let view = '';
  beforeAll(async () => {
    const q = await api('admin', 'POST', '/api/v1/saved-queries', {
      name: 'secrets',
      sql: 'SELECT * FROM vault.secrets',
      shared: true,
    });
    expect(q.statusCode, q.body).toBe(201);
    saved = q.json().id;
    const schema = await api('admin', 'POST', '/api/v1/schemas', { name: 'gated' });
    expect(schema.statusCode, schema.body).toBe(201);
    const v = await api('admin', 'POST', '/api/v1/views', {
      schema: 'gated',
      name: 'secrets',
      sql: 'SELECT * FROM vault.secrets',
    });
    expect(v.statusCode, v.body).toBe(201);
    view = v.json().id;
    sent.length = 0;
  });

  // The paths that can run SQL on a source, each tried without the grant: [path, role, method,
  // url, body, status, reply]. A path added to the API belongs here.
  const PATHS: [string, Role, string, () => string, unknown, number, unknown][] = [
    [
      'federated query (fragments, cache fills)',
      'analyst',
      'POST',
      () => '/api/v1/query',
      { sql: 'SELECT * FROM vault.secrets' },
      403,
      noGrant(14),
    ],
    [
      'export',
      'analyst',
      'POST',
      () => '/api/v1/query/export',
      { sql: 'SELECT * FROM vault.secrets', format: 'csv' },
      403,
      noGrant(14),
    ],
    [
      'EXPLAIN ANALYZE',
      'analyst',
      'POST',
      () => '/api/v1/explain',
      { sql: 'SELECT * FROM vault.secrets', analyze: true },
      403,
      noGrant(14),
    ],
    [
      'designer preview',
      'analyst',
      'POST',
      () => '/api/v1/views/validate',
      { sql: 'SELECT * FROM vault.secrets' },
      200,
      { ok: false, error: noGrant(29) },
    ],
    // a shared saved query the caller cannot run is not theirs to see
    ['shared saved query', 'analyst', 'POST', () => `/api/v1/saved-queries/${saved}/run`, {}, 404, savedNotFound],
    [
      'saved query export',
      'viewer',
      'POST',
      () => `/api/v1/saved-queries/${saved}/export`,
      { format: 'csv' },
      404,
      savedNotFound,
    ],
    [
      'view run',
      'viewer',
      'POST',
      () => `/api/v1/views/${view}/run`,
      {},
      403,
      {
        code: 'access_denied',
        kind: 'forbidden',
        message: 'you may not read view "gated.secrets"; ask an administrator for access',
        position: { offset: 14, line: 1, column: 15, length: 17 },
        details: { schema: 'gated', view: 'secrets' },
      },
    ],
    [
      'viewer ad hoc query',
      'viewer',
      'POST',
      () => '/api/v1/query',
      { sql: 'SELECT * FROM vault.secrets' },
      403,
      denied('query'),
    ],
    [
      'data loader',
      'analyst',
      'POST',
      () => '/api/v1/benchmarks/load',
      { layout: 'single', sf: 0.001, sources: { direct: 'vault' } },
      403,
      denied('admin'),
    ],
    [
      'materialized-view refresh',
      'analyst',
      'POST',
      () => '/api/v1/materializations/gated/secrets/refresh',
      undefined,
      403,
      denied('admin'),
    ],
    [
      'source test (registration)',
      'analyst',
      'POST',
      () => '/api/v1/sources/vault/test',
      undefined,
      403,
      denied('admin'),
    ],
    ['catalog refresh', 'analyst', 'POST', () => '/api/v1/sources/vault/refresh', undefined, 403, denied('admin')],
  ];
  for (const [name, role, method, url, payload, status, reply] of PATHS) {
    it(name, async () => {
      const r = await api(role, method, url(), payload);
      expect(r.statusCode, r.body).toBe(status);
      if (reply !== null) expect(r.json()).toEqual(typeof reply === 'function' ? reply() : reply);
      expect(reached('vault')).toEqual([]);
    });
  }

  it('a benchmark direct target: refused at the gate, recorded as the answer check error, audited', async () => {
    const { run } = await runDirect('analyst', 'vault', 'SELECT * FROM secrets');
    const r = await finished('analyst', run);
    expect(r.results.answers.q.error).toBe(
      'Sending "vault" its own SQL needs the admin permission or a native grant on that source.',
    );
    expect(r.results.errors.map((e: Json) => e.code)).toEqual(['native_forbidden']);
    // the environment does not probe a source the user may not read
    expect(r.results.environment.sources).toEqual([
      { name: 'vault', engine: 'postgresql', error: 'not probed: no grant on this source' },
    ]);
    expect(reached('vault')).toEqual([]);
    const audit = (await api('admin', 'GET', '/api/v1/audit?action=source.refused')).json() as Json[];
    const entries = audit as Json[];
    expect(
      entries.some((e) => e.action === 'source.refused' && e.target === 'vault' && e.actorName === 'analyst'),
    ).toBe(true);
  });

  it('a stream without an access policy is not sent (a path that cannot name its principal cannot execute)', async () => {
    const engine = await h.app.junction.engine();
    // the engine's own connector for vault, asked directly: no policy in the options
    const res = await engine.query('SELECT * FROM vault.secrets');
    await expect(async () => {
      for await (const _ of res.rows) void _;
    }).rejects.toMatchObject({ code: 'source_forbidden' });
    expect(reached('vault')).toEqual([]);
  });
});

describe('native SQL is a privilege, read-only, and cancellable', () => {
  it('an admin direct target runs read-only: DDL is refused and nothing is created, SELECT answers', async () => {
    const ddl = await runDirect('admin', 'vault', 'CREATE TABLE planted (x int)');
    expect((await finished('admin', ddl.run)).results.errors[0].code).toBe('native_not_read_only');
    const lite = await runDirect('admin', 'lite', 'CREATE TABLE planted (x int)');
    expect((await finished('admin', lite.run)).results.errors[0].code).toBe('native_not_read_only');
    const sel = await runDirect('admin', 'vault', 'SELECT count(*) FROM secrets', 'SELECT count(*) FROM vault.secrets');
    const r = await finished('admin', sel.run);
    expect(r.status).toBe('done');
    expect(r.results.answers.q.equivalent).toBe(true);
    expect(
      (await pgExec(db.url, `SELECT to_regclass('planted') AS t`)).rows[0].t,
    ).toBeNull();
    const f = new Database(liteFile, { readonly: true });
    expect(f.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'planted'`).get()).toEqual({ n: 0 });
    f.close();
    expect(sent.filter((s) => !s.viaGate)).toEqual([]);
  });

  it('a native grant lets an analyst run SELECT on that source only, still read-only', async () => {
    const g = await api('admin', 'POST', '/api/v1/grants', {
      role: 'analyst',
      sourceName: 'vault',
      privilege: 'native',
    });
    expect(g.statusCode, g.body).toBe(201);
    try {
      const ok = await runDirect(
        'analyst',
        'vault',
        'SELECT v FROM secrets ORDER BY id',
        'SELECT v FROM vault.secrets ORDER BY id',
      );
      expect((await finished('analyst', ok.run)).results.answers.q.equivalent).toBe(true);
      const ddl = await runDirect('analyst', 'vault', 'DROP TABLE secrets');
      expect((await finished('analyst', ddl.run)).results.errors[0].code).toBe('native_not_read_only');
      const other = await runDirect('analyst', 'lite', 'SELECT * FROM notes');
      expect((await finished('analyst', other.run)).results.errors[0].code).toBe('native_forbidden');
      expect(reached('lite')).toEqual([]);
    } finally {
      await api('admin', 'DELETE', `/api/v1/grants/${g.json().id}`);
    }
  });

  it('cancelling a run frees its direct statement on the source within 2 s', async () => {
    const { run } = await runDirect('admin', 'vault', 'SELECT pg_sleep(30)');
    const probe = new pg.Client({ connectionString: db.url });
    await probe.connect();
    try {
      const active = () =>
        probe
          .query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()`,
          )
          .then((r) => r.rows[0].n as number);
      await until('the sleep to start', active, (n) => n === 1, 20_000);
      const t0 = Date.now();
      const cancel = await api('admin', 'DELETE', `/api/v1/benchmark-runs/${run}`);
      expect(cancel.statusCode, cancel.body).toBe(200);
      expect(cancel.json().status).toBe('cancelled');
      await until('the sleep to end', active, (n) => n === 0, 2_000);
      expect(Date.now() - t0).toBeLessThan(2_000);
    } finally {
      await probe.end();
    }
  });
});

describe('benchmarks and runs belong to their owner', () => {
  it("a viewer lists none of an admin's runs; an analyst can neither cancel nor delete them; a share opens reading only", async () => {
    const { benchmark, run } = await runDirect('admin', 'vault', 'SELECT pg_sleep(5)');
    try {
      expect(((await api('viewer', 'GET', '/api/v1/benchmark-runs')).json() as Json[]).map((r) => r.id)).not.toContain(
        run,
      );
      expect((await api('viewer', 'GET', `/api/v1/benchmark-runs/${run}`)).statusCode).toBe(404);
      expect((await api('viewer', 'GET', `/api/v1/benchmark-runs/${run}/export`)).statusCode).toBe(404);
      expect((await api('viewer', 'GET', '/api/v1/benchmarks')).json()).toEqual([]);
      expect((await api('analyst', 'DELETE', `/api/v1/benchmark-runs/${run}`)).statusCode).toBe(404);
      expect((await api('analyst', 'DELETE', `/api/v1/benchmarks/${benchmark}`)).statusCode).toBe(404);

      const share = await api('admin', 'PATCH', `/api/v1/benchmark-runs/${run}`, { sharedRole: 'analyst' });
      expect(share.statusCode, share.body).toBe(200);
      expect((await api('analyst', 'GET', `/api/v1/benchmark-runs/${run}`)).statusCode).toBe(200);
      expect((await api('viewer', 'GET', `/api/v1/benchmark-runs/${run}`)).statusCode).toBe(404);
      const cancel = await api('analyst', 'DELETE', `/api/v1/benchmark-runs/${run}`);
      expect(cancel.statusCode).toBe(403);
      expect(cancel.json()).toEqual({
        code: 'forbidden',
        kind: 'forbidden',
        message: "Only the run's owner or an admin may do this.",
      });
      expect(
        (await api('analyst', 'PATCH', `/api/v1/benchmark-runs/${run}`, { sharedRole: 'viewer' })).statusCode,
      ).toBe(403);
    } finally {
      await api('admin', 'DELETE', `/api/v1/benchmark-runs/${run}`);
      await finished('admin', run);
    }
    expect((await api('admin', 'DELETE', `/api/v1/benchmarks/${benchmark}`)).statusCode).toBe(200);
  });

  it("load progress is the admin's", async () => {
    expect((await api('viewer', 'GET', '/api/v1/benchmarks/load/nosuch')).statusCode).toBe(403);
    expect((await api('admin', 'GET', '/api/v1/benchmarks/load/nosuch')).statusCode).toBe(404);
  });
});

describe('where a source may point', () => {
  it('a stored source the allow-list no longer admits is not contacted, by a health check or native SQL', async () => {
    const gate = h.app.junction.gate;
    const before = gate.allow;
    gate.allow = SourceAllow.parse('10.0.0.0/8', h.dir);
    try {
      const refused = {
        code: 'source_not_allowed',
        kind: 'forbidden',
        message: 'Source "vault" may not connect to host "127.0.0.1": it is not allowed by JUNCTION_SOURCE_ALLOW (10.0.0.0/8).',
      };
      await expect(h.app.junction.testSource('vault')).rejects.toMatchObject(refused);
      const { run } = await runDirect('admin', 'vault', 'SELECT 1');
      const r = await finished('admin', run);
      expect(r.results.answers.q.error).toBe(refused.message);
      expect(opened).toEqual([]);
      expect(reached('vault')).toEqual([]);
    } finally {
      gate.allow = before;
    }
  });
});
