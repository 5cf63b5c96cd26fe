import pg from 'pg';
import mysql from 'mysql2/promise';
import { createConnector, type Connector, type SourceConfig } from '@junction/connectors';
import { LAYOUTS, ProgressBars, loadTpch, type LoadTarget } from '@junction/tpch';
import type { RegisteredSource } from '../src/api.js';
import { Engine } from '../src/engine.js';

/**
 * The benchmark's own databases (jbench_<sf>_a … _d, jbench_<sf>_direct): dbA, dbB and the
 * one-database copy on PostgreSQL, dbC and dbD on MariaDB, loaded by @junction/tpch's loader,
 * so tests loading the shared demo databases never disturb them. Shared by run.ts (JDV) and
 * tpch22.ts (TPC-H 1–22).
 */
export const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
export const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';

export const PLACEMENT: Readonly<Record<string, string>> = { dbA: PG_URL, dbB: PG_URL, dbC: MYSQL_URL, dbD: MYSQL_URL, direct: PG_URL };

export function benchDatabase(sf: number, target: string): string {
  return `jbench_${String(sf).replace('.', '_')}_${target === 'direct' ? 'direct' : target.slice(2).toLowerCase()}`;
}

export function sourceConfig(name: string, url: string, database: string): SourceConfig {
  const u = new URL(url);
  return {
    name,
    engine: u.protocol.startsWith('postgres') ? 'postgresql' : 'mysql',
    host: u.hostname,
    port: u.port ? Number(u.port) : undefined,
    database,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    options: { pool: { max: 20 } },
  };
}

/** Creates the databases and loads any target not already loaded at this scale. */
export async function prepareBenchData(sf: number, load: boolean): Promise<void> {
  for (const [target, url] of Object.entries(PLACEMENT)) await ensureDatabase(url, benchDatabase(sf, target));
  if (!load) return;
  const loaders: Connector[] = [];
  const targets: LoadTarget[] = [...LAYOUTS.jdv, ...LAYOUTS.single].map((t) => {
    const c = createConnector(sourceConfig(t.name, PLACEMENT[t.name], benchDatabase(sf, t.name)));
    loaders.push(c);
    return { name: t.name, connector: c, tables: t.tables };
  });
  const t0 = performance.now();
  try {
    // SF 10 takes most of an hour here: say where it is
    const progress = new ProgressBars(process.stderr);
    const results = await loadTpch(targets, { sf, concurrency: 2, onProgress: progress.onEvent });
    progress.done();
    process.stderr.write(`data: ${results.map((r) => `${r.target} ${r.skipped ? 'already loaded' : `loaded in ${r.seconds.toFixed(0)}s`}`).join(', ')} (${((performance.now() - t0) / 1000).toFixed(0)}s)\n`);
  } finally {
    await Promise.allSettled(loaders.map((c) => c.close()));
  }
}

/**
 * A line for the bench's output when MariaDB's buffer pool is smaller than the bench data it
 * holds at this scale. MariaDB reads with O_DIRECT, so what the pool cannot hold comes from
 * disk on every run, while PostgreSQL's reads come from the OS page cache: at SF 10 the test
 * services' 512 MB pool against 2.6 GB of dbC and dbD made federated JDV F take 1.3 s where
 * MariaDB answers in 0.1 s warm.
 */
export async function mariadbCacheNote(sf: number): Promise<string | undefined> {
  const c = await mysql.createConnection(MYSQL_URL);
  try {
    const schemas = ['dbC', 'dbD'].map((t) => benchDatabase(sf, t));
    const [[pool]] = (await c.query('SELECT @@innodb_buffer_pool_size AS size')) as unknown as [[{ size: number | string }]];
    const [[data]] = (await c.query('SELECT COALESCE(SUM(data_length + index_length), 0) AS size FROM information_schema.tables WHERE table_schema IN (?, ?)', schemas)) as unknown as [
      [{ size: number | string }],
    ];
    const mb = (n: number | string): number => Math.round(Number(n) / 2 ** 20);
    if (Number(pool.size) >= Number(data.size)) return undefined;
    return `note: MariaDB's buffer pool (${mb(pool.size)} MB) is smaller than dbC and dbD (${mb(data.size)} MB): their reads go to disk on every run while PostgreSQL's come from the page cache (SET GLOBAL innodb_buffer_pool_size = ${Math.ceil(Number(data.size) / 2 ** 30) + 1} * 1024 * 1024 * 1024 for a like-for-like run)`;
  } finally {
    await c.end();
  }
}

/** A connected source of the benchmark (the caller closes `connector`). */
export async function benchSource(sf: number, name: string): Promise<RegisteredSource> {
  const c = createConnector(sourceConfig(name, PLACEMENT[name], benchDatabase(sf, name)));
  const semantics = await c.probe();
  const catalog = await c.introspect();
  return { name, connector: c, catalog, semantics };
}

/** A pg pool on the one-database copy: the direct baseline. */
export function directPool(sf: number, max = 16): pg.Pool {
  const u = new URL(PG_URL);
  u.pathname = '/' + benchDatabase(sf, 'direct');
  return new pg.Pool({ connectionString: u.toString(), max });
}

/** pg's parsers for the workload's types, as Junction's connector decodes them. */
export const DIRECT_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.DATE) return (v: string) => v;
    if (oid === pg.types.builtins.TIMESTAMP) return (v: string) => v.replace(' ', 'T');
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

async function ensureDatabase(url: string, db: string): Promise<void> {
  if (url.startsWith('postgres')) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
      if (r.rowCount === 0) await c.query(`CREATE DATABASE ${db}`);
    } finally {
      await c.end();
    }
  } else {
    const c = await mysql.createConnection({ uri: url });
    try {
      await c.query(`CREATE DATABASE IF NOT EXISTS ${db}`);
    } finally {
      await c.end();
    }
  }
}

/** An engine over the four JDV sources at this scale, and their connectors (the caller closes both). */
export async function federatedEngine(sf: number): Promise<{ fed: Engine; connectors: Connector[] }> {
  const connectors: Connector[] = [];
  const fed = new Engine();
  for (const name of ['dbA', 'dbB', 'dbC', 'dbD']) {
    const s = await benchSource(sf, name);
    connectors.push(s.connector);
    fed.addSource(s);
  }
  return { fed, connectors };
}
