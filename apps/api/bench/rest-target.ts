/**
 * Junction as a program that embeds it sees it: the real server (main.ts, as `npm start` runs
 * it) in a child process on a free port with a throwaway data directory and no demo, the
 * benchmark's sources registered through the API, a Bearer token created through the API, and
 * queries sent over keep-alive HTTP as JSON or NDJSON.
 *
 * A child process, not buildApp() in the benchmark's own process: the server then has its own
 * event loop (as in production, the client's parsing does not steal its CPU) and its own RSS,
 * which the benchmark reports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ownMain = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/main.ts');

export interface RestSource {
  name: string;
  engine: 'postgresql' | 'mysql';
  host: string;
  port?: number;
  database: string;
  user: string;
  password: string;
  options?: Record<string, unknown>;
}

export interface RestAnswer {
  rows: number;
  /** the server's Server-Timing header, when it sent one */
  serverTiming?: string;
  body?: string;
}

/** Junction's PostgreSQL port, when startRestTarget opened it (`pgWire: true`); the token signs in as the password. */
export interface PgWireEndpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
}

export interface RestTarget {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
  /** with `pgWire: true`: where PostgreSQL clients connect (user admin, the API token as password) */
  readonly pg?: PgWireEndpoint;
  /** one query as a program sends it; resolves when the whole answer has been read */
  query(sql: string, params?: readonly unknown[], opts?: { ndjson?: boolean; keepBody?: boolean }): Promise<RestAnswer>;
  /** an authenticated JSON call (admin token) */
  call(method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** the server process's resident set size, from /proc */
  rssBytes(): number;
  close(): Promise<void>;
}

export interface RestTargetOptions {
  sources: readonly RestSource[];
  /** extra environment for the server (limits, log level) */
  env?: Record<string, string>;
  /** sockets the client keeps open; one per concurrent client is what a pool would do */
  maxSockets?: number;
  /** concurrent queries the benchmark's token may run (set through the admin API) */
  tokenConcurrency?: number;
  log?: (line: string) => void;
  /** extra node flags for the server (e.g. --cpu-prof to profile it) */
  nodeArgs?: string[];
  /** another checkout's apps/api/src/main.ts (to compare two versions); default this one's */
  mainTs?: string;
  /** open Junction's PostgreSQL port on a free port (JUNCTION_PG_PORT) and expose it as `pg`; default off (JUNCTION_PG_PORT=0) */
  pgWire?: boolean;
}

/** A port nothing listens on now (the server binds it a moment later). */
async function freePort(host: string): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('no free port');
  return address.port;
}

