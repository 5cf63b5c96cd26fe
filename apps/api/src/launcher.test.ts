import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// one data directory for both runs: the first creates and loads the demo, the second reuses it
const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-api-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes by `ps` selector (`-s <session>`, `--ppid <pid>`), with their commands. */
function processes(...selector: string[]): { pid: number; args: string }[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', ...selector], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const m = /^\s*(\d+)\s+(.*)$/.exec(l) as RegExpExecArray;
      return { pid: Number(m[1]), args: m[2] };
    });
}

/** Every process in a session (the launcher is started as a session leader). */
const sessionProcesses = (sid: number) => processes('-s', String(sid));

/** Polls `cond` every 100 ms until it holds or `ms` have passed; returns whether it held. */
async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (cond()) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `npm start` as a user runs it (npm → its script shell → scripts/start.mjs → the API, which
 * starts the embedded demo PostgreSQL and its watchdog), on a free port and a temp data dir,
 * then one signal to npm, the top process: nothing it started may be left, within a bound.
 */
async function startAndStop(
  signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL',
  target: 'npm' | 'launcher' = 'npm',
): Promise<void> {
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: {
      ...process.env,
      JUNCTION_DATA_DIR: dir,
      PORT: '0',
      JUNCTION_PG_PORT: '0',
      JUNCTION_WEB_BUILD: '0',
      JUNCTION_ADMIN_PASSWORD: 'launcher-test-password',
      LOG_LEVEL: 'warn',
    },
    // its own session, so everything it starts can be found (and, should the test fail, killed)
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const sid = npm.pid as number;
  let out = '';
  npm.stdout.on('data', (d) => (out += d));
  npm.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => npm.on('exit', (code) => res(code)));
  let postmaster: number | undefined;
  try {
    const port = await listeningPort(npm, () => out);
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
    postmaster = Number(readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(postmaster)).toBe(true);
    // PostgreSQL's own workers leave the session (each calls setsid): count them in by parent
    const before = [...sessionProcesses(sid), ...processes('--ppid', String(postmaster))];
    const has = (needle: string) => before.some((p) => p.args.includes(needle));
    // the whole chain is there: npm, the launcher, the API, PostgreSQL and its watchdog
    expect(has('scripts/start.mjs')).toBe(true);
    expect(has('apps/api/src/main.ts')).toBe(true);
    expect(before.map((p) => p.pid)).toContain(postmaster);
    expect(has('junction-postgres-watchdog')).toBe(true);
    expect(has('postgres: checkpointer')).toBe(true);

    const launcher = before.find((p) => p.args.includes('scripts/start.mjs'))!.pid;
    process.kill(target === 'npm' ? sid : launcher, signal);
    const stopped = await waitFor(() => sessionProcesses(sid).length === 0, 30_000);
    expect(stopped, `left after ${signal}: ${JSON.stringify(sessionProcesses(sid))}\n${out}`).toBe(true);
    for (const p of before) expect(alive(p.pid), p.args).toBe(false);
    await exited;
  } finally {
    // a failed run must not leave servers behind
    for (const p of sessionProcesses(sid)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    if (postmaster !== undefined && alive(postmaster)) process.kill(postmaster, 'SIGINT');
  }
}

/** The port the studio says it listens on; rejects with the launcher's output when it exits first. */
function listeningPort(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /running on http:\/\/127\.0\.0\.1:(\d+)/.exec(output());
      if (m) {
        clearInterval(t);
        resolve(Number(m[1]));
      }
    }, 100);
    child.on('exit', () => {
      clearInterval(t);
      reject(new Error(`npm start exited early: ${output()}`));
    });
  });
}

describe('npm start', () => {
  it('SIGTERM to npm stops everything it started, the embedded PostgreSQL included', async () => {
    await startAndStop('SIGTERM');
  }, 180_000);

  it('SIGINT to npm stops everything it started, the embedded PostgreSQL included', async () => {
    await startAndStop('SIGINT');
  }, 180_000);

  it('SIGKILL of the launcher (scripts/start.mjs) stops the API and PostgreSQL too (the IPC channel closes)', async () => {
    await startAndStop('SIGKILL', 'launcher');
  }, 180_000);
});

/**
 * The working tree over a fresh clone: the clone is what a user gets, the overlay makes it the
 * code under test (in CI, a clean checkout, the overlay changes nothing).
 */
