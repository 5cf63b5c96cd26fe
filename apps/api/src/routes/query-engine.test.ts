import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type RemoteQuery } from '@junction/connectors';
import type { Engine } from '@junction/query-core';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

/**
 * The engine a query runs on, through the API: `engine` in POST /query, /query/export and
 * /explain, the statement's hint, and `stats.engine` in the reply. A PostgreSQL connector stands
 * where Trino would (the Trino connector is tested on its own): the engine side works with any.
 */
let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let secret: Awaited<ReturnType<typeof createPgDatabase>>;
let backendConnector: Connector;
const streamed: string[] = [];

/** Drops the catalog the backend names tables with: this database is the only one PostgreSQL reads. */
function withoutCatalogs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutCatalogs);
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    if (!(k === 'catalog' && (v as { kind?: string }).kind === 'table')) out[k] = withoutCatalogs(x);
  return out;
}

beforeAll(async () => {
  pgdb = await createPgDatabase('api_engine');
  secret = await createPgDatabase('api_engine_secret');
  await pgExec(
    pgdb.url,
    `CREATE TABLE public.t (id int PRIMARY KEY, name varchar(10)); INSERT INTO public.t VALUES (1, 'one'), (2, 'two');`,
  );
  await pgExec(secret.url, `CREATE TABLE public.s (id int PRIMARY KEY); INSERT INTO public.s VALUES (1);`);
  h = await startHarness();
  for (const [name, db] of [
    ['src', pgdb],
    ['secret', secret],
  ] as const) {
    const res = await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload(name, db) });
    expect(res.statusCode).toBe(201);
  }
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'src' } });
  const u = new URL(pgdb.url);
  backendConnector = createConnector({
    name: 'trino',
    engine: 'postgresql',
    host: u.hostname,
    port: Number(u.port),
    database: pgdb.name,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  });
  await backendConnector.probe();
});

afterAll(async () => {
  await h?.close();
  await backendConnector?.close();
  await pgdb?.drop();
  await secret?.drop();
});

const query = (payload: object, role: 'admin' | 'analyst' = 'analyst') =>
  h.as(role, { method: 'POST', url: '/api/v1/query', payload });

describe('engine choice without Trino configured', () => {
  it('runs locally by default and says so in the stats', async () => {
    const res = await query({ sql: 'SELECT name FROM src.t WHERE id = 1' });
    expect(res.statusCode).toBe(200);
    expect(res.json().stats.engine).toBe('local');
    expect(res.json().stats.engineReason).toBeUndefined();
    const local = await query({ sql: 'SELECT name FROM src.t WHERE id = 1', engine: 'local' });
    expect(local.json()).toMatchObject({
      rows: [['one']],
      stats: { engine: 'local', engineReason: 'asked for by the engine option' },
    });
  });

  it('refuses trino with trino_not_configured instead of running locally, from the option or the hint', async () => {
    const byOption = await query({ sql: 'SELECT name FROM src.t', engine: 'trino' });
    expect(byOption.statusCode).toBe(400);
    expect(byOption.json()).toMatchObject({ code: 'trino_not_configured', details: { engine: 'trino' } });
    const byHint = await query({ sql: '/*+ engine(trino) */ SELECT name FROM src.t' });
    expect(byHint.statusCode).toBe(400);
    expect(byHint.json()).toMatchObject({
      code: 'trino_not_configured',
      position: { offset: 11, line: 1, column: 12, length: 5 },
    });
    const explain = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT name FROM src.t', engine: 'trino' },
    });
    expect([explain.statusCode, explain.json().code]).toEqual([400, 'trino_not_configured']);
    const exported = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query/export',
      payload: { sql: 'SELECT name FROM src.t', format: 'csv', engine: 'trino' },
    });
    expect([exported.statusCode, exported.json().code]).toEqual([400, 'trino_not_configured']);
  });

  it('refuses an engine the API does not know', async () => {
    const res = await query({ sql: 'SELECT 1 AS one', engine: 'presto' });
    expect(res.statusCode).toBe(400);
    const hinted = await query({ sql: '/*+ engine(presto) */ SELECT 1 AS one' });
    expect([hinted.statusCode, hinted.json().code]).toEqual([400, 'unknown_engine']);
  });
});

