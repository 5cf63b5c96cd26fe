#!/usr/bin/env node
// `npm start`: build the studio's web app when its build is missing or stale, then run the
// API (which serves it) with the environment passed through.
//   PORT (8080), HOST (127.0.0.1), JUNCTION_DATA_DIR (./data) — see README.md for the rest.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const webDir = join(root, 'apps', 'web');
const builtIndex = join(webDir, 'dist', 'index.html');

/** Newest modification time under the given paths (files or directories), 0 if none exist. */
function newestMtime(paths) {
  let newest = 0;
  const visit = (p) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const entry of readdirSync(p)) if (entry !== 'node_modules' && entry !== 'dist') visit(join(p, entry));
    } else {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  paths.forEach(visit);
  return newest;
}

function buildWebIfStale() {
  const pkgFile = join(webDir, 'package.json');
  if (!existsSync(pkgFile)) return;
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  if (!pkg.scripts?.build) {
    console.error('start: apps/web has no build script yet; starting the API without building the studio');
    return;
  }
  const sources = newestMtime(
    ['src', 'public', 'index.html', 'package.json', 'tsconfig.json', 'vite.config.ts', 'vite.config.js'].map((p) => join(webDir, p)),
  );
  const built = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
  if (built >= sources) return;
  console.error(built ? 'start: web sources changed, rebuilding the studio…' : 'start: building the studio (first start)…');
  const r = spawnSync('npm', ['run', 'build', '-w', pkg.name], { cwd: root, stdio: 'inherit' });
  if (r.status === 0) return;
  if (existsSync(builtIndex)) {
    console.error('start: the web build failed; serving the previous build');
    return;
  }
  console.error('start: the web build failed and there is no previous build (see the errors above)');
  process.exit(r.status ?? 1);
}

buildWebIfStale();

const env = {
  ...process.env,
  PORT: process.env.PORT || '8080',
  HOST: process.env.HOST || '127.0.0.1',
  JUNCTION_DATA_DIR: resolve(process.env.JUNCTION_DATA_DIR || './data'),
};

const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'apps', 'api', 'src', 'main.ts')], {
  cwd: root,
  env,
  stdio: 'inherit',
});

// A terminal's Ctrl-C reaches the whole process group (npm, this script and the API); forward
// anyway so `kill <this pid>` also works. The API stops once, however many copies arrive.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const s of SIGNALS) process.on(s, forward);

child.on('error', (err) => {
  console.error(`start: could not run the API: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  for (const s of SIGNALS) process.removeListener(s, forward);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
