/**
 * npm run bench -- [--sf 1] [--runs 5] [--h-seconds 10] [--skip-load] [--only A,B,H]
 *
 * The JDV benchmark (workload/jdv): queries A–F single-user (1 warm-up, N timed, median),
 * H at 1, 4 and 16 concurrent clients (a random c_custkey per execution), and peak RSS
 * while 8 users run G. Each is measured direct (raw SQL on the one-database PostgreSQL
 * copy), through Junction over that single source (use case 1), and through Junction over
 * the four-source layout (dbA, dbB on PostgreSQL; dbC, dbD on MariaDB).
 * Data comes from @junction/tpch's loader into databases of the benchmark's own
 * (jbench_<sf>_a … _d, jbench_<sf>_direct), so tests loading the shared demo databases
 * never disturb it; a target already loaded at this scale is skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createConnector, type Connector, type SourceConfig, type Value } from '@junction/connectors';
import { LAYOUTS, loadTpch, type LoadTarget } from '@junction/tpch';
import mysql from 'mysql2/promise';
import { Engine } from '../src/engine.js';
import { rewriteOdbc } from '../src/sql/odbc.js';

const workload = '/work/shared/workload/jdv';
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';

const { values: args } = parseArgs({
  options: {
    sf: { type: 'string', default: '1' },
    runs: { type: 'string', default: '5' },
    'h-seconds': { type: 'string', default: '10' },
    'skip-load': { type: 'boolean', default: false },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
  },
});
const sf = Number(args.sf);
const runs = Number(args.runs);
const hSeconds = Number(args['h-seconds']);
const only = args.only ? new Set(args.only.split(',')) : undefined;
const want = (q: string): boolean => !only || only.has(q);

function config(name: string, url: string, database: string): SourceConfig {
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

function sqlOf(q: string, kind: 'direct' | 'federated'): string {
  return readFileSync(join(workload, `${q}.${kind}.sql`), 'utf8').trim();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function drain(engine: Engine, sql: string, params: readonly Value[] = []): Promise<number> {
  const r = await engine.query(sql, { params });
  let n = 0;
  for await (const b of r.rows) n += b.length;
  return n;
}

async function allRows(engine: Engine, sql: string): Promise<string[]> {
  const r = await engine.query(sql);
  const out: string[] = [];
  for await (const b of r.rows) for (const row of b) out.push(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  return out.sort();
}

async function timeIt(fn: () => Promise<number>): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const rows = await fn();
  return { ms: performance.now() - t0, rows };
}

/**
 * 1 warm-up each, then `runs` rounds, each round running every variant once in turn: on a
 * shared machine a burst of load then hits all variants alike instead of one block.
 */
async function measureInterleaved(fns: readonly (() => Promise<number>)[]): Promise<{ ms: number; rows: number }[]> {
  for (const fn of fns) await fn();
  const times = fns.map(() => [] as number[]);
  const rows = fns.map(() => 0);
  for (let i = 0; i < runs; i++) {
    for (let v = 0; v < fns.length; v++) {
      const r = await timeIt(fns[v]);
      times[v].push(r.ms);
      rows[v] = r.rows;
    }
  }
  return fns.map((_, v) => ({ ms: median(times[v]), rows: rows[v] }));
}

/**
 * Executions per second of each variant with `clients` concurrent loops, measured in
 * alternating one-second slices (`seconds` slices per variant) so that load from other
 * processes on the machine spreads over all variants.
 */
async function throughputInterleaved(clients: number, seconds: number, fns: readonly (() => Promise<number>)[]): Promise<number[]> {
  const done = fns.map(() => 0);
  const slice = async (v: number, count: boolean): Promise<void> => {
    const deadline = performance.now() + 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < deadline) {
          await fns[v]();
          if (count) done[v]++;
        }
      }),
    );
  };
  for (let v = 0; v < fns.length; v++) await slice(v, false);
  for (let i = 0; i < seconds; i++) for (let v = 0; v < fns.length; v++) await slice(v, true);
  return done.map((n) => n / seconds);
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