export async function startRestTarget(opts: RestTargetOptions): Promise<RestTarget> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jbench-rest-'));
  const password = randomBytes(12).toString('hex');
  const pgPort = opts.pgWire ? await freePort('127.0.0.1') : 0;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', opts.mainTs ?? ownMain], {
    env: {
      ...process.env,
      JUNCTION_DATA_DIR: dir,
      JUNCTION_DEMO: '0',
      JUNCTION_ADMIN_PASSWORD: password,
      PORT: '0',
      JUNCTION_PG_PORT: String(pgPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // as scripts/start.mjs starts the server
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX || '2',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => {
    out += d;
    opts.log?.(String(d).trimEnd());
  });
  const port = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const m = /running on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve(Number(m[1]));
      }
    };
    const onExit = () => reject(new Error(`the server exited while starting:\n${out}`));
    child.stdout!.on('data', onData);
    child.on('exit', onExit);
  });
  let pgBound = 0;
  if (opts.pgWire) {
    // main.ts opens the PostgreSQL port after the HTTP one, and runs on without it if it fails
    await new Promise<void>((resolve, reject) => {
      const done = (e: Error | null) => {
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        child.off('exit', onExit);
        if (e) reject(e);
        else resolve();
      };
      const onData = () => {
        const m = /PostgreSQL clients connect to 127\.0\.0\.1:(\d+)/.exec(out);
        if (m) {
          pgBound = Number(m[1]);
          done(null);
        } else if (/PostgreSQL port \d+ could not open/.test(out))
          done(new Error(`the server's PostgreSQL port did not open:\n${out}`));
      };
      const onExit = () => done(new Error(`the server exited while opening its PostgreSQL port:\n${out}`));
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.on('exit', onExit);
      onData();
    });
  }
  const base = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 32 });
  const raw = (
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        `${base}${url}`,
        {
          method,
          agent,
          headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        },
        (res) => {
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  // sign in as the admin main.ts created, then make a token as a program's operator would
  const login = await raw(
    'POST',
    '/api/v1/auth/login',
    { 'content-type': 'application/json' },
    JSON.stringify({ username: 'admin', password }),
  );
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.body}`);
  const cookies = ([] as string[]).concat(login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]);
  const csrf = (JSON.parse(login.body) as { csrfToken: string }).csrfToken;
  const made = await raw(
    'POST',
    '/api/v1/tokens',
    { 'content-type': 'application/json', cookie: cookies.join('; '), 'x-junction-csrf': csrf },
    JSON.stringify({ name: 'bench', scopes: ['admin'] }),
  );
  if (made.status !== 201) throw new Error(`token creation failed: ${made.status} ${made.body}`);
  const { token, id: tokenId } = JSON.parse(made.body) as { token: string; id: string };
  const auth = { authorization: `Bearer ${token}` };

  const call = async (method: string, url: string, body?: unknown) => {
    const r = await raw(
      method,
      url,
      { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body !== undefined ? JSON.stringify(body) : undefined,
    );
    return { status: r.status, json: r.body ? (JSON.parse(r.body) as unknown) : null };
  };

  for (const s of opts.sources) {
    const r = await call('POST', '/api/v1/sources', s);
    if (r.status !== 201) throw new Error(`registering ${s.name} failed: ${r.status} ${JSON.stringify(r.json)}`);
  }
  if (opts.tokenConcurrency !== undefined) {
    const r = await call('PUT', `/api/v1/limits/token/${tokenId}`, { maxConcurrent: opts.tokenConcurrency });
    if (r.status !== 200) throw new Error(`setting the token's limit failed: ${r.status} ${JSON.stringify(r.json)}`);
  }

  const query = async (
    sql: string,
    params: readonly unknown[] = [],
    o: { ndjson?: boolean; keepBody?: boolean } = {},
  ): Promise<RestAnswer> => {
    const r = await raw(
      'POST',
      '/api/v1/query',
      {
        ...auth,
        'content-type': 'application/json',
        ...(o.ndjson ? { accept: 'application/x-ndjson' } : {}),
      },
      JSON.stringify(params.length ? { sql, params } : { sql }),
    );
    if (r.status !== 200) throw new Error(`query failed: ${r.status} ${r.body.slice(0, 500)}`);
    const timing = r.headers['server-timing'];
    let rows: number;
    if (o.ndjson) {
      // columns line, one line per row, then stats (or error)
      const lines = r.body.split('\n').filter((l) => l.length > 0);
      const last = JSON.parse(lines[lines.length - 1]) as { stats?: { rows: number }; error?: unknown };
      if (!last.stats) throw new Error(`query failed mid-stream: ${JSON.stringify(last.error)}`);
      rows = lines.length - 2;
    } else {
      rows = (JSON.parse(r.body) as { rows: unknown[] }).rows.length;
    }
    return {
      rows,
      ...(typeof timing === 'string' ? { serverTiming: timing } : {}),
      ...(o.keepBody ? { body: r.body } : {}),
    };
  };

  return {
    url: base,
    token,
    pid: child.pid!,
    ...(opts.pgWire
      ? { pg: { host: '127.0.0.1', port: pgBound, user: 'admin', password: token, database: 'junction' } }
      : {}),
    query,
    call,
    rssBytes: () => rssOf(child),
    close: async () => {
      agent.destroy();
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function rssOf(child: ChildProcess): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Sources of the benchmark's databases as the API takes them, from the TEST_* URLs. */
export function restSource(name: string, url: string, database: string): RestSource {
  const u = new URL(url);
  return {
    name,
    engine: u.protocol.startsWith('postgres') ? 'postgresql' : 'mysql',
    host: u.hostname,
    ...(u.port ? { port: Number(u.port) } : {}),
    database,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    options: { pool: { max: 20 } },
  };
}
