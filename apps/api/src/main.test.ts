import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const main = path.join(path.dirname(fileURLToPath(import.meta.url)), 'main.ts');
const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-api-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts main.ts as `npm start` would (without the demo) and stops it with SIGTERM. */
async function runOnce(env: Record<string, string>): Promise<{ out: string; code: number | null; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: { ...process.env, JUNCTION_DATA_DIR: dir, JUNCTION_DEMO: '0', PORT: '0', JUNCTION_PG_PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /running on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(Number(m[1]));
      }
    }, 50);
    child.on('exit', () => {
      clearInterval(t);
      reject(new Error(`exited early: ${out}`));
    });
  });
  const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
  expect(health.status).toBe(200);
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { out, code, port };
}

describe('main.ts', () => {
  it('creates the admin once with a generated password printed once, keeps a 0600 key file, and exits cleanly on SIGTERM', async () => {
    const first = await runOnce({ JUNCTION_ADMIN_PASSWORD: '' });
    expect(first.code).toBe(0);
    const m = /user "admin" created with password (\S+)/.exec(first.out);
    expect(m).not.toBeNull();
    expect(statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, 'junction.db')).isFile()).toBe(true);
    expect(statSync(path.join(dir, 'junction.db')).mode & 0o777).toBe(0o600);
    const second = await runOnce({});
    expect(second.code).toBe(0);
    expect(second.out).not.toContain('created with password');
    expect(second.out).not.toContain(m![1]);
  });
});
