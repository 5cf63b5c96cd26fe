// Starts the studio for the Playwright run: builds apps/web, runs the API with the embedded demo
// on a fresh data directory, and removes that directory once the API has stopped.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const build = spawnSync('npm', ['run', '--silent', 'build', '-w', '@junction/web'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
});
if (build.status !== 0) {
  process.stderr.write(`${build.stdout}${build.stderr}\ne2e: building apps/web failed (exit ${build.status})\n`);
  process.exit(1);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'junction-e2e-'));
// the folder of the run's source files (JUNCTION_FILE_ROOTS, set by playwright.config.ts)
const fileRoot = process.env.JUNCTION_E2E_FILE_ROOT;
if (fileRoot) mkdirSync(fileRoot, { recursive: true });
const api = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
  cwd: root,
  env: { ...process.env, JUNCTION_DATA_DIR: dataDir },
  stdio: ['ignore', 'inherit', 'inherit'],
});

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    // the API stops its embedded databases itself; wait for it before deleting their files
    api.kill(sig);
  });
}

api.on('exit', (code, signal) => {
  rmSync(dataDir, { recursive: true, force: true });
  if (fileRoot) rmSync(fileRoot, { recursive: true, force: true });
  process.exit(code ?? (signal ? 0 : 1));
});