describe('engine choice with a backend configured', () => {
  beforeAll(async () => {
    const engine = (await h.app.junction.engine()) as unknown as Engine;
    engine.setBackend({
      name: 'trino',
      connector: {
        name: 'trino',
        engine: backendConnector.engine,
        capabilities: () => backendConnector.capabilities(),
        render: (q) => backendConnector.render(withoutCatalogs(q) as RemoteQuery),
        test: () => backendConnector.test(),
        probe: () => backendConnector.probe(),
        introspect: () => backendConnector.introspect(),
        stream: (q, o) => {
          streamed.push(q.sql);
          return backendConnector.stream(q, o);
        },
        execute: (sql, params, o) => backendConnector.execute(sql, params, o),
        bulkLoad: (t, rows) => backendConnector.bulkLoad(t, rows),
        close: async () => undefined,
      },
      tableOf: (source) =>
        source === 'src' ? { catalog: 'pg' } : { local: true, reason: 'no catalog is mapped to it' },
      explain: async (q) => `Fragment 0 [SINGLE]\n    Output layout: [${q.columns.map((c) => c.name).join(', ')}]`,
    });
  });

  it('runs on the backend when asked, in JSON and NDJSON, with the engine in the stats', async () => {
    const before = streamed.length;
    const res = await query({ sql: 'SELECT name FROM src.t ORDER BY id', engine: 'trino' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      rows: [['one'], ['two']],
      stats: {
        engine: 'trino',
        engineReason: 'asked for by the engine option',
        sourceStatements: [{ source: 'trino' }],
      },
    });
    const nd = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: '/*+ engine(trino) */ SELECT name FROM src.t WHERE id = 2' },
      headers: { accept: 'application/x-ndjson' },
    });
    const lines = nd.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[1]).toEqual(['two']);
    expect(lines[2]).toMatchObject({ stats: { engine: 'trino', engineReason: 'asked for by the hint engine(trino)' } });
    expect(streamed.length).toBe(before + 2);
  });

  it('explains the plan on the backend with its own plan under the statement', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT name FROM src.t WHERE id = 1', engine: 'trino' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().engine).toEqual({ engine: 'trino', reason: 'asked for by the engine option' });
    expect(res.json().text.split('\n')).toEqual([
      'Engine: trino (asked for by the engine option)',
      'RemoteQuery [trino]',
      '  SQL: SELECT "t"."name" AS "name" FROM "public"."t" "t" WHERE ("t"."id" = $1::integer)',
      '  params: [1]',
      '  plan in trino:',
      '    Fragment 0 [SINGLE]',
      '        Output layout: [name]',
    ]);
  });

  it('checks grants before the backend hears of the query', async () => {
    const before = streamed.length;
    const res = await query({ sql: 'SELECT id FROM secret.s', engine: 'trino' });
    expect(res.statusCode).toBe(403);
    expect(streamed.length).toBe(before);
    // an admin may read it; the backend cannot, so it runs locally and says why
    expect((await query({ sql: 'SELECT id FROM secret.s', engine: 'trino' }, 'admin')).json()).toMatchObject({
      rows: [[1]],
      stats: {
        engine: 'local',
        engineReason:
          'asked for by the engine option, but postgresql source secret is not readable by trino: no catalog is mapped to it',
      },
    });
  });

  it('exports a result computed on the backend', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query/export',
      payload: { sql: 'SELECT id, name FROM src.t ORDER BY id', format: 'csv', engine: 'trino' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('id,name\r\n1,one\r\n2,two\r\n');
  });
});