function cloneWorkingTree(into: string): void {
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, into], { stdio: 'ignore' });
  const list = (...args: string[]) =>
    execFileSync('git', ['ls-files', '-z', ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
      .split('\0')
      .filter(Boolean);
  for (const rel of list('--cached', '--others', '--exclude-standard')) {
    const from = path.join(root, rel);
    const to = path.join(into, rel);
    if (!existsSync(from)) {
      rmSync(to, { force: true });
      continue;
    }
    if (!statSync(from).isFile()) continue;
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
}

/**
 * The installed dependencies, standing in for `npm install` (minutes here: better-sqlite3
 * compiles from source). Copied, not symlinked: a symlink would leave the PostgreSQL binaries
 * where the "postgres" account can reach them, which is what this test must not allow. Hard
 * links make the copy take a second (the same files, reachable only through the private path);
 * across file systems a real copy is made.
 */
function copyDependencies(into: string): void {
  const dirs = ['node_modules', 'apps/api/src/generated'];
  for (const ws of ['apps', 'packages'])
    for (const name of execFileSync('ls', [path.join(root, ws)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean))
      if (existsSync(path.join(root, ws, name, 'node_modules'))) dirs.push(`${ws}/${name}/node_modules`);
  for (const rel of dirs) {
    if (!existsSync(path.join(root, rel))) continue;
    const to = path.join(into, rel);
    mkdirSync(path.dirname(to), { recursive: true });
    try {
      execFileSync('cp', ['-al', path.join(root, rel), to], { stdio: 'ignore' });
    } catch {
      rmSync(to, { recursive: true, force: true });
      execFileSync('cp', ['-a', path.join(root, rel), to], { stdio: 'ignore' });
    }
  }
}

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  process.stdout.write(
    'launcher.test.ts: the clone-in-a-private-folder test is skipped: it needs root (the embedded PostgreSQL runs as "postgres" only when started by root)\n',
  );
}

describe('npm start as root from a clone in a private (0700) folder', () => {
  it.runIf(isRoot)(
    'starts the demo and answers its first example through the REST API, its secrets staying owner-only',
    async () => {
      const tmp = mkdtempSync(path.join(os.tmpdir(), 'jt-api-private-'));
      const privateDir = path.join(tmp, 'private');
      mkdirSync(privateDir);
      chmodSync(privateDir, 0o700);
      const repo = path.join(privateDir, 'repo');
      cloneWorkingTree(repo);
      copyDependencies(repo);

      const password = 'private-clone-test-password';
      // as the README says: npm start in the clone, its data in ./data
      const npm = spawn('npm', ['start'], {
        cwd: repo,
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'JUNCTION_DATA_DIR')),
          PORT: '0',
          JUNCTION_PG_PORT: '0',
          JUNCTION_WEB_BUILD: '0',
          JUNCTION_ADMIN_PASSWORD: password,
          LOG_LEVEL: 'info',
        },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const sid = npm.pid as number;
      let out = '';
      npm.stdout.on('data', (d) => (out += d));
      npm.stderr.on('data', (d) => (out += d));
      npm.on('error', (e) => (out += `spawn error: ${e.message}`));
      const exited = new Promise<void>((res) => npm.on('exit', () => res()));
      let clusterHome: string | undefined;
      try {
        const port = await listeningPort(npm, () => out);
        clusterHome = /the demo's PostgreSQL lives in (\S+)\/postgres/.exec(out)?.[1];
        expect(out).not.toMatch(/EACCES|could not start/);
        expect(clusterHome, out).toBeDefined();
        expect(clusterHome!.startsWith(`${privateDir}/`)).toBe(false);
        // the secrets stay the owner's
        const dataDir = path.join(repo, 'data');
        for (const f of ['secret.key', 'junction.db', 'demo.json'])
          expect(statSync(path.join(dataDir, f)).mode & 0o077, f).toBe(0);

        const base = `http://127.0.0.1:${port}/api/v1`;
        const login = await fetch(`${base}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password }),
        });
        expect(login.status).toBe(200);
        const { csrfToken } = (await login.json()) as { csrfToken: string };
        const cookie = login.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
        const saved = (await (await fetch(`${base}/saved-queries`, { headers: { cookie } })).json()) as {
          id: string;
          name: string;
          example: boolean;
          params: unknown[] | null;
        }[];
        const first = saved.find((q) => q.example);
        expect(first, JSON.stringify(saved)).toBeDefined();
        const run = await fetch(`${base}/saved-queries/${first!.id}/run`, {
          method: 'POST',
          headers: { cookie, 'x-junction-csrf': csrfToken, 'content-type': 'application/json' },
          body: JSON.stringify(first!.params ? { params: first!.params } : {}),
        });
        const answer = (await run.json()) as { rows?: unknown[] };
        expect(run.status, JSON.stringify(answer)).toBe(200);
        expect(answer.rows?.length, `${first!.name}: ${JSON.stringify(answer).slice(0, 500)}`).toBeGreaterThan(0);

        process.kill(-sid, 'SIGTERM');
        expect(await waitFor(() => sessionProcesses(sid).length === 0, 30_000)).toBe(true);
        await exited;
      } finally {
        for (const p of sessionProcesses(sid)) {
          try {
            process.kill(p.pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        if (clusterHome) rmSync(clusterHome, { recursive: true, force: true });
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
