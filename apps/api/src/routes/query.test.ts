import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, logCapture, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let other: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  pgdb = await createPgDatabase('api_query');
  other = await createPgDatabase('api_query_down');
  await pgExec(
    pgdb.url,
    `CREATE TABLE public.vals (id int PRIMARY KEY, big bigint, amount numeric(15,2), d date, ts timestamp, tstz timestamptz, bin bytea, name varchar(20), flag boolean);
     INSERT INTO public.vals VALUES
       (1, 9007199254740993, 1234567890123.45, '1995-03-01', '1998-01-01 10:20:30.5', '2020-01-01 00:00:00+02', '\\x00ff10', 'Ann', true),
       (2, NULL, -0.10, NULL, NULL, NULL, NULL, NULL, NULL);
     -- touching this view leaves a trace, so a test can tell whether a source was contacted at all
     CREATE TABLE public.touches (at timestamptz DEFAULT now());
     CREATE FUNCTION touch() RETURNS int LANGUAGE sql VOLATILE AS $$ INSERT INTO public.touches DEFAULT VALUES RETURNING 1 $$;
     CREATE VIEW public.traced AS SELECT id, touch() AS t FROM public.vals;
     CREATE VIEW public.one_sec AS SELECT 1 AS n FROM pg_sleep(1);
     CREATE FUNCTION slow_rows() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..100000 LOOP PERFORM pg_sleep(0.01); RETURN NEXT i; END LOOP; END $$;
     CREATE VIEW public.endless AS SELECT n FROM slow_rows() AS n;
     CREATE TABLE public.big AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, 5000) g;`,
  );
  await pgExec(other.url, `CREATE TABLE public.t (x int); INSERT INTO public.t VALUES (7);`);
  h = await startHarness({ limits: { maxConcurrent: 2, maxQueued: 2, queueTimeoutMs: 5_000, perUser: 10 } });
  for (const [name, db] of [
    ['src', pgdb],
    ['gone', other],
  ] as const) {
    const res = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/sources',
      payload: pgSourcePayload(name, db),
    });
    expect(res.statusCode).toBe(201);
  }
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'src' } });
});
afterAll(async () => {
  await h?.close();
  await pgdb?.drop();
  await other?.drop();
});

