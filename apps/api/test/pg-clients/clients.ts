/**
 * Real third-party PostgreSQL clients, driven against any PostgreSQL wire-protocol server (the
 * real PostgreSQL in clients.test.ts, Junction's listener in its own tests). Each function runs
 * one client against a target and returns what it got back, parsed, so a test can assert exact
 * rows:
 *
 *   psql            /usr/bin/psql (postgresql-client)                 runPsql
 *   psycopg 3       Debian python3-psycopg under /usr/bin/python3     runPsycopg   (psycopg_client.py)
 *   pgjdbc          Maven Central org.postgresql:postgresql 42.7.x    runJdbc      (JdbcClient.java)
 *   pgbench         /usr/bin/pgbench -M prepared, a custom script     runPgbench
 *   node-postgres   pg (named prepared statements), pg-query-stream   nodePgPrepared, nodePgStream
 *
 * scripts/services.sh installs python3-psycopg and downloads the pgjdbc jar; ensurePgJdbcJar
 * downloads it too when it is missing. Everything a client writes (the jar, \copy files, pgbench
 * scripts, the JVM's class-data archive) lives under node_modules/.cache/junction/ in the
 * repository, and no client reads a user file (~/.pgpass, ~/.psqlrc, user site-packages).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '../../../..');
/** git-ignored (under node_modules/): downloads and scratch files of the client harness */
export const CACHE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'junction');

export interface PgTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  /** default: the user name, as every client does */
  database?: string;
  /** libpq's sslmode (disable, allow, prefer, require, verify-ca, verify-full); default: the client's */
  sslmode?: string;
  /** a CA file for verify-ca / verify-full (libpq clients) */
  sslrootcert?: string;
}

/** `postgres://user:pass@host:port/db?sslmode=...` as a target. */
export function targetFromUrl(url: string): PgTarget {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  const sslmode = u.searchParams.get('sslmode') ?? undefined;
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    ...(database ? { database } : {}),
    ...(sslmode ? { sslmode } : {}),
  };
}

/** A directory under the cache dir for files a client reads or writes (\copy files, scripts). */
export function cacheSubdir(name: string): string {
  const dir = path.join(CACHE_DIR, 'pg-clients', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A fresh directory under the cache dir, for a test that wants its files apart from others'. */
export function scratchDir(prefix = 'scratch'): string {
  return mkdtempSync(path.join(cacheSubdir('scratch'), `${prefix}-`));
}

/**
 * The environment of a libpq client (psql, pgbench, psycopg) and of JdbcClient.java: this
 * process's environment without any PG* or PYTHON* variable, then the target's. libpq's files in
 * the home directory (~/.pgpass, ~/.pg_service.conf, ~/.postgresql/*) are pointed at names in the
 * cache dir that do not exist, so no user file is read. English messages.
 */
export function clientEnv(target: PgTarget, appName: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^PG/.test(k) && !/^PYTHON/.test(k)) env[k] = v;
  Object.assign(env, {
    PGHOST: target.host,
    PGPORT: String(target.port),
    PGUSER: target.user,
    PGPASSWORD: target.password,
    PGAPPNAME: appName,
    PGCONNECT_TIMEOUT: '10',
    PGPASSFILE: path.join(CACHE_DIR, 'no-pgpass'),
    PGSERVICEFILE: path.join(CACHE_DIR, 'no-pg-service.conf'),
    PGSYSCONFDIR: path.join(CACHE_DIR, 'no-pg-sysconf'),
    PGSSLCERT: path.join(CACHE_DIR, 'no-client.crt'),
    PGSSLKEY: path.join(CACHE_DIR, 'no-client.key'),
    PGSSLROOTCERT: target.sslrootcert ?? path.join(CACHE_DIR, 'no-root.crt'),
    PGSSLCRL: path.join(CACHE_DIR, 'no-root.crl'),
    LC_ALL: 'C.UTF-8',
    LANG: 'C.UTF-8',
  });
  if (target.database) env.PGDATABASE = target.database;
  if (target.sslmode) env.PGSSLMODE = target.sslmode;
  return env;
}

// ---------------------------------------------------------------- processes

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** wall-clock ms from spawn to exit */
  ms: number;
}

