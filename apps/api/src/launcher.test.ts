import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
async function startAndStop(signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL', target: 'npm' | 'launcher' = 'npm'): Promise<void> {
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: {
      ...process.env,
      JUNCTION_DATA_DIR: dir,
      PORT: '0',
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
    const port = await new Promise<number>((resolve, reject) => {
      const t = setInterval(() => {
        const m = /running on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (m) {
          clearInterval(t);
          resolve(Number(m[1]));
        }
      }, 100);
      npm.on('exit', () => {
        clearInterval(t);
        reject(new Error(`npm start exited early: ${out}`));
      });
    });
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