const touches = async () => Number((await pgExec(pgdb.url, 'SELECT count(*) AS n FROM public.touches')).rows[0].n);
const activeOn = async (db: string, like: string) =>
  Number(
    (
      await pgExec(
        pgdb.url,
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = '${db}' AND state = 'active' AND query LIKE '%${like}%' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].n,
  );

describe('POST /query', () => {
  it('returns exact JSON values: int64 and decimals as strings, ISO dates and timestamps, base64 binary', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id, big, amount, d, ts, tstz, bin, name, flag FROM src.vals ORDER BY id' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.columns).toEqual([
      { name: 'id', type: 'int32', nullable: false },
      { name: 'big', type: 'int64', nullable: true },
      { name: 'amount', type: 'decimal(15,2)', nullable: true },
      { name: 'd', type: 'date', nullable: true },
      { name: 'ts', type: 'timestamp', nullable: true },
      { name: 'tstz', type: 'timestamptz', nullable: true },
      { name: 'bin', type: 'binary', nullable: true },
      { name: 'name', type: 'varchar(20)', nullable: true },
      { name: 'flag', type: 'bool', nullable: true },
    ]);
    expect(body.rows).toEqual([
      [
        1,
        '9007199254740993',
        '1234567890123.45',
        '1995-03-01',
        '1998-01-01T10:20:30.5',
        '2019-12-31T22:00:00Z',
        'AP8Q',
        'Ann',
        true,
      ],
      [2, null, '-0.10', null, null, null, null, null, null],
    ]);
    expect(body.stats).toMatchObject({ rows: 2, queryId: body.queryId });
    expect(body.stats.sourceStatements[0].source).toBe('src');
    expect(res.headers['x-junction-query-id']).toBe(body.queryId);
  });

  it('streams NDJSON: a columns line, one line per row, a stats line', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id, amount FROM src.vals ORDER BY id' },
      headers: { accept: 'application/x-ndjson' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/x-ndjson');
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines[0].columns).toEqual([
      { name: 'id', type: 'int32', nullable: false },
      { name: 'amount', type: 'decimal(15,2)', nullable: true },
    ]);
    expect(lines[1]).toEqual([1, '1234567890123.45']);
    expect(lines[2]).toEqual([2, '-0.10']);
    expect(lines[3].stats.rows).toBe(2);
  });

  it('binds parameters as values: injection attempts reach no source as SQL', async () => {
    const hostile = "x'; DROP TABLE public.vals; --";
    const p = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id FROM src.vals WHERE name = $1', params: [hostile] },
    });
    expect(p.statusCode).toBe(200);
    expect(p.json().rows).toEqual([]);
    const lit = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: "SELECT id FROM src.vals WHERE name = 'x''; DROP TABLE public.vals; --'" },
    });
    expect(lit.statusCode).toBe(200);
    expect(lit.json().rows).toEqual([]);
    const ident = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT * FROM src."vals; DROP TABLE public.vals; --"' },
    });
    expect(ident.statusCode).toBe(400);
    const multi = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT 1; DROP TABLE public.vals' },
    });
    expect(multi.statusCode).toBeGreaterThanOrEqual(400);
    expect(Number((await pgExec(pgdb.url, 'SELECT count(*) AS n FROM public.vals')).rows[0].n)).toBe(2);
  });

  it('a query touching an ungranted source fails with 403 before the source is contacted', async () => {
    const before = await touches();
    const res = await h.as('viewer', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id FROM src.traced' },
    });
    expect(res.statusCode).toBe(403); // viewers may not run ad-hoc SQL at all
    const denied = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT a.id, b.x FROM src.traced a CROSS JOIN gone.t b' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().kind).toBe('forbidden');
    expect(await touches()).toBe(before);
    const allowed = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id, t FROM src.traced ORDER BY id' },
    });
    expect(allowed.json().rows).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(await touches()).toBeGreaterThan(before);
  });

  it('maps errors: bad SQL 400 with a position, unknown table 400, timeout 504, and records history', async () => {
    const bad = await h.as('analyst', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELEC 1' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().kind).toBe('user');
    const missing = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT * FROM src.nope' },
    });
    expect(missing.statusCode).toBe(400);
    const slow = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT n FROM src.one_sec', timeoutMs: 100 },
    });
    expect(slow.statusCode).toBe(504);
    expect(slow.json().kind).toBe('timeout');
    const history = (await h.as('analyst', { method: 'GET', url: '/api/v1/history?limit=3' })).json();
    expect(history.map((x: { status: string }) => x.status)).toEqual(['timeout', 'error', 'error']);
    expect(history[0]).toMatchObject({ sql: 'SELECT n FROM src.one_sec', rows: null, errorCode: slow.json().code });
    expect((await h.as('viewer', { method: 'GET', url: '/api/v1/history' })).json()).toEqual([]);
  });

  it('a source that is down fails only the queries that touch it', async () => {
    await other.drop();
    const down = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT x FROM gone.t' },
    });
    expect(down.statusCode).toBe(502);
    expect(down.json().kind).toBe('external');
    const up = await h.as('admin', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT count(*) AS n FROM src.vals' },
    });
    expect(up.statusCode).toBe(200);
    expect(up.json().rows).toEqual([['2']]);
  });

  it('DELETE /queries/:id cancels a running query (499), only for its owner or an admin', async () => {
    const running = h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT n FROM src.endless', queryId: 'cancel-me-1' },
    });
    for (let i = 0; i < 100 && !h.app.junction.running.has('cancel-me-1'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await h.as('viewer', { method: 'DELETE', url: '/api/v1/queries/cancel-me-1' })).statusCode).toBe(404);
    const list = (await h.as('analyst', { method: 'GET', url: '/api/v1/queries' })).json();
    expect(list.map((q: { id: string }) => q.id)).toContain('cancel-me-1');
    expect((await h.as('analyst', { method: 'DELETE', url: '/api/v1/queries/cancel-me-1' })).statusCode).toBe(200);
    const res = await running;
    expect(res.statusCode).toBe(499);
    expect(res.json().kind).toBe('cancelled');
    for (let i = 0; i < 100 && (await activeOn(pgdb.name, 'endless')) > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await activeOn(pgdb.name, 'endless')).toBe(0);
    expect((await h.as('analyst', { method: 'DELETE', url: '/api/v1/queries/cancel-me-1' })).statusCode).toBe(404);
  });

  it('a client that disconnects mid-stream cancels its source statement (real socket)', async () => {
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = h.app.server.address() as AddressInfo;
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/query',
      headers: {
        authorization: `Bearer ${h.tokens.analyst}`,
        'content-type': 'application/json',
        accept: 'application/x-ndjson',
      },
    });
    req.end(JSON.stringify({ sql: 'SELECT n FROM src.endless' }));
    const res = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    expect(res.statusCode).toBe(200);
    for (let i = 0; i < 100 && (await activeOn(pgdb.name, 'endless')) === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await activeOn(pgdb.name, 'endless')).toBe(1);
    req.destroy();
    for (let i = 0; i < 100 && (await activeOn(pgdb.name, 'endless')) > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await activeOn(pgdb.name, 'endless')).toBe(0);
    for (let i = 0; i < 50 && h.app.junction.running.size > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(h.app.junction.running.size).toBe(0);
    expect(h.app.junction.admission.running).toBe(0);
  });

  it('admission control under a burst: 2 run, 2 queue, the rest get 503 with Retry-After at once', async () => {
    const finished: { status: number; at: number }[] = [];
    let seq = 0;
    let maxRunning = 0;
    const watch = setInterval(() => (maxRunning = Math.max(maxRunning, h.app.junction.admission.running)), 5);
    const burst = Array.from({ length: 10 }, () =>
      h
        .as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT n FROM src.one_sec' } })
        .then((r) => {
          finished.push({ status: r.statusCode, at: seq++ });
          return r;
        }),
    );
    const results = await Promise.all(burst);
    clearInterval(watch);
    const busy = results.filter((r) => r.statusCode === 503);
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(4);
    expect(busy).toHaveLength(6);
    for (const b of busy) {
      expect(b.json().code).toBe('server_busy');
      expect(Number(b.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // every rejection came before the first query finished: nobody waited on a full queue
    expect(finished.slice(0, 6).every((f) => f.status === 503)).toBe(true);
    expect(maxRunning).toBeLessThanOrEqual(2);
  });

  it('per-user concurrency limit', async () => {
    // no queue for the principal: the second is refused at once (routes/limits.test.ts covers waiting)
    const tight = await startHarness({ limits: { perUser: 1, perUserQueued: 0 } });
    try {
      await tight.as('admin', {
        method: 'POST',
        url: '/api/v1/sources',
        payload: pgSourcePayload('src', pgdb),
      });
      const [a, b] = await Promise.all([
        tight.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT n FROM src.one_sec' } }),
        tight.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELECT n FROM src.one_sec' } }),
      ]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 429]);
      const limited = [a, b].find((r) => r.statusCode === 429)!;
      expect(limited.json()).toMatchObject({ code: 'user_concurrency_limit', kind: 'resources', details: { limit: 1 } });
      expect(limited.headers['retry-after']).toBe('1');
      const spec = (await tight.as(null, { method: 'GET', url: '/api/docs/json' })).json();
      expect(Object.keys(spec.paths['/api/v1/query'].post.responses)).toEqual(expect.arrayContaining(['429', '503']));
    } finally {
      await tight.close();
    }
  });

  it('logs timeouts at warn and cancellations and user errors at info, never at error', async () => {
    const logs = logCapture();
    const logged = await startHarness({ logger: logs.logger });
    try {
      await logged.as('admin', {
        method: 'POST',
        url: '/api/v1/sources',
        payload: pgSourcePayload('src', pgdb),
      });
      const timeout = await logged.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT n FROM src.one_sec', timeoutMs: 100 },
      });
      expect(timeout.statusCode).toBe(504);
      const running = logged.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT n FROM src.endless', queryId: 'log-cancel-1' },
      });
      for (let i = 0; i < 100 && !logged.app.junction.running.has('log-cancel-1'); i++)
        await new Promise((r) => setTimeout(r, 50));
      await logged.as('admin', { method: 'DELETE', url: '/api/v1/queries/log-cancel-1' });
      expect((await running).statusCode).toBe(499);
      const bad = await logged.as('admin', { method: 'POST', url: '/api/v1/query', payload: { sql: 'SELEC 1' } });
      expect(bad.statusCode).toBe(400);
      const outcomes = logs.lines
        .map((l) => JSON.parse(l) as { level: number; msg: string; kind?: string; status?: number })
        .filter((l) => l.msg === 'request failed' || l.msg === 'request rejected')
        .map((l) => [l.level, l.kind, l.status]);
      // pino levels: 30 info, 40 warn, 50 error
      expect(outcomes).toEqual([
        [40, 'timeout', 504],
        [30, 'cancelled', 499],
        [30, 'user', 400],
      ]);
    } finally {
      await logged.close();
    }
  });

  it('spills a join past the per-query memory budget, and answers 503 naming it where nothing can spill', async () => {
    const small = await startHarness({ limits: { memoryBudgetBytes: 16 * 1024 } });
    try {
      for (const name of ['left_side', 'right_side']) {
        const r = await small.as('admin', {
          method: 'POST',
          url: '/api/v1/sources',
          payload: pgSourcePayload(name, pgdb),
        });
        expect(r.statusCode).toBe(201);
      }
      // two sources, so the join runs in Junction: past the budget it spills to disk and still answers
      const joined = await small.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT count(*) AS n FROM left_side.big a JOIN right_side.big b ON a.s = b.s' },
      });
      expect(joined.statusCode).toBe(200);
      expect(joined.json().rows).toEqual([['5000']]);
      expect(joined.json().stats.spilledBytes).toBeGreaterThan(0);
      // so does a UNION's duplicate elimination
      const union = await small.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT count(*) AS n FROM (SELECT s FROM left_side.big UNION SELECT s FROM right_side.big) u' },
      });
      expect(union.statusCode, union.body).toBe(200);
      expect(union.json().rows).toEqual([['5000']]);
      expect(union.json().stats.spilledBytes).toBeGreaterThan(0);
      // a join on an inequality holds its inner side and cannot spill: it fails with the budget named
      const res = await small.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT count(*) AS n FROM left_side.big a JOIN right_side.big b ON a.s < b.s' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        code: 'memory_budget_exceeded',
        kind: 'resources',
        details: { budgetBytes: 16 * 1024, operator: 'NestedLoopJoin' },
      });
      const ok = await h.as('admin', {
        method: 'POST',
        url: '/api/v1/query',
        payload: { sql: 'SELECT count(*) AS n FROM src.big a JOIN src.big b ON a.s = b.s' },
      });
      expect(ok.json().rows).toEqual([['5000']]);
    } finally {
      await small.close();
    }
  });

  it('enforces maxRows as an error, not a silent truncation', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query',
      payload: { sql: 'SELECT id FROM src.vals', maxRows: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'max_rows_exceeded', kind: 'user', details: { maxRows: 1 } });
  });
});