/** Runs a program to its end (SIGKILL after timeoutMs); never rejects for a non-zero exit. */
export function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd ?? REPO_ROOT, stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 60_000);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`${cmd}: ${e.message}`));
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const r = {
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        exitCode,
        signal,
        ms: Math.round(performance.now() - started),
      };
      if (timedOut)
        reject(new Error(`${cmd} ${args.join(' ')}: killed after ${opts.timeoutMs ?? 60_000} ms\n${r.stderr}`));
      else resolve(r);
    });
    child.stdin.on('error', () => {}); // a client that exits early closes its stdin
    child.stdin.end(opts.stdin ?? '');
  });
}

function failure(cmd: string, r: RunResult): string {
  return `${cmd} exited ${r.exitCode ?? r.signal}\n--- stderr\n${r.stderr}\n--- stdout\n${r.stdout.slice(0, 4000)}`;
}

/** The last line of stdout that is a JSON object (the programs print one document). */
function lastJson<T>(cmd: string, r: RunResult): T {
  const line = r.stdout.split('\n').findLast((l) => l.startsWith('{')) ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`${cmd}: no JSON on stdout: ${failure(cmd, r)}`);
  }
}

// ---------------------------------------------------------------- psql

export const PSQL = '/usr/bin/psql';
export const PGBENCH = '/usr/bin/pgbench';

export interface PsqlOptions {
  /**
   * For a script (string input): 'unaligned' (default: -A -t -F TAB, rows only), 'unaligned-headers'
   * (-A -F TAB: a header line and the "(N rows)" footer), or 'aligned' (psql's default table).
   */
  format?: 'unaligned' | 'unaligned-headers' | 'aligned';
  /** where relative \copy paths resolve; default: cacheSubdir('psql'), shared by every call (see scratchDir) */
  cwd?: string;
  /** psql variables (-v NAME=VALUE) */
  vars?: Record<string, string>;
  /** resolve even when psql exits non-zero (default: throw) */
  allowError?: boolean;
  timeoutMs?: number;
}

export interface PsqlResult extends RunResult {
  /** stdout's lines, without the final newline */
  lines: string[];
  /** each line split on TAB: the rows of the 'unaligned' format */
  rows: string[][];
  cwd: string;
}

/**
 * psql -X against the target. A string is a script fed on stdin (`-f -`, with ON_ERROR_STOP=1,
 * quiet, in `format`): SQL and meta-commands alike (\d tbl, \dt, \x, \copy (query) to 'file').
 * An array is psql's whole argument list after -X, for any other form.
 */
export async function runPsql(target: PgTarget, input: string | string[], opts: PsqlOptions = {}): Promise<PsqlResult> {
  const cwd = opts.cwd ?? cacheSubdir('psql');
  let args: string[];
  let stdin = '';
  if (typeof input === 'string') {
    const format = opts.format ?? 'unaligned';
    args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1'];
    if (format === 'unaligned') args.push('-A', '-t', '-F', '\t');
    else if (format === 'unaligned-headers') args.push('-A', '-F', '\t');
    for (const [k, v] of Object.entries(opts.vars ?? {})) args.push('-v', `${k}=${v}`);
    args.push('-f', '-');
    stdin = input;
  } else {
    args = ['-X', ...input];
  }
  const r = await run(PSQL, args, {
    env: clientEnv(target, 'junction-test-psql'),
    cwd,
    stdin,
    timeoutMs: opts.timeoutMs,
  });
  if (r.exitCode !== 0 && !opts.allowError) throw new Error(failure('psql', r));
  const lines = r.stdout === '' ? [] : r.stdout.replace(/\n$/, '').split('\n');
  return { ...r, lines, rows: lines.map((l) => l.split('\t')), cwd };
}

// ---------------------------------------------------------------- psycopg 3

export const SYSTEM_PYTHON = '/usr/bin/python3';
const PSYCOPG_SCRIPT = path.join(HERE, 'psycopg_client.py');

