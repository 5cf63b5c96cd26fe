import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { createConnection, type Socket } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';
import { startFaultProxy } from '../../../../packages/connectors/test/support/fault-proxy.js';
import { hashPassword, sha256 } from '../lib/secrets.js';
import { pgWireFromEnv } from './config.js';
import { startPgWire, type PgWireServer } from './server.js';

let h: Harness;
let src: Awaited<ReturnType<typeof createPgDatabase>>;
let hidden: Awaited<ReturnType<typeof createPgDatabase>>;
let wire: PgWireServer;

beforeAll(async () => {
  src = await createPgDatabase('wire_src');
  hidden = await createPgDatabase('wire_hidden');
  await pgExec(
    src.url,
    `CREATE TABLE public.vals (id int PRIMARY KEY, big bigint, amount numeric(15,2), f8 double precision, d date, ts timestamp, tstz timestamptz,
       bin bytea, name varchar(20), code char(3), flag boolean, iv interval, u uuid, j jsonb, t time);
     INSERT INTO public.vals VALUES
       (1, 9007199254740993, 1909572716.10, 0.1, '1995-03-01', '1998-01-01 10:20:30.5', '2020-01-01 00:00:00+02', '\\x00ff10', 'Ann', 'ab', true,
        '1 year 2 mons 3 days 04:05:06.5', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '13:14:15.25'),
       (2, NULL, -0.10, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
     CREATE TABLE public.big AS SELECT g AS id, md5(g::text) AS s FROM generate_series(1, 20000) g;
     CREATE FUNCTION slow_rows() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..100000 LOOP PERFORM pg_sleep(0.01); RETURN NEXT i; END LOOP; END $$;
     CREATE VIEW public.endless AS SELECT n FROM slow_rows() AS n;`,
  );
  await pgExec(hidden.url, `CREATE TABLE public.secret (x int); INSERT INTO public.secret VALUES (42);`);
  h = await startHarness();
  for (const [name, db] of [
    ['src', src],
    ['hidden', hidden],
  ] as const) {
    const res = await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload(name, db) });
    expect(res.statusCode).toBe(201);
  }
  await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role: 'analyst', sourceName: 'src' } });
  wire = await startPgWire(h.app, { host: '127.0.0.1', port: 0 });
}, 60_000);
afterAll(async () => {
  await wire?.close();
  await h?.close();
  await src?.drop();
  await hidden?.drop();
});

async function connect(user = 'analyst', password?: string): Promise<pg.Client> {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: wire.port,
    user,
    password: password ?? h.passwords[user as 'analyst'],
    database: 'junction',
  });
  await c.connect();
  return c;
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; position?: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code: string; message: string; position?: string };
    return { code: err.code, message: err.message, ...(err.position ? { position: err.position } : {}) };
  }
  throw new Error('expected a failure');
}

