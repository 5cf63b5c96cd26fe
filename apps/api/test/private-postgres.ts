import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, until as untilHolds } from './wait.js';

/** A check that throws (the server is not up yet) has not held yet. */
const until = (what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> =>
  untilHolds(`private PostgreSQL: ${what}`, () => check().catch(() => false), timeoutMs, 100);

/**
 * A PostgreSQL 15 server of the test's own, in a temp dir on a free port: fault-injection tests
 * restart, kill and stop it. Never the shared server on 5432, which other test files and other
 * people use at the same time.
 *
 * initdb and postgres refuse to run as root, so as root they run as the `postgres` OS user
 * (runuser) in a temp dir chowned to it; otherwise they run as the current user. Because the
 * process we spawn is then runuser, not the postmaster, signals go to the pid in postmaster.pid.
 */
export interface PrivatePostgres {
  readonly host: string;
  readonly port: number;
  /** superuser with password authentication over TCP */
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** postgres://user:password@127.0.0.1:port/database */
  readonly url: string;
  /** SQL as the superuser, through TCP (so it fails while the server is down) */
  exec(sql: string): Promise<void>;
  /** rows of one query as arrays, as the superuser */
  rows(sql: string): Promise<unknown[][]>;
  /** stops the server: fast (SIGINT: sessions get 57P01) or immediate (SIGQUIT: no checkpoint) */
  shutdown(mode?: 'fast' | 'immediate'): Promise<void>;
  /** starts it again on the same data dir and port; resolves when it accepts connections */
  start(): Promise<void>;
  /** shutdown(mode), then start() */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** SIGKILL of the postmaster and its children, and wait until they are gone */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

const BIN_DIR = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/** initdb and postgres, or undefined when this machine cannot run them (tests skip). */
export function postgresBinaries(): { initdb: string; postgres: string; asUser?: string } | undefined {
  const initdb = path.join(BIN_DIR, 'initdb');
  const postgres = path.join(BIN_DIR, 'postgres');
  if (!existsSync(initdb) || !existsSync(postgres)) return undefined;
  if (process.getuid?.() !== 0) return { initdb, postgres };
  const hasUser = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).status === 0;
  const hasRunuser = spawnSync('sh', ['-c', 'command -v runuser'], { encoding: 'utf8' }).status === 0;
  return hasUser && hasRunuser ? { initdb, postgres, asUser: 'postgres' } : undefined;
}

/** Why the private-PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresSkipReason(): string | undefined {
  if (postgresBinaries()) return undefined;
  return `no runnable PostgreSQL binaries in ${BIN_DIR} (set PG_BIN_DIR; as root an OS user "postgres" and runuser are needed)`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Direct children of `pid` (the backends of a postmaster), from /proc. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // the command name may hold spaces and parentheses: the fields after the last ")" are fixed
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

export interface PrivatePostgresOptions {
  /** extra `-c name=value` server settings, e.g. { max_connections: '20' } */
  settings?: Record<string, string>;
}

export async function startPrivatePostgres(opts: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bins = postgresBinaries();
  if (!bins) throw new Error(postgresSkipReason());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-pg-'));
  const dataDir = path.join(dir, 'data');
  const user = 'jt';
  const password = 'jt-secret';
  const database = 'jt';
  const as = (cmd: string, args: string[]): [string, string[]] =>
    bins.asUser ? ['runuser', ['-u', bins.asUser, '--', cmd, ...args]] : [cmd, args];
  if (bins.asUser) {
    const uid = Number(spawnSync('id', ['-u', bins.asUser], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', bins.asUser], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const pwfile = path.join(dir, 'pw');
  writeFileSync(pwfile, password, { mode: 0o644 });
  const [initCmd, initArgs] = as(bins.initdb, [
    '-D',
    dataDir,
    '-U',
    user,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    // TCP sessions authenticate, so a rotated password is really checked
    '--auth-host=scram-sha-256',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const installed = spawnSync(initCmd, initArgs, { encoding: 'utf8', timeout: 120_000 });
  rmSync(pwfile, { force: true });
  if (installed.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${installed.stderr || installed.stdout}`);
  }
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    // a throwaway cluster: flushing to disk costs time on a shared 2-core machine and buys
    // nothing, as the tests kill the server, never the machine. synchronous_commit stays on: a
    // COMMIT must have reached the WAL (the OS's cache will do) before it is acknowledged, or an
    // immediate shutdown would lose acknowledged writes and the tests would blame Junction
    fsync: 'off',
    full_page_writes: 'off',
    shared_buffers: '16MB',
    max_connections: '60',
    ...opts.settings,
  };
  const url = `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  let child: ChildProcess | undefined;

  const postmasterPid = (): number | undefined => {
    try {
      const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  const exited = async (pid: number | undefined, timeoutMs: number): Promise<void> => {
    const c = child;
    await until(
      'the server exited',
      async () => (pid === undefined || !alive(pid)) && (!c || c.exitCode !== null || c.signalCode !== null),
      timeoutMs,
    );
  };
  const start = async (): Promise<void> => {
    const [cmd, args] = as(bins.postgres, [
      '-D',
      dataDir,
      '-p',
      String(port),
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ]);
    const c = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    c.stderr?.on('data', (d: Buffer) => {
      // the last few KB are enough to say why a start failed
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child = c;
    await until(
      'accepting connections',
      async () => {
        if (c.exitCode !== null) throw new Error(`postgres exited: ${stderr}`);
        // the maintenance database: the test database does not exist yet at the first start
        const client = new pg.Client({
          host: '127.0.0.1',
          port,
          user,
          password,
          database: 'postgres',
          connectionTimeoutMillis: 1000,
        });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.query('SELECT 1');
          return true;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      60_000,
    ).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}: ${stderr}`);
    });
  };
  await start();
  await (async () => {
    const c = new pg.Client({ host: dir, port, user, database: 'postgres' });
    await c.connect();
    await c.query(`CREATE DATABASE ${database}`);
    await c.end();
  })();

  const rowsOf = async (sql: string): Promise<unknown[][]> => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    c.on('error', () => undefined);
    await c.connect();
    try {
      const r = await c.query({ text: sql, rowMode: 'array' });
      const last = Array.isArray(r) ? r[r.length - 1] : r;
      return (last?.rows ?? []) as unknown[][];
    } finally {
      await c.end().catch(() => undefined);
    }
  };
  const shutdown = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    const pid = postmasterPid();
    if (pid === undefined) return;
    process.kill(pid, mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    await exited(pid, 60_000);
  };
  const kill = async (): Promise<void> => {
    const pid = postmasterPid();
    if (pid === undefined) return;
    const kids = childrenOf(pid);
    process.kill(pid, 'SIGKILL');
    // orphaned backends would keep the shared memory attached and refuse the next start
    for (const k of kids) if (alive(k)) process.kill(k, 'SIGKILL');
    await exited(pid, 30_000);
    await until('the backends exited', async () => kids.every((k) => !alive(k)), 30_000);
  };
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    database,
    url,
    exec: async (sql) => {
      await rowsOf(sql);
    },
    rows: rowsOf,
    shutdown,
    start,
    restart: async (mode = 'fast') => {
      await shutdown(mode);
      await start();
    },
    kill,
    stop: async () => {
      await shutdown('immediate').catch(() => kill());
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