export interface PsycopgColumn {
  name: string;
  typeOid: number;
  /** 0 text, 1 binary: the format the server sent the column in */
  format: number;
}
interface PsycopgCommon {
  psycopg: { version: string; impl: string; libpq: number };
  totalMs: number;
  /** wall-clock ms of the whole call (Python start included) */
  wallMs: number;
}
export interface PsycopgServerParams {
  server_version: string | null;
  server_encoding: string | null;
  client_encoding: string | null;
  TimeZone: string | null;
  DateStyle: string | null;
  IntervalStyle: string | null;
  integer_datetimes: string | null;
  standard_conforming_strings: string | null;
}
export interface PsycopgQueryResult extends PsycopgCommon {
  columns: PsycopgColumn[];
  /** the server's exact text of every value */
  rows: (string | null)[][];
  rowcount: number;
  status: string | null;
  ms: number;
  parameters: PsycopgServerParams;
}
export interface PsycopgPrepareResult extends PsycopgCommon {
  columns: PsycopgColumn[];
  /** one entry per execution: its rows as exact text */
  results: (string | null)[][][];
  executions: number;
  ms: number;
  perExecMs: number | null;
  /** pg_prepared_statements (name, statement) of the session, when checkPrepared was asked */
  preparedStatements: [string, string][] | null;
}
export interface PsycopgBinaryResult extends PsycopgCommon {
  columns: PsycopgColumn[];
  /** the loaded Python values as exact strings (float: repr; timedelta: "Dd Ss Uus"; bytes: \x...; json: sorted keys) */
  rows: (string | null)[][];
  /** the loaded values' Python type names */
  pyTypes: string[][];
  parameters: PsycopgServerParams;
}
export interface PsycopgErrorResult extends PsycopgCommon {
  sqlstate: string | null;
  completed: boolean;
  class?: string;
  severity?: string | null;
  message?: string;
  detail?: string | null;
  hint?: string | null;
  /** 1-based character position of the error in the statement */
  position?: number | null;
  elapsedMs?: number;
  /** after the error (and a rollback) the session still answered SELECT 1 */
  usableAfter?: boolean;
}

/** A psycopg parameter: a JSON value, or a typed Python value (see psycopg_client.py). */
export type PsycopgParam = string | number | boolean | null | PsycopgParam[] | { type: string; value: unknown };

export interface PsycopgArgs {
  query: { sql: string; params?: PsycopgParam[]; setup?: string[] };
  prepare: { sql: string; paramSets: PsycopgParam[][]; repeat?: number; checkPrepared?: boolean };
  binary: { sql: string; params?: PsycopgParam[]; setup?: string[] };
  cancel: { sql: string; afterMs: number };
  error: { sql: string; params?: PsycopgParam[] };
}
export interface PsycopgResults {
  query: PsycopgQueryResult;
  prepare: PsycopgPrepareResult;
  binary: PsycopgBinaryResult;
  cancel: PsycopgErrorResult;
  error: PsycopgErrorResult;
}

/**
 * psycopg_client.py MODE under /usr/bin/python3 (isolated: no user site-packages, no PYTHON*
 * variables). Throws when the script fails unexpectedly (an error in `query` mode included).
 */
export async function runPsycopg<M extends keyof PsycopgArgs>(
  target: PgTarget,
  mode: M,
  args: PsycopgArgs[M],
  opts: { timeoutMs?: number } = {},
): Promise<PsycopgResults[M]> {
  const r = await run(SYSTEM_PYTHON, ['-I', '-B', PSYCOPG_SCRIPT, mode, JSON.stringify(args)], {
    env: clientEnv(target, 'junction-test-psycopg'),
    timeoutMs: opts.timeoutMs,
  });
  if (r.exitCode !== 0) throw new Error(failure(`psycopg ${mode}`, r));
  return { ...lastJson<PsycopgResults[M]>('psycopg', r), wallMs: r.ms };
}

// ---------------------------------------------------------------- pgjdbc

const JDBC_PROGRAM = path.join(HERE, 'JdbcClient.java');
const MAVEN_CENTRAL = 'https://repo1.maven.org/maven2';

