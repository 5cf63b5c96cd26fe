#!/usr/bin/env node
// `npm start`: build the studio's web app when its build is missing or stale, then run the
// API (which serves it) with the environment passed through.
//   PORT (8080), HOST (127.0.0.1), JUNCTION_DATA_DIR (./data), JUNCTION_WEB_BUILD (0: never build)
//   — see README.md for the rest.
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
    ['src', 'public', 'index.html', 'package.json', 'tsconfig.json', 'vite.config.ts', 'vite.config.js'].map((p) =>
      join(webDir, p),
    ),
  );
  const built = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
  if (built >= sources) return;
  console.error(
    built ? 'start: web sources changed, rebuilding the studio…' : 'start: building the studio (first start)…',
  );
  const r = spawnSync('npm', ['run', 'build', '-w', pkg.name], { cwd: root, stdio: 'inherit' });
  if (r.status === 0) return;
  if (existsSync(builtIndex)) {
    console.error('start: the web build failed; serving the previous build');
    return;
  }
  console.error('start: the web build failed and there is no previous build (see the errors above)');
  process.exit(r.status ?? 1);
}

/**
 * `npm start` runs on the Node the project brings (the `node` devDependency, first on PATH in
 * npm scripts); `node scripts/start.mjs` runs on whatever `node` is. An older one than `engines`
 * says cannot load the native modules (better-sqlite3 13 is built for Node-API of Node 22+), so
 * stop with one line saying what to do rather than crash in a native module.
 */
function refuseOldNode() {
  const wanted = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node ?? '';
  const min = /(\d+)(?:\.(\d+))?/.exec(wanted);
  if (!min) return;
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > Number(min[1]) || (major === Number(min[1]) && minor >= Number(min[2] ?? 0))) return;
  console.error(
    `start: Node ${process.version} is older than Junction runs on (${wanted}). Start it with \`npm start\`, which runs on the Node 24 that \`npm install\` brings, or install Node 22.12+ — see README.md`,
  );
  process.exit(1);
}

refuseOldNode();
if (process.env.JUNCTION_WEB_BUILD !== '0') buildWebIfStale();

const env = {
  ...process.env,
  PORT: process.env.PORT || '8080',
  HOST: process.env.HOST || '127.0.0.1',
  JUNCTION_DATA_DIR: resolve(process.env.JUNCTION_DATA_DIR || './data'),
  // glibc gives each thread that allocates its own malloc arena; Node's I/O and V8 helper
  // threads left ~50 MB of RSS in them under a query load (apps/api/bench/rest-target.ts sets
  // the same, so the benchmark measures the server as started here)
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX || '2',
};

// The IPC channel is how the API learns that this launcher is gone, however it died (even
// SIGKILL): the channel closes and the API stops itself, the embedded PostgreSQL included.
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'apps', 'api', 'src', 'main.ts')], {
  cwd: root,
  env,
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
});

// A terminal's Ctrl-C reaches the whole process group (npm, this script and the API); forward
// anyway so `kill <this pid>` also works. The API stops once, however many copies arrive; one
// that has not stopped within its own deadline (20 s) and a margin is killed.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const STOP_DEADLINE_MS = 30_000;
let deadline;
const forward = (signal) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  deadline ??= setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
};
for (const s of SIGNALS) process.on(s, forward);

// Under `npm start` npm runs `sh -c "exec node scripts/start.mjs"`: the shell becomes this
// script, so npm's forwarding of SIGINT and SIGTERM reaches it (without `exec`, dash waits for
// its child and never passes a SIGINT on, and dies of a SIGTERM leaving this script running).
// When npm itself is gone (SIGKILL, or another script shell that does not exec), this script
// is re-parented: under npm a changed parent means the launcher was stopped, so stop as for
// SIGTERM. (Started directly, e.g. under nohup, a parent going away means nothing.)
let parentWatch;
if (process.env.npm_lifecycle_event) {
  const parent = process.ppid;
  parentWatch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(parentWatch);
    console.error('start: npm stopped (its shell is gone); stopping Junction');
    forward('SIGTERM');
  }, 250);
  parentWatch.unref();
}

child.on('error', (err) => {
  console.error(`start: could not run the API: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  for (const s of SIGNALS) process.removeListener(s, forward);
  clearInterval(parentWatch);
  clearTimeout(deadline);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