describe('POST /explain', () => {
  it('returns the plan tree and its text, with the pushed-down SQL', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT id FROM src.vals WHERE id = 1' },
    });
    expect(res.statusCode).toBe(200);
    const { plan, text } = res.json();
    expect(typeof text).toBe('string');
    expect(JSON.stringify(plan)).toContain('"runsIn":"src"');
    expect(text).toContain('src');
    const denied = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT x FROM gone.t' },
    });
    expect(denied.statusCode).toBe(403);
    expect(
      (await h.as('analyst', { method: 'POST', url: '/api/v1/explain', payload: { sql: 'SELEC' } })).statusCode,
    ).toBe(400);
  });

  it('analyze runs the query and reports actual rows', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/explain',
      payload: { sql: 'SELECT id FROM src.vals', analyze: true },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().plan.actual.rows).toBe(2);
  });
});

describe('history', () => {
  it('is per user and can be cleared', async () => {
    const before = (await h.as('analyst', { method: 'GET', url: '/api/v1/history' })).json();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((x: { sql: string }) => typeof x.sql === 'string')).toBe(true);
    const adminBefore = (await h.as('admin', { method: 'GET', url: '/api/v1/history' })).json().length;
    expect((await h.as('analyst', { method: 'DELETE', url: '/api/v1/history' })).statusCode).toBe(200);
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/history' })).json()).toEqual([]);
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/history' })).json().length).toBe(adminBefore);
    expect((await h.as('analyst', { method: 'GET', url: '/api/v1/history?limit=0' })).statusCode).toBe(400);
  });
});