async function main(): Promise<void> {
  const tag = `jbench_${String(sf).replace('.', '_')}`;
  const dbName = (target: string): string => `${tag}_${target === 'direct' ? 'direct' : target.slice(2).toLowerCase()}`;
  const placement: Record<string, string> = { dbA: PG_URL, dbB: PG_URL, dbC: MYSQL_URL, dbD: MYSQL_URL, direct: PG_URL };
  await ensureDatabases(Object.entries(placement).map(([t, url]) => [url, dbName(t)]));
  if (!args['skip-load']) {
    const loaders: Connector[] = [];
    const targets: LoadTarget[] = [...LAYOUTS.jdv, ...LAYOUTS.single].map((t) => {
      const c = createConnector(config(t.name, placement[t.name], dbName(t.name)));
      loaders.push(c);
      return { name: t.name, connector: c, tables: t.tables };
    });
    const t0 = performance.now();
    const results = await loadTpch(targets, { sf, concurrency: 2 });
    process.stderr.write(`data: ${results.map((r) => `${r.target} ${r.skipped ? 'already loaded' : `loaded in ${r.seconds.toFixed(0)}s`}`).join(', ')} (${((performance.now() - t0) / 1000).toFixed(0)}s)\n`);
    await Promise.allSettled(loaders.map((c) => c.close()));
  }
  const connectors: Connector[] = [];
  const connect = async (name: string, url: string, db: string) => {
    const c = createConnector(config(name, url, db));
    connectors.push(c);
    const semantics = await c.probe();
    const catalog = await c.introspect();
    return { name, connector: c, catalog, semantics };
  };
  const single = new Engine();
  single.addSource(await connect('direct', PG_URL, dbName('direct')));
  const fed = new Engine();
  for (const t of ['dbA', 'dbB', 'dbC', 'dbD']) fed.addSource(await connect(t, placement[t], dbName(t)));

  const directPool = new pg.Pool({ connectionString: (() => {
    const u = new URL(PG_URL);
    u.pathname = '/' + dbName('direct');
    return u.toString();
  })(), max: 16 });
  const direct = async (sql: string, params: readonly Value[] = []): Promise<number> => {
    const r = await directPool.query({ text: sql, values: params as unknown[], rowMode: 'array' });
    return r.rowCount ?? r.rows.length;
  };
  // Junction over the single source: the direct SQL with each table qualified by the source
  const singleSql = (q: string): string => sqlOf(q, 'direct').replace(/\b(FROM|JOIN|,)\s+(region|nation|supplier|partsupp|part|customer|orders|lineitem)\b/g, '$1 direct.$2');

  const lines: string[] = [];
  const out = (s: string): void => {
    lines.push(s);
    process.stdout.write(s + '\n');
  };
  out(`JDV benchmark, SF ${sf}, median of ${runs} interleaved runs after 1 warm-up (ms)`);
  out('query | rows | direct | Junction 1 source | ÷ direct | Junction 4 sources | ÷ direct');
  let totalDirect = 0;
  let totalFed = 0;
  for (const q of ['A', 'B', 'C', 'D', 'E', 'F']) {
    if (!want(q)) continue;
    const [d, s, f] = await measureInterleaved([
      () => direct(rewriteOdbc(sqlOf(q, 'direct')).text),
      () => drain(single, singleSql(q)),
      () => drain(fed, sqlOf(q, 'federated')),
    ]);
    totalDirect += d.ms;
    totalFed += f.ms;
    const rowsNote = d.rows === s.rows && d.rows === f.rows ? String(d.rows) : `${d.rows}/${s.rows}/${f.rows} MISMATCH`;
    out(`${q} | ${rowsNote} | ${fmt(d.ms)} | ${fmt(s.ms)} | ${(s.ms / d.ms).toFixed(2)} | ${fmt(f.ms)} | ${(f.ms / d.ms).toFixed(2)}`);
    if (args.check) {
      // the federated answer must be the one-database answer, row for row
      const [a, b] = [await allRows(single, singleSql(q)), await allRows(fed, sqlOf(q, 'federated'))];
      const same = a.length === b.length && a.every((x, i) => x === b[i]);
      out(`  ${q}: federated rows ${same ? 'equal' : 'DIFFER from'} the single-source rows`);
    }
    if (args.verbose) {
      const e = await fed.explain(sqlOf(q, 'federated'), { analyze: true });
      process.stdout.write(e.text + '\n');
    }
  }
  if (totalDirect > 0) out(`A–F total | | ${fmt(totalDirect)} | | | ${fmt(totalFed)} | ${(totalFed / totalDirect).toFixed(2)}`);

  if (want('H')) {
    const customers = Math.round(150_000 * sf);
    const key = (): number => 1 + Math.floor(Math.random() * customers);
    out('');
    out(`H (one random c_custkey per execution), executions/s over ${hSeconds} interleaved 1 s slices per variant`);
    out('clients | direct | Junction 1 source | ÷ direct | Junction 4 sources | ÷ direct');
    const hDirect = sqlOf('H', 'direct');
    const hSingle = singleSql('H');
    const hFed = sqlOf('H', 'federated');
    for (const clients of [1, 4, 16]) {
      const [d, s, f] = await throughputInterleaved(clients, hSeconds, [
        () => direct(hDirect, [key()]),
        () => drain(single, hSingle, [key()]),
        () => drain(fed, hFed, [key()]),
      ]);
      out(`${clients} | ${d.toFixed(1)} | ${s.toFixed(1)} | ${(s / d).toFixed(2)} | ${f.toFixed(1)} | ${(f / d).toFixed(2)}`);
    }
  }

  if (want('G')) {
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const g = sqlOf('G', 'federated');
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 8 }, () => drain(fed, g)));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    out('');
    out(`G: 8 concurrent users through Junction (4 sources): ${fmt(performance.now() - t0)} ms, peak RSS ${(peak / 1024 / 1024).toFixed(0)} MB`);
  }

  await single.close();
  await fed.close();
  await directPool.end();
  await Promise.allSettled(connectors.map((c) => c.close()));
}

async function ensureDatabases(list: readonly (readonly [string, string])[]): Promise<void> {
  for (const [url, db] of list) {
    if (url.startsWith('postgres')) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
      if (r.rowCount === 0) await c.query(`CREATE DATABASE ${db}`);
      await c.end();
    } else {
      const c = await mysql.createConnection({ uri: url });
      await c.query(`CREATE DATABASE IF NOT EXISTS ${db}`);
      await c.end();
    }
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
