import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { freePort, until as untilHolds } from './wait.js';

/** A check that throws (the server is not up yet) has not held yet. */
const until = (what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> =>
  untilHolds(`private MariaDB: ${what}`, () => check().catch(() => false), timeoutMs, 100);

/**
 * A MariaDB server of the test's own, in a temp dir on a free port: fault-injection tests
 * freeze (SIGSTOP), kill and restart it. Never the shared servers on 3306/5432, which other
 * test files and other people use at the same time.
 */
export interface PrivateMariadb {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** SQL as the test user (through TCP, so it fails while the server is frozen or down) */
  exec(sql: string): Promise<void>;
  /** rows of one query as the test user */
  rows(sql: string): Promise<unknown[][]>;
  freeze(): void;
  thaw(): void;
  /** SIGKILL, and wait until the process is gone */
  kill(): Promise<void>;
  /** start again on the same data dir and port */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const BIN_CANDIDATES = ['/usr/sbin/mariadbd', '/usr/bin/mariadbd', '/usr/local/bin/mariadbd'];

/** mariadbd and mariadb-install-db, or undefined when this machine has none (tests skip). */
export function mariadbBinaries(): { server: string; install: string } | undefined {
  const server = process.env.MARIADBD_BIN ?? BIN_CANDIDATES.find((p) => existsSync(p));
  const install = spawnSync('sh', ['-c', 'command -v mariadb-install-db'], { encoding: 'utf8' }).stdout.trim();
  if (!server || !install) return undefined;
  return { server, install };
}

export interface PrivateMariadbOptions {
  /** extra mariadbd options, after the defaults so they win (e.g. '--max-connections=6') */
  serverArgs?: readonly string[];
}

export async function startPrivateMariadb(opts: PrivateMariadbOptions = {}): Promise<PrivateMariadb> {
  const bins = mariadbBinaries();
  if (!bins) throw new Error('mariadbd / mariadb-install-db not found');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-maria-'));
  const dataDir = path.join(dir, 'data');
  const socket = path.join(dir, 'sock');
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  const installed = spawnSync(
    bins.install,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      '--skip-test-db',
      '--auth-root-authentication-method=normal',
      '--innodb-log-file-size=4M',
      ...asRoot,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (installed.status !== 0) throw new Error(`mariadb-install-db failed: ${installed.stderr || installed.stdout}`);
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const c = spawn(
      bins.server,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--socket=${socket}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=16M',
        '--innodb-log-file-size=4M',
        '--max-connections=100',
        `--log-error=${path.join(dir, 'error.log')}`,
        ...asRoot,
        ...(opts.serverArgs ?? []),
      ],
      { stdio: 'ignore' },
    );
    child = c;
    await until(
      'accepting connections',
      async () => {
        if (c.exitCode !== null) throw new Error('mariadbd exited');
        const conn = await mysql.createConnection({ socketPath: socket, user: 'root', connectTimeout: 1000 });
        await conn.end();
        return true;
      },
      60_000,
    );
  };
  await launch();
  const root = await mysql.createConnection({ socketPath: socket, user: 'root', multipleStatements: true });
  await root.query(
    `CREATE USER 'jt'@'%' IDENTIFIED BY 'jt'; GRANT ALL ON *.* TO 'jt'@'%'; CREATE DATABASE jt; FLUSH PRIVILEGES;`,
  );
  await root.end();
  const rowsOf = async (sql: string): Promise<unknown[][]> => {
    const c = await mysql.createConnection({
      host: '127.0.0.1',
      port,
      user: 'jt',
      password: 'jt',
      database: 'jt',
      multipleStatements: true,
      connectTimeout: 5000,
    });
    try {
      const [rows] = await c.query({ sql, rowsAsArray: true });
      return Array.isArray(rows) ? (rows as unknown[][]) : [];
    } finally {
      await c.end();
    }
  };
  const exited = (): Promise<void> =>
    new Promise((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
    });
  return {
    host: '127.0.0.1',
    port,
    user: 'jt',
    password: 'jt',
    database: 'jt',
    exec: async (sql) => {
      await rowsOf(sql);
    },
    rows: (sql) => rowsOf(sql),
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    kill: async () => {
      child?.kill('SIGKILL');
      await exited();
    },
    restart: launch,
    stop: async () => {
      child?.kill('SIGCONT');
      child?.kill('SIGTERM');
      const t = setTimeout(() => child?.kill('SIGKILL'), 10_000);
      await exited();
      clearTimeout(t);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