describe('PostgreSQL protocol', () => {
  it('answers a simple query with PostgreSQL text values and types', async () => {
    const c = await connect();
    try {
      const r = await c.query({
        text: 'SELECT id, big, amount, f8, d, ts, tstz, bin, name, code, flag, iv, u, j, t FROM src.vals ORDER BY id',
        rowMode: 'array',
        types: { getTypeParser: () => (v: string) => v } as never,
      });
      expect(r.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
        ['id', 23],
        ['big', 20],
        ['amount', 1700],
        ['f8', 701],
        ['d', 1082],
        ['ts', 1114],
        ['tstz', 1184],
        ['bin', 17],
        ['name', 1043],
        ['code', 1042],
        ['flag', 16],
        ['iv', 1186],
        ['u', 2950],
        ['j', 3802],
        ['t', 1083],
      ]);
      expect(r.rows).toEqual([
        [
          '1',
          '9007199254740993',
          '1909572716.10',
          '0.1',
          '1995-03-01',
          '1998-01-01 10:20:30.5',
          '2019-12-31 22:00:00+00',
          '\\x00ff10',
          'Ann',
          'ab ',
          't',
          '1 year 2 mons 3 days 04:05:06.5',
          'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
          '{"a": [1, 2]}',
          '13:14:15.25',
        ],
        ['2', null, '-0.10', null, null, null, null, null, null, null, null, null, null, null, null],
      ]);
      expect(r.command).toBe('SELECT');
      expect(r.rowCount).toBe(2);
    } finally {
      await c.end();
    }
  });

  it('runs prepared statements with parameters typed by the binder', async () => {
    const c = await connect();
    try {
      for (const id of [1, 2]) {
        const r = await c.query({
          name: 'by_id',
          text: 'SELECT id, amount, name FROM src.vals WHERE id = $1',
          values: [id],
          rowMode: 'array',
        });
        expect(r.rows).toEqual([[id, id === 1 ? '1909572716.10' : '-0.10', id === 1 ? 'Ann' : null]]);
      }
      // parameters typed by the client (int8 here) and by the binder alike
      const typed = await c.query({
        text: 'SELECT id FROM src.vals WHERE big = $1',
        values: ['9007199254740993'],
        rowMode: 'array',
      });
      expect(typed.rows).toEqual([[1]]);
    } finally {
      await c.end();
    }
  });

  it('reports errors with SQLSTATE and position, and the session goes on', async () => {
    const c = await connect();
    try {
      expect(await failure(c.query('SELECT nope FROM src.vals'))).toMatchObject({ code: '42703', position: '8' });
      expect(await failure(c.query('SELECT * FROM src.missing'))).toMatchObject({ code: '42P01' });
      expect(await failure(c.query('SELECT 1 FROM'))).toMatchObject({ code: '42601' });
      // inside EXPLAIN, COPY and DECLARE a position still counts from the statement's start
      expect(await failure(c.query('EXPLAIN SELECT nope FROM src.vals'))).toMatchObject({
        code: '42703',
        position: '16',
      });
      expect(await failure(c.query('COPY (SELECT nope FROM src.vals) TO STDOUT'))).toMatchObject({
        code: '42703',
        position: '14',
      });
      expect(await failure(c.query('INSERT INTO src.vals (id) VALUES (3)'))).toEqual({
        code: '25006',
        message: 'cannot execute INSERT through Junction: it reads sources and never writes to them',
      });
      expect(await failure(c.query('SELECT x FROM hidden.secret'))).toMatchObject({ code: '42501' });
      expect((await c.query('SELECT count(*) AS n FROM src.big')).rows).toEqual([{ n: '20000' }]);
    } finally {
      await c.end();
    }
  });

  it('accepts session statements: SET, SHOW, BEGIN/COMMIT, statement_timeout', async () => {
    const c = await connect();
    try {
      await c.query('BEGIN');
      await c.query("SET application_name = 'wire-test'");
      expect((await c.query('SHOW application_name')).rows).toEqual([{ application_name: 'wire-test' }]);
      expect((await c.query('SHOW TimeZone')).rows).toEqual([{ TimeZone: 'UTC' }]);
      await c.query('COMMIT');
      expect(await failure(c.query("SET DateStyle = 'German'"))).toMatchObject({ code: '22023' });
      await c.query("SET statement_timeout = '300ms'");
      expect(await failure(c.query('SELECT n FROM src.endless'))).toMatchObject({ code: '57014' });
      await c.query('RESET statement_timeout');
      expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await c.end();
    }
  });

  it('cancels a running query through CancelRequest', async () => {
    const c = await connect();
    try {
      const running = failure(c.query('SELECT n FROM src.endless'));
      await new Promise((r) => setTimeout(r, 400));
      // node-postgres sends CancelRequest on a new connection with the session's key
      const canceller = new pg.Client({ host: '127.0.0.1', port: wire.port }) as unknown as {
        cancel(c: pg.Client, q: unknown): void;
      };
      canceller.cancel(c, (c as unknown as { activeQuery: unknown }).activeQuery);
      expect(await running).toMatchObject({ code: '57014' });
      expect((await c.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    } finally {
      await c.end();
    }
  });

  it('signs in with an API token as the password, and refuses wrong or revoked credentials', async () => {
    const c = await connect('analyst', h.tokens.analyst);
    expect((await c.query('SELECT id FROM src.vals ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    await c.end();
    expect(await failure(connect('analyst', 'wrong'))).toMatchObject({ code: '28P01' });
    expect(await failure(connect('viewer', h.tokens.analyst))).toMatchObject({ code: '28P01' });
    const viewer = await connect('viewer');
    expect(await failure(viewer.query('SELECT 1'))).toMatchObject({ code: '42501' });
    await viewer.end();
  });

  it('serves SQL cursors: DECLARE (with a parameter), FETCH and CLOSE', async () => {
    const c = await connect();
    try {
      expect(await failure(c.query('DECLARE outside CURSOR FOR SELECT id FROM src.big'))).toMatchObject({
        code: '25P01',
      });
      await c.query('BEGIN');
      await c.query('DECLARE cur NO SCROLL CURSOR FOR SELECT id FROM src.big WHERE id <= $1 ORDER BY id', [5]);
      const first = await c.query({ text: 'FETCH 2 FROM cur', rowMode: 'array' });
      expect([first.command, first.rowCount, first.rows]).toEqual(['FETCH', 2, [[1], [2]]]);
      expect((await c.query({ text: 'FETCH FORWARD ALL FROM cur', rowMode: 'array' })).rows).toEqual([[3], [4], [5]]);
      expect((await c.query('FETCH NEXT FROM cur')).rows).toEqual([]);
      await c.query('CLOSE cur');
      expect(await failure(c.query('FETCH cur'))).toMatchObject({ code: '34000' });
      await c.query('ROLLBACK');
      // WITH HOLD outlives its transaction
      await c.query('DECLARE held CURSOR WITH HOLD FOR SELECT id FROM src.vals ORDER BY id');
      expect((await c.query({ text: 'FETCH ALL held', rowMode: 'array' })).rows).toEqual([[1], [2]]);
      await c.query('CLOSE ALL');
    } finally {
      await c.end();
    }
  });

  it('answers EXPLAIN with the plan Junction runs', async () => {
    const c = await connect();
    try {
      const r = await c.query({ text: 'EXPLAIN SELECT id FROM src.vals WHERE id = 1', rowMode: 'array' });
      expect(r.fields.map((f) => [f.name, f.dataTypeID])).toEqual([['QUERY PLAN', 25]]);
      expect(r.rows.map((row) => row[0])).toEqual([
        'RemoteQuery [src]',
        '  SQL: SELECT "vals"."id" AS "id" FROM "public"."vals" "vals" WHERE ("vals"."id" = $1::integer)',
        '  params: [1]',
      ]);
    } finally {
      await c.end();
    }
  });

  it('ends a session whose token is revoked at its next statement', async () => {
    const made = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { name: 'wire', scopes: ['query'] },
    });
    expect(made.statusCode).toBe(201);
    const { id, token } = made.json() as { id: string; token: string };
    const c = await connect('analyst', token);
    try {
      expect((await c.query('SELECT id FROM src.vals WHERE id = 1')).rows).toEqual([{ id: 1 }]);
      expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/tokens/${id}` })).statusCode).toBe(200);
      expect(await failure(c.query('SELECT id FROM src.vals WHERE id = 1'))).toMatchObject({
        code: '28000',
        message: 'The sign-in of this connection is no longer valid (token revoked or user disabled).',
      });
    } finally {
      await c.end();
    }
    expect(await failure(connect('analyst', token))).toMatchObject({ code: '28P01' });
  });

  it('lists its queries in GET /queries, cancels them by DELETE /queries/:id and writes history', async () => {
    const c = await connect();
    try {
      const running = failure(c.query('SELECT n FROM src.endless'));
      let listed: { id: string; sql: string }[] = [];
      for (let i = 0; i < 50 && listed.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        listed = (
          (await h.as('analyst', { method: 'GET', url: '/api/v1/queries' })).json() as { id: string; sql: string }[]
        ).filter((q) => q.sql.includes('endless'));
      }
      expect(listed.length).toBe(1);
      expect((await h.as('analyst', { method: 'DELETE', url: `/api/v1/queries/${listed[0]!.id}` })).statusCode).toBe(
        200,
      );
      expect(await running).toMatchObject({ code: '57014' });
      await c.query('SELECT id FROM src.vals WHERE id = $1', [2]);
      const history = (await h.as('analyst', { method: 'GET', url: '/api/v1/history?limit=5' })).json() as {
        sql: string;
        status: string;
        rows: number | null;
        params: unknown[] | null;
      }[];
      expect(history.slice(0, 2).map((e) => [e.sql, e.status, e.rows, e.params])).toEqual([
        ['SELECT id FROM src.vals WHERE id = $1', 'ok', 1, ['2']],
        ['SELECT n FROM src.endless', 'cancelled', 0, null],
      ]);
    } finally {
      await c.end();
    }
  });

  it('stops a streaming query and frees its slot when the client goes away mid-result', async () => {
    const c = await connect();
    c.on('error', () => undefined);
    const sql = 'SELECT a.s, b.s FROM src.big a, src.big b';
    const streaming = c.query(sql).catch(() => undefined);
    const mine = () => [...h.app.junction.running.values()].filter((q) => q.sql === sql);
    for (let i = 0; i < 100 && mine().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(mine().length).toBe(1);
    // the client stops reading: the server's writes back up until it waits on the socket
    const stream = (c as unknown as { connection: { stream: { pause(): void; destroy(): void } } }).connection.stream;
    stream.pause();
    await new Promise((r) => setTimeout(r, 800));
    stream.destroy();
    await streaming;
    for (let i = 0; i < 100 && mine().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(mine()).toEqual([]);
    await h.app.records.flush();
    const history = (await h.as('analyst', { method: 'GET', url: '/api/v1/history?limit=10' })).json() as {
      sql: string;
      status: string;
    }[];
    expect(history.find((e) => e.sql === sql)?.status).toBe('cancelled');
  });

  it('answers a frozen source with a timeout while other sessions go on', async () => {
    const proxy = await startFaultProxy(src.host, src.port);
    const admin = await connect('admin');
    try {
      const r = await h.as('admin', {
        method: 'POST',
        url: '/api/v1/sources',
        payload: { ...pgSourcePayload('frozen', src), host: '127.0.0.1', port: proxy.port },
      });
      expect(r.statusCode).toBe(201);
      proxy.set({ kind: 'blackhole' });
      await admin.query("SET statement_timeout = '1s'");
      const started = Date.now();
      const frozen = failure(admin.query('SELECT count(*) FROM frozen.big'));
      const other = await connect();
      expect((await other.query('SELECT count(*) AS n FROM src.big')).rows).toEqual([{ n: '20000' }]);
      await other.end();
      expect((await frozen).code).toMatch(/^(57014|HV00N)$/);
      expect(Date.now() - started).toBeLessThan(6_000);
      proxy.set({ kind: 'none' });
    } finally {
      await admin.end();
      await h.as('admin', { method: 'DELETE', url: '/api/v1/sources/frozen' });
      await proxy.close();
    }
  });

  it('streams a large result in batches', async () => {
    const c = await connect();
    try {
      const r = await c.query({ text: 'SELECT id, s FROM src.big ORDER BY id', rowMode: 'array' });
      expect(r.rows.length).toBe(20000);
      expect(r.rows[19999]).toEqual([20000, createHash('md5').update('20000').digest('hex')]);
    } finally {
      await c.end();
    }
  });
});

describe('sign-in off loopback', () => {
  const lan = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
  let tlsWire: PgWireServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'jt-wire-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=junction-test',
        '-days',
        '1',
        '-keyout',
        `${dir}/key.pem`,
        '-out',
        `${dir}/cert.pem`,
      ],
      { stdio: 'ignore' },
    );
    tlsWire = await startPgWire(h.app, {
      host: '0.0.0.0',
      port: 0,
      tls: { key: readFileSync(`${dir}/key.pem`), cert: readFileSync(`${dir}/cert.pem`) },
    });
  });
  afterAll(async () => {
    await tlsWire?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (user: string, password: string, ssl: boolean) =>
    new pg.Client({
      host: lan,
      port: tlsWire.port,
      user,
      password,
      database: 'junction',
      ssl: ssl ? { rejectUnauthorized: false } : false,
    });

  it.runIf(lan)('uses SCRAM-SHA-256 without TLS once the user has a verifier, and refuses cleartext', async () => {
    // a user made without a password the server saw has no verifier: a plain connection from the network is refused
    const password = 'remote-pw-1234';
    await h.meta.db.user.create({
      data: { id: randomUUID(), username: 'remote', role: 'analyst', passwordHash: await hashPassword(password) },
    });
    expect(await failure(client('remote', password, false).connect())).toMatchObject({ code: '28000' });
    // a REST sign-in stores the verifier
    const login = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'remote', password },
    });
    expect(login.statusCode).toBe(200);
    const c = client('remote', password, false);
    await c.connect();
    expect((await c.query('SELECT id FROM src.vals WHERE id = 2')).rows).toEqual([{ id: 2 }]);
    await c.end();
    // pg-gateway's SCRAM exchange sends every failure as 28000 (PostgreSQL: 28P01), with our message
    expect(await failure(client('remote', 'wrong', false).connect())).toMatchObject({
      code: '28000',
      message: 'password authentication failed for user "remote"',
    });
    // a token is a cleartext secret: only inside TLS off loopback (SCRAM checks it as a password)
    const token = `jct_remote_${randomUUID()}`;
    const user = await h.meta.db.user.findUniqueOrThrow({ where: { username: 'remote' } });
    await h.meta.db.apiToken.create({
      data: {
        id: randomUUID(),
        userId: user.id,
        name: 'remote',
        tokenHash: sha256(token),
        prefix: token.slice(0, 10),
        scopes: '["query"]',
      },
    });
    expect(await failure(client('remote', token, false).connect())).toMatchObject({ code: '28000' });
    const tls = client('remote', token, true);
    await tls.connect();
    await tls.end();
  });

  it.runIf(lan)('accepts a password or a token inside TLS', async () => {
    const c = client('analyst', h.tokens.analyst, true);
    await c.connect();
    expect((c as unknown as { connection: { stream: { encrypted?: boolean } } }).connection.stream.encrypted).toBe(
      true,
    );
    expect((await c.query('SELECT name FROM src.vals WHERE id = 1')).rows).toEqual([{ name: 'Ann' }]);
    await c.end();
  });
});

describe('connection limits', () => {
  it('refuses connections past the maximum with 53300 and closes ones that never sign in', async () => {
    const small = await startPgWire(h.app, {
      host: '127.0.0.1',
      port: 0,
      maxConnections: 2,
      authenticationTimeoutMs: 400,
    });
    try {
      const idle = await Promise.all(
        [0, 1].map(
          () =>
            new Promise<Socket>((resolve) => {
              const s = createConnection(small.port, '127.0.0.1', () => resolve(s));
            }),
        ),
      );
      const closed = Promise.all(idle.map((s) => new Promise((resolve) => s.once('close', resolve))));
      await new Promise((r) => setTimeout(r, 50));
      const refused = new pg.Client({
        host: '127.0.0.1',
        port: small.port,
        user: 'analyst',
        password: h.passwords.analyst,
        database: 'junction',
      });
      expect(await failure(refused.connect())).toMatchObject({
        code: '53300',
        message: 'sorry, too many clients already',
      });
      // the silent ones are closed at the sign-in timeout, and their places free
      await closed;
      const c = new pg.Client({
        host: '127.0.0.1',
        port: small.port,
        user: 'analyst',
        password: h.passwords.analyst,
        database: 'junction',
      });
      await c.connect();
      expect((await c.query('SELECT id FROM src.vals WHERE id = 1')).rows).toEqual([{ id: 1 }]);
      await c.end();
    } finally {
      await small.close();
    }
  });
});

describe('pgWireFromEnv', () => {
  it('reads the port, the connection cap and TLS files, and refuses what it cannot use', () => {
    expect(pgWireFromEnv({})).toEqual({ port: 5433, maxConnections: 200 });
    expect(pgWireFromEnv({ JUNCTION_PG_PORT: '0' })).toBeNull();
    expect(pgWireFromEnv({ JUNCTION_PG_PORT: '6543', JUNCTION_PG_MAX_CONNECTIONS: '20' })).toEqual({
      port: 6543,
      maxConnections: 20,
    });
    expect(() => pgWireFromEnv({ JUNCTION_PG_PORT: 'abc' })).toThrow('JUNCTION_PG_PORT must be a port number');
    expect(() => pgWireFromEnv({ JUNCTION_PG_TLS_CERT: '/x.pem' })).toThrow(
      'JUNCTION_PG_TLS_CERT and JUNCTION_PG_TLS_KEY go together',
    );
  });
});