/** version and sha1 of the pinned driver (pgjdbc.properties, which scripts/services.sh reads too) */
export function pgJdbcPin(): { version: string; sha1: string; jar: string } {
  const props: Record<string, string> = {};
  for (const line of readFileSync(path.join(HERE, 'pgjdbc.properties'), 'utf8').split('\n')) {
    const m = /^\s*([\w.]+)\s*=\s*(\S+)\s*$/.exec(line);
    if (m) props[m[1]] = m[2];
  }
  if (!props.version || !props.sha1) throw new Error('pgjdbc.properties: version or sha1 missing');
  return {
    version: props.version,
    sha1: props.sha1.toLowerCase(),
    jar: path.join(CACHE_DIR, 'pgjdbc', `postgresql-${props.version}.jar`),
  };
}

const sha1Of = (b: Buffer) => createHash('sha1').update(b).digest('hex');

let jarPromise: Promise<string> | null = null;
/**
 * The pgjdbc jar's path, downloading it from Maven Central when it is not in the cache yet. The
 * download must match both Maven Central's .sha1 file and the sha1 pinned in pgjdbc.properties.
 */
export function ensurePgJdbcJar(): Promise<string> {
  jarPromise ??= (async () => {
    const pin = pgJdbcPin();
    if (existsSync(pin.jar) && sha1Of(readFileSync(pin.jar)) === pin.sha1) return pin.jar;
    const url = `${MAVEN_CENTRAL}/org/postgresql/postgresql/${pin.version}/postgresql-${pin.version}.jar`;
    const get = async (u: string) => {
      const res = await fetch(u, { signal: AbortSignal.timeout(120_000) });
      if (!res.ok) throw new Error(`GET ${u}: HTTP ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    };
    const [jar, sha1File] = await Promise.all([get(url), get(`${url}.sha1`)]);
    const published = sha1File.toString('utf8').trim().split(/\s+/)[0].toLowerCase();
    const actual = sha1Of(jar);
    if (actual !== published) throw new Error(`${url}: sha1 ${actual}, Maven Central's .sha1 says ${published}`);
    if (actual !== pin.sha1) throw new Error(`${url}: sha1 ${actual}, pgjdbc.properties pins ${pin.sha1}`);
    mkdirSync(path.dirname(pin.jar), { recursive: true });
    const tmp = `${pin.jar}.${process.pid}.tmp`;
    writeFileSync(tmp, jar);
    renameSync(tmp, pin.jar);
    return pin.jar;
  })();
  jarPromise.catch(() => (jarPromise = null));
  return jarPromise;
}

const TEMURIN_25 = '/usr/lib/jvm/temurin-25-jdk-amd64/bin/java';
/** Temurin 25 when installed, else `java` on PATH (17+: single-file programs need 11+). */
export function javaBinary(): string {
  return existsSync(TEMURIN_25) ? TEMURIN_25 : 'java';
}

let javaVersionPromise: Promise<string> | null = null;
/** what `java -version` says (once per process) */
function javaVersion(): Promise<string> {
  javaVersionPromise ??= run(javaBinary(), ['-version']).then((r) => r.stderr.trim());
  return javaVersionPromise;
}

/**
 * A dynamic class-data archive (JDK 13+) of what a JdbcClient.java run loads (the source
 * launcher's compiler, the driver), keyed by the JVM and the jar: a JVM that maps it starts in
 * about two thirds of the time. The first run writes it to a file of its own and renames it into
 * place, so concurrent first runs cannot leave a torn archive; a stale one is never reused.
 */
async function jdbcArchiveArgs(jar: string): Promise<{ args: string[]; done: () => void }> {
  const version = await javaVersion();
  const m = /version "(\d+)(?:\.(\d+))?/.exec(version);
  const major = !m ? 0 : m[1] === '1' ? Number(m[2]) : Number(m[1]);
  if (major < 13) return { args: [], done: () => {} };
  const st = statSync(jar);
  const key = sha1Of(Buffer.from(`${javaBinary()}\n${version}\n${st.size}\n${st.mtimeMs}`)).slice(0, 16);
  const dir = path.join(CACHE_DIR, 'pgjdbc');
  const archive = path.join(dir, `jdbc-client-${key}.jsa`);
  if (existsSync(archive)) return { args: [`-XX:SharedArchiveFile=${archive}`], done: () => {} };
  const tmp = `${archive}.${process.pid}.${Date.now()}.tmp`;
  return {
    args: [`-XX:ArchiveClassesAtExit=${tmp}`],
    done: () => {
      if (!existsSync(tmp)) return;
      renameSync(tmp, archive);
      for (const f of readdirSync(dir))
        if (/^jdbc-client-.*\.jsa$/.test(f) && f !== path.basename(archive)) rmSync(path.join(dir, f), { force: true });
    },
  };
}

export type JdbcMode = 'metadata' | 'query' | 'prepared' | 'cancel' | 'timeout';

export interface JdbcColumn {
  name: string;
  label: string;
  /** java.sql.Types */
  type: number;
  typeName: string;
  className: string;
  precision: number;
  scale: number;
  nullable: number;
}
export interface JdbcSqlError {
  sqlState: string | null;
  message: string;
  class: string;
  elapsedMs: number;
}
interface JdbcCommon {
  /** jvmUptimeMs: JVM start to the end (compiling JdbcClient.java included); mainMs: main() alone */
  timing: { jvmUptimeMs: number; mainMs: number };
  /** wall-clock ms of the whole call */
  wallMs: number;
}
/** a metadata result set: one object per row, column label to getString */
export type JdbcMetaRow = Record<string, string | null>;
export interface JdbcResults {
  metadata: JdbcCommon & {
    product: string;
    productVersion: string;
    driverVersion: string;
    schemas: JdbcMetaRow[];
    tables: JdbcMetaRow[];
    columns: JdbcMetaRow[];
    primaryKeys: JdbcMetaRow[];
  };
  query: JdbcCommon & {
    columns?: JdbcColumn[];
    /** getString of every column */
    rows?: (string | null)[][];
    /** getObject(i).getClass().getName(), null for SQL NULL */
    classes?: (string | null)[][];
    updateCount?: number;
    ms: number;
  };
  prepared: JdbcCommon & {
    columns: JdbcColumn[];
    /** per execution: its rows by getString (or its update count) */
    results: ((string | null)[][] | number)[];
    executions: number;
    firstMs: number;
    totalMs: number;
    avgMs: number;
    /** pgjdbc switched the statement to a named server-side statement (after prepareThreshold uses) */
    serverPrepared: boolean;
  };
  cancel: JdbcCommon & { completed: boolean; sqlState: string | null; error?: JdbcSqlError; usableAfter: boolean };
  timeout: JdbcCommon & { completed: boolean; sqlState: string | null; error?: JdbcSqlError; usableAfter: boolean };
}

export interface JdbcOptions {
  /** extra pgjdbc connection properties, e.g. { prepareThreshold: '1', binaryTransfer: 'false' } */
  props?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * JdbcClient.java MODE ARGS in one JVM (java -cp jar JdbcClient.java ...). ARGS per mode:
 * metadata [schema, table, types?], query [sql], prepared [sql, n, ...'type:value'],
 * cancel [sql, ms], timeout [sql, seconds]. Throws when the program fails unexpectedly.
 */
export async function runJdbc<M extends JdbcMode>(
  target: PgTarget,
  mode: M,
  args: string[],
  opts: JdbcOptions = {},
): Promise<JdbcResults[M]> {
  const jar = await ensurePgJdbcJar();
  const env = clientEnv(target, 'junction-test-jdbc');
  delete env.JAVA_TOOL_OPTIONS;
  delete env.JDK_JAVA_OPTIONS;
  if (opts.props) env.JT_JDBC_PROPS = new URLSearchParams(opts.props).toString();
  // C1 only and the serial collector take a third off a short-lived JVM's start, the class-data
  // archive another third. UTC: pgjdbc sends the JVM's zone as the session TimeZone, so timestamptz
  // text is the same on every machine. No JVM log lines: they would land on stdout, beside the JSON.
  const jvm = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Duser.timezone=UTC', '-Xlog:disable'];
  const cds = await jdbcArchiveArgs(jar);
  const r = await run(javaBinary(), [...jvm, ...cds.args, '-cp', jar, JDBC_PROGRAM, mode, ...args], {
    env,
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
  if (r.exitCode !== 0) throw new Error(failure(`jdbc ${mode}`, r));
  cds.done();
  return { ...lastJson<JdbcResults[M]>('jdbc', r), wallMs: r.ms };
}

// ---------------------------------------------------------------- pgbench

export interface PgbenchOptions {
  clients?: number;
  /** worker threads (-j); default 1 */
  jobs?: number;
  /** run for this many seconds (-T) ... */
  seconds?: number;
  /** ... or this many transactions per client (-t) */
  transactions?: number;
  /** -M; default 'prepared' */
  protocol?: 'simple' | 'extended' | 'prepared';
  /** -D NAME=VALUE script variables */
  defines?: Record<string, string | number>;
  extraArgs?: string[];
  timeoutMs?: number;
}

export interface PgbenchResult extends RunResult {
  queryMode: string | null;
  clients: number | null;
  threads: number | null;
  /** transactions that completed */
  processed: number;
  /** transactions that failed (serialization or deadlock failures, pgbench 15+) */
  failed: number;
  /** clients that aborted (an SQL error, a broken connection); pgbench exits 2 then */
  aborted: number;
  latencyAvgMs: number | null;
  tps: number;
}

/** Writes a pgbench script under the cache dir (named by its content's hash); returns its path. */
export function writePgbenchScript(content: string, name = 'script.sql'): string {
  const file = path.join(cacheSubdir('pgbench'), `${sha1Of(Buffer.from(content)).slice(0, 12)}-${name}`);
  writeFileSync(file, content);
  return file;
}

/** pgbench -n (no vacuum: the script's tables are not pgbench's) -f scriptFile against the target. */
export async function runPgbench(
  target: PgTarget,
  scriptFile: string,
  opts: PgbenchOptions = {},
): Promise<PgbenchResult> {
  if ((opts.seconds === undefined) === (opts.transactions === undefined))
    throw new Error('runPgbench: give exactly one of seconds and transactions');
  const args = ['-n', '-f', scriptFile, '-M', opts.protocol ?? 'prepared'];
  args.push('-c', String(opts.clients ?? 1), '-j', String(opts.jobs ?? 1));
  if (opts.seconds !== undefined) args.push('-T', String(opts.seconds));
  else args.push('-t', String(opts.transactions));
  for (const [k, v] of Object.entries(opts.defines ?? {})) args.push('-D', `${k}=${v}`);
  args.push(...(opts.extraArgs ?? []));
  const r = await run(PGBENCH, args, {
    env: clientEnv(target, 'junction-test-pgbench'),
    timeoutMs: opts.timeoutMs ?? ((opts.seconds ?? 0) + 60) * 1000,
  });
  const num = (re: RegExp): number | null => {
    const m = re.exec(r.stdout);
    return m ? Number(m[1]) : null;
  };
  // a run whose every client aborted prints no latency and no tps line
  const processed = num(/^number of transactions actually processed: (\d+)/m);
  if (processed === null) throw new Error(failure('pgbench', r));
  const modeMatch = /^query mode: (\S+)/m.exec(r.stdout);
  return {
    ...r,
    queryMode: modeMatch ? modeMatch[1] : null,
    clients: num(/^number of clients: (\d+)/m),
    threads: num(/^number of threads: (\d+)/m),
    processed,
    failed: num(/^number of failed transactions: (\d+)/m) ?? 0,
    aborted: (r.stderr.match(/client \d+ (?:script \d+ )?aborted/g) ?? []).length,
    latencyAvgMs: num(/^latency average = ([\d.]+) ms/m),
    tps: num(/^tps = ([\d.]+)/m) ?? 0,
  };
}

// ---------------------------------------------------------------- node-postgres

/** every column as the server's exact text (no Date, no number parsing) */
const RAW_TYPES = { getTypeParser: () => (v: string) => v };

function nodeSsl(mode: string | undefined): pg.ClientConfig['ssl'] {
  if (!mode || mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  if (mode === 'require') return { rejectUnauthorized: false };
  return true;
}

export function nodePgConfig(target: PgTarget, appName = 'junction-test-node-pg'): pg.ClientConfig {
  return {
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database ?? target.user,
    ssl: nodeSsl(target.sslmode),
    application_name: appName,
    connectionTimeoutMillis: 10_000,
  };
}

export interface NodePgPreparedResult {
  name: string;
  fields: { name: string; dataTypeID: number; format: string }[];
  /** per execution: its rows (exact text, or pg's parsed values with parsedTypes) */
  results: unknown[][][];
  /** per execution: the command tag's row count */
  rowCounts: (number | null)[];
  ms: number;
  perCallMs: number;
}

/**
 * One node-postgres connection running a named prepared statement n times (Parse once, then
 * Bind/Execute per call). `params` is a list, or a function of the 0-based iteration.
 */
export async function nodePgPrepared(
  target: PgTarget,
  sql: string,
  params: unknown[] | ((i: number) => unknown[]),
  n: number,
  opts: { name?: string; parsedTypes?: boolean } = {},
): Promise<NodePgPreparedResult> {
  const name = opts.name ?? 'junction_test_stmt';
  const client = new pg.Client(nodePgConfig(target));
  await client.connect();
  try {
    const results: unknown[][][] = [];
    const rowCounts: (number | null)[] = [];
    let fields: NodePgPreparedResult['fields'] = [];
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const values = typeof params === 'function' ? params(i) : params;
      const r = await client.query({
        name,
        text: sql,
        values,
        rowMode: 'array',
        ...(opts.parsedTypes ? {} : { types: RAW_TYPES }),
      });
      results.push(r.rows as unknown[][]);
      rowCounts.push(r.rowCount);
      if (i === 0) fields = r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID, format: f.format }));
    }
    const ms = performance.now() - started;
    return { name, fields, results, rowCounts, ms: Math.round(ms), perCallMs: n ? ms / n : 0 };
  } finally {
    await client.end();
  }
}

export interface NodePgStreamResult {
  count: number;
  /** first and last rows as exact text */
  first: (string | null)[] | null;
  last: (string | null)[] | null;
  /** the sum of column sumColumn (integers), as a decimal string */
  sum: string | null;
  ms: number;
  firstRowMs: number | null;
  rssBaselineBytes: number;
  rssMaxBytes: number;
  /** the most RSS grew over its level after connecting, sampled every sampleEvery rows */
  rssGrowthBytes: number;
  heapGrowthBytes: number;
  wallMs: number;
}

/**
 * Streams a query through pg-query-stream (a cursor of batchSize rows) in a Node process of its
 * own (node_stream.mjs), so the RSS it reports is the stream's alone. buffered: the same query
 * with an ordinary client.query instead, to compare the memory a full result takes.
 */
export async function nodePgStream(
  target: PgTarget,
  sql: string,
  opts: {
    params?: unknown[];
    batchSize?: number;
    highWaterMark?: number;
    sumColumn?: number;
    sampleEvery?: number;
    buffered?: boolean;
    timeoutMs?: number;
  } = {},
): Promise<NodePgStreamResult> {
  const { timeoutMs, ...job } = opts;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    JT_PG_STREAM: JSON.stringify({ target: { ...target, database: target.database ?? target.user }, sql, ...job }),
  };
  delete env.NODE_OPTIONS;
  const r = await run(process.execPath, ['--expose-gc', path.join(HERE, 'node_stream.mjs')], {
    env,
    timeoutMs: timeoutMs ?? 120_000,
  });
  if (r.exitCode !== 0) throw new Error(failure('node pg-query-stream', r));
  return { ...lastJson<NodePgStreamResult>('node pg-query-stream', r), wallMs: r.ms };
}
