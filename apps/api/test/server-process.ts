/**
 * The real server (main.ts, as `npm start` runs it) as a child process on a data directory that
 * outlives it: start it, kill it with SIGKILL (no shutdown hook runs, nothing is flushed), and
 * start it again on the same directory, as an operator's restart after a crash would. Used by
 * the process-fault tests (src/process.faults.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const mainTs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/main.ts');

export interface CallResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read arbitrary API answers
  json: any;
}

export interface ServerProcess {
  /** the data directory; it stays across kills and restarts */
  readonly dir: string;
  /** the running server's base URL (a restart binds a new port) */
  readonly url: string;
  readonly pid: number;
  readonly running: boolean;
  /** starts the server on the data directory; resolves with the ms from spawn to serving */
  start(): Promise<number>;
  /** SIGKILL, then waits until the process is gone */
  kill9(): Promise<void>;
  /** an authenticated JSON call as the admin (a Bearer token made at the first start) */
  call(method: string, url: string, body?: unknown): Promise<CallResult>;
  /** what the current process wrote to stdout and stderr */
  output(): string;
  /** SIGTERM if still running, then removes the data directory */
  close(): Promise<void>;
}

export interface ServerProcessOptions {
  /** extra environment for every start (log level, limits) */
  env?: Record<string, string>;
}

export async function startServerProcess(opts: ServerProcessOptions = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-proc-'));
  const password = randomBytes(12).toString('hex');
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let out = '';
  let url = '';
  let token = '';

  const start = async (): Promise<number> => {
    if (child && child.exitCode === null && child.signalCode === null) throw new Error('the server is already running');
    out = '';
    const t0 = performance.now();
    const c = spawn(process.execPath, ['--import', 'tsx', mainTs], {
      env: {
        ...process.env,
        JUNCTION_DATA_DIR: dir,
        JUNCTION_DEMO: '0',
        JUNCTION_ADMIN_PASSWORD: password,
        PORT: '0',
        JUNCTION_PG_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    exited = new Promise((resolve) => c.once('exit', () => resolve()));
    c.stdout!.on('data', (d) => (out += d));
    c.stderr!.on('data', (d) => (out += d));
    const port = await new Promise<number>((resolve, reject) => {
      const onData = () => {
        const m = /running on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (!m) return;
        c.stdout!.off('data', onData);
        c.off('exit', onExit);
        resolve(Number(m[1]));
      };
      const onExit = () => reject(new Error(`the server exited while starting:\n${out}`));
      c.stdout!.on('data', onData);
      c.once('exit', onExit);
    });
    const serving = Math.round(performance.now() - t0);
    url = `http://127.0.0.1:${port}`;
    if (!token) token = await makeToken(url, password);
    return serving;
  };

  const call = async (method: string, route: string, body?: unknown): Promise<CallResult> => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, json };
  };

  await start();
  return {
    dir,
    get url() {
      return url;
    },
    get pid() {
      return child?.pid ?? 0;
    },
    get running() {
      return !!child && child.exitCode === null && child.signalCode === null;
    },
    start,
    kill9: async () => {
      child?.kill('SIGKILL');
      await exited;
    },
    call,
    output: () => out,
    close: async () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in as the admin main.ts created and makes an admin token, as an operator would. */
async function makeToken(url: string, password: string): Promise<string> {
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  const made = await fetch(`${url}/api/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-junction-csrf': csrfToken },
    body: JSON.stringify({ name: 'faults', scopes: ['admin'] }),
  });
  if (made.status !== 201) throw new Error(`token creation failed: ${made.status} ${await made.text()}`);
  return ((await made.json()) as { token: string }).token;
}
