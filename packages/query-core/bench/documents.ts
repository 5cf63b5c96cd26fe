/**
 * npm run bench -- --documents [--sf 0.1] [--runs 5] [--layout collection|files] [--dir PATH] [--only Q1,Q3]
 *                  [--mv-index | --no-mat] [--skip-load] [--no-check] [--verbose]
 *
 * TPoX-style queries over XML documents through Junction vs the same SQL on the documents
 * shredded into PostgreSQL tables (the relational baseline a DBA would build).
 *   data      @junction/tpox's documents at --sf (150,000 × SF customers, ids = TPC-H c_custkey;
 *             3 FIXML orders a customer; 500 securities; prices.parquet with 2005's daily closes),
 *             written under --dir (default <tmp>/junction-tpox/…) and reused while its marker matches
 *   direct    node-postgres, prepared statements, on jbench_tpox_<sf>: the shredded tables
 *             (customer_account, account, position, orders, security, prices) and TPC-H's customer
 *             and nation loaded at the same SF
 *   junction  the same SQL text through Junction's engine, names resolved by the search path
 *             tpox (engine 'documents' over the XML files), files (engine 'duckdb' over
 *             prices.parquet), tpch (the PostgreSQL database, for TPC-H's customer)
 *   jn mat    the same SQL through Junction with each document table behind a view (schema mat) that
 *             is materialized as Junction's materialized views are: its rows read through Junction
 *             and stored in a PostgreSQL table (mv_<table>, no index, as the materializer stores them;
 *             --mv-index adds the shredded tables' indexes, to show what indexes would give; --no-mat
 *             skips this variant)
 *   jn→pg     the same SQL through Junction over the PostgreSQL database alone: the engine's own
 *             cost, so the rest of the gap is reading documents instead of indexed tables
 * Each query runs once per parameter unmeasured (its answers compared row for row with direct's
 * unless --no-check), then --runs rounds over its parameters, variants interleaved; the medians
 * of single executions are reported. The documents source keeps the rows of a table it read
 * whole in memory, so "jn cold" is the query's first execution through Junction, with the
 * documents source opened anew just before it (with --no-mat; otherwise the materialization
 * already read every table through it), and "junction" the median of the warm ones. The last
 * lines answer the goal: filtered lookups within 3× of the shredded tables, warm and cold.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createConnector, type SourceConfig, type Value } from '@junction/connectors';
import { loadTpch } from '@junction/tpch';
import {
  DEFAULT_SEED,
  PRICE_FILE,
  TPOX_GENERATOR_VERSION,
  TPOX_TABLES,
  documentTables,
  scaleOf,
  securities,
  shredTpox,
  writeTpox,
  type Layout,
} from '@junction/tpox';
import type { QueryStats, RegisteredSource } from '../src/api.js';
import { Engine } from '../src/engine.js';
import { DIRECT_TYPES, PG_URL, sourceConfig } from './databases.js';
import { median } from './measure.js';

const { values: args } = parseArgs({
  options: {
    documents: { type: 'boolean', default: false },
    sf: { type: 'string', default: '0.1' },
    runs: { type: 'string', default: '5' },
    layout: { type: 'string', default: 'collection' },
    dir: { type: 'string' },
    only: { type: 'string' },
    'skip-load': { type: 'boolean', default: false },
    check: { type: 'boolean', default: true },
    verbose: { type: 'boolean', default: false },
    'mv-index': { type: 'boolean', default: false },
    mat: { type: 'boolean', default: true },
    'timeout-s': { type: 'string', default: '300' },
  },
  allowNegative: true,
});
const sf = Number(args.sf);
const scale = scaleOf(sf);
const runs = Math.max(1, Number(args.runs));
const timeoutMs = Number(args['timeout-s']) * 1000;
const layout = args.layout as Layout;
if (layout !== 'collection' && layout !== 'files') throw new Error('--layout must be collection or files');
const only = args.only ? new Set(args.only.split(',').map((q) => q.trim().toUpperCase())) : undefined;
const database = `jbench_tpox_${String(sf).replace('.', '_')}`;
const dataDir = path.resolve(
  args.dir ?? path.join(os.tmpdir(), 'junction-tpox', `sf_${String(sf).replace('.', '_')}_${layout}`),
);
/** the goal is for filtered lookups (an index's job on the shredded side) */
const GOAL = 3;

interface BenchQuery {
  readonly id: string;
  readonly title: string;
  readonly sql: string;
  /** one parameter list per execution, cycled through */
  readonly params: readonly (readonly Value[])[];
  /** a filtered lookup: the goal applies */
  readonly lookup: boolean;
  /** needs the files source (prices.parquet) */
  readonly files?: boolean;
}

function queries(): BenchQuery[] {
  const n = scale.customers;
  const ids = [1, Math.floor(n / 4), Math.floor(n / 2), Math.floor((3 * n) / 4), n].map((id) => [id]);
  const secs = securities(DEFAULT_SEED);
  const symbols = [secs[0], secs[250], secs[499]].map((s) => [s.symbol]);
  return [
    {
      id: 'Q1',
      title: 'accounts of a customer',
      sql: 'SELECT account_id, category, currency, online_actual_bal FROM account WHERE customer_id = $1 ORDER BY account_id',
      params: ids,
      lookup: true,
    },
    {
      id: 'Q2',
      title: 'customer profile by id',
      sql: 'SELECT customer_id, first_name, last_name, nationality, premium_customer FROM customer_account WHERE customer_id = $1',
      params: ids,
      lookup: true,
    },
    {
      id: 'Q3',
      title: 'orders of a security',
      sql: 'SELECT order_id, account_id, side, trade_date, price, quantity FROM orders WHERE symbol = $1 ORDER BY order_id',
      params: symbols,
      lookup: true,
    },
    {
      id: 'Q4',
      title: 'portfolio value of a customer',
      sql:
        'SELECT p.customer_id, count(*) AS positions, sum(p.qty * s.last_trade) AS value FROM position p ' +
        'JOIN security s ON s.symbol = p.symbol WHERE p.customer_id = $1 GROUP BY p.customer_id',
      params: ids,
      lookup: true,
    },
    {
      id: 'Q5',
      title: 'account balances by TPC-H market segment, one nation',
      sql:
        'SELECT c.c_mktsegment, count(*) AS accounts, sum(a.online_actual_bal) AS balance FROM account a ' +
        'JOIN customer c ON c.c_custkey = a.customer_id WHERE c.c_nationkey = $1 GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment',
      params: [[7], [19]],
      lookup: false,
    },
    {
      id: 'Q6',
      title: "orders of a security against the day's close (parquet)",
      sql:
        'SELECT o.order_id, o.trade_date, o.price, p.close, o.price - p.close AS diff FROM orders o ' +
        'JOIN prices p ON p.symbol = o.symbol AND p.day = o.trade_date WHERE o.symbol = $1 ORDER BY o.order_id',
      params: symbols,
      lookup: false,
      files: true,
    },
  ].filter((q) => !only || only.has(q.id));
}

// ---------------------------------------------------------------- data

interface DataMarker {
  readonly sf: number;
  readonly seed: number;
  readonly layout: Layout;
  readonly generator: string;
}

/** Writes the documents unless the folder's marker says they are there at this scale. */
async function prepareDocuments(): Promise<void> {
  const marker: DataMarker = { sf, seed: DEFAULT_SEED, layout, generator: TPOX_GENERATOR_VERSION };
  const file = path.join(dataDir, 'tpox.json');
  const existing = await readFile(file, 'utf8').then(JSON.parse, () => undefined);
  if (JSON.stringify(existing) === JSON.stringify(marker)) {
    note(`documents: already in ${dataDir}`);
    return;
  }
  const t0 = performance.now();
  await mkdir(dataDir, { recursive: true });
  const r = await writeTpox(dataDir, { sf, layout, parquet: true });
  await writeFile(file, JSON.stringify(marker));
  note(
    `documents: ${r.documents.customers} customers (${r.accounts} accounts, ${r.positions} positions), ${r.documents.orders} orders, ` +
      `${r.documents.securities} securities, ${r.prices} prices → ${dataDir} (${((performance.now() - t0) / 1000).toFixed(1)}s)`,
  );
}

async function ensureDatabase(): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE ${database}`);
  } finally {
    await c.end();
  }
}

/** The shredded tables and TPC-H's customer and nation, each skipped when its marker matches. */
async function prepareTables(): Promise<void> {
  await ensureDatabase();
  const c = createConnector(sourceConfig('tpch', PG_URL, database));
  try {
    const t0 = performance.now();
    const s = await shredTpox(c, { sf, prices: true });
    const [t] = await loadTpch([{ name: 'tpch', connector: c, tables: ['nation', 'customer'] }], { sf });
    note(
      `tables in ${database}: shredded ${
        s.skipped
          ? 'already loaded'
          : Object.entries(s.rows)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')
      }; ` +
        `TPC-H nation, customer ${t.skipped ? 'already loaded' : 'loaded'} (${((performance.now() - t0) / 1000).toFixed(1)}s)`,
    );
  } finally {
    await c.close();
  }
}

// ---------------------------------------------------------------- sources

function documentsConfig(): SourceConfig {
  return {
    name: 'tpox',
    engine: 'documents',
    options: { fileRoots: [dataDir], documents: { root: dataDir, tables: documentTables(layout) } },
  };
}

function filesConfig(): SourceConfig {
  return {
    name: 'files',
    engine: 'duckdb',
    options: { fileRoots: [dataDir], files: { root: dataDir, tables: [{ name: 'prices', path: PRICE_FILE }] } },
  };
}

async function register(config: SourceConfig): Promise<RegisteredSource> {
  const connector = createConnector(config);
  try {
    const semantics = await connector.probe();
    const catalog = await connector.introspect();
    return { name: config.name, connector, catalog, semantics };
  } catch (e) {
    await connector.close().catch(() => undefined);
    throw e;
  }
}

// ---------------------------------------------------------------- running

type Variant = 'direct' | 'junction' | 'mat' | 'jnpg';
const VARIANTS: readonly Variant[] = args.mat ? ['direct', 'junction', 'mat', 'jnpg'] : ['direct', 'junction', 'jnpg'];
const MAT_SCHEMA = 'mat';

/**
 * Each document table behind a view mat.<table>, materialized the way Junction's materializer
 * does it (apps/api/src/services/materializer.ts): the view's rows read through the engine,
 * bulk-loaded into a table of a PostgreSQL source, then Engine.setMaterialization, so queries on
 * the view read that table instead of the documents.
 */
async function materialize(engine: Engine, store: RegisteredSource): Promise<void> {
  const t0 = performance.now();
  const c = store.connector;
  for (const def of TPOX_TABLES) {
    const columns = engine.setView({ schema: MAT_SCHEMA, name: def.name, sql: `SELECT * FROM tpox.${def.name}` });
    const table = `mv_${def.name}`;
    await c.execute(`DROP TABLE IF EXISTS ${table}`);
    await c.execute(`CREATE TABLE ${table} (${def.columns.map((col) => `"${col.name}" ${col.type}`).join(', ')})`);
    const r = await engine.query(`SELECT * FROM tpox.${def.name}`, { cache: 'off' });
    await c.bulkLoad({ name: table, columns }, r.rows);
    if (args['mv-index'])
      for (const cols of [def.primaryKey, ...def.indexes])
        await c.execute(`CREATE INDEX ON ${table} (${cols.map((x) => `"${x}"`).join(', ')})`);
    await c.execute(`ANALYZE ${table}`);
  }
  engine.refreshSource(store.name, await c.introspect());
  for (const def of TPOX_TABLES)
    engine.setMaterialization(MAT_SCHEMA, def.name, {
      source: store.name,
      table: `mv_${def.name}`,
      refreshedAt: Date.now(),
      maxStalenessSeconds: 86_400,
    });
  note(
    `materialized views ${MAT_SCHEMA}.* stored in ${database}.mv_*${args['mv-index'] ? ' (indexed)' : ''} (${((performance.now() - t0) / 1000).toFixed(1)}s)`,
  );
}

interface Run {
  readonly ms: number;
  readonly rows?: readonly (readonly Value[])[];
  readonly stats?: QueryStats;
  readonly error?: string;
}

function note(s: string): void {
  process.stderr.write(s + '\n');
}

function out(s: string): void {
  process.stdout.write(s + '\n');
}

function fmt(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(2);
}

function errorText(e: unknown): string {
  const err = e as { code?: string; message?: string };
  return `${err.code ?? 'error'}: ${(err.message ?? String(e)).replace(/\s+/g, ' ')}`;
}

/** a row as text whichever side produced it: Junction's bigint and the driver's int8 string print alike */
function rowText(row: readonly Value[]): string {
  return row.map((v) => (v === null ? 'NULL' : String(v))).join(' | ');
}

/** "same", or what differs: exact rows, in order when the query orders them */
function compareRows(sql: string, direct: readonly (readonly Value[])[], got: readonly (readonly Value[])[]): string {
  const ordered = /\bORDER BY\b/i.test(sql);
  const a = direct.map(rowText);
  const b = got.map(rowText);
  if (!ordered) {
    a.sort();
    b.sort();
  }
  if (a.length !== b.length) return `DIFFERS: ${b.length} rows, direct ${a.length}`;
  const i = a.findIndex((x, k) => x !== b[k]);
  return i < 0 ? 'same' : `DIFFERS at row ${i + 1}: ${b[i]} vs direct ${a[i]}`;
}

async function main(): Promise<void> {
  const started = performance.now();
  if (!args['skip-load']) {
    await prepareDocuments();
    await prepareTables();
  }
  const list = queries();
  const sources: RegisteredSource[] = [];
  const engine = new Engine();
  const viaPg = new Engine();
  let files = true;
  try {
    const tpch = await register(sourceConfig('tpch', PG_URL, database));
    sources.push(tpch);
    engine.addSource(tpch);
    viaPg.addSource(tpch);
    const docs = await register(documentsConfig());
    sources.push(docs);
    engine.addSource(docs);
    try {
      const f = await register(filesConfig());
      sources.push(f);
      engine.addSource(f);
    } catch (e) {
      files = false;
      note(
        `the files source (prices.parquet through engine 'duckdb') is unavailable, queries on it are skipped: ${errorText(e)}`,
      );
    }
  } catch (e) {
    await Promise.allSettled(sources.map((s) => s.connector.close()));
    throw e;
  }
  // a fresh documents source: its row cache empty, so the next query's first execution is cold
  const reopenDocuments = async (): Promise<void> => {
    const i = sources.findIndex((s) => s.name === 'tpox');
    await sources[i].connector.close();
    engine.removeSource('tpox');
    sources[i] = await register(documentsConfig());
    engine.addSource(sources[i]);
  };
  const searchPath = files ? ['tpox', 'files', 'tpch'] : ['tpox', 'tpch'];
  const matPath = [MAT_SCHEMA, ...searchPath];
  if (args.mat) await materialize(engine, sources[0]);

  const u = new URL(PG_URL);
  u.pathname = '/' + database;
  const pool = new pg.Pool({ connectionString: u.toString(), max: 2 });

  const runDirect = async (id: string, sql: string, params: readonly Value[]): Promise<Run> => {
    const t0 = performance.now();
    try {
      const r = await pool.query({
        name: `tpox_${id}`,
        text: sql,
        values: params as unknown[],
        rowMode: 'array',
        types: DIRECT_TYPES,
      });
      return { ms: performance.now() - t0, rows: r.rows as Value[][] };
    } catch (e) {
      return { ms: performance.now() - t0, error: errorText(e) };
    }
  };
  const runEngine = async (e: Engine, path: readonly string[], sql: string, params: readonly Value[]): Promise<Run> => {
    const t0 = performance.now();
    let stats: QueryStats | undefined;
    try {
      const r = await e.query(sql, { params, searchPath: path, cache: 'off', timeoutMs });
      const rows: Value[][] = [];
      try {
        for await (const b of r.rows) for (const row of b) rows.push(row);
      } finally {
        stats = r.stats();
      }
      return { ms: performance.now() - t0, rows, stats };
    } catch (err) {
      return { ms: performance.now() - t0, stats, error: errorText(err) };
    }
  };
  const run = (v: Variant, q: BenchQuery, params: readonly Value[]): Promise<Run> =>
    v === 'direct'
      ? runDirect(q.id, q.sql, params)
      : v === 'junction'
        ? runEngine(engine, searchPath, q.sql, params)
        : v === 'mat'
          ? runEngine(engine, matPath, q.sql, params)
          : runEngine(viaPg, ['tpch'], q.sql, params);

  out(
    `TPoX documents (engine 'documents', layout ${layout}) vs the same data shredded into PostgreSQL, SF ${sf}: ` +
      `${scale.customers.toLocaleString('en-US')} customers, ${scale.orders.toLocaleString('en-US')} orders, ${scale.securities} securities; ` +
      `median of ${runs} round${runs === 1 ? '' : 's'} over each query's parameters (ms per execution)`,
  );
  out(`goal: filtered lookups through Junction over the documents within ${GOAL}× of the shredded tables (direct)`);
  if (args.mat)
    out(
      `jn mat: the document tables as materialized views stored in PostgreSQL${args['mv-index'] ? ", with the shredded tables' indexes added (--mv-index)" : ' (no index, as the materializer stores them)'}`,
    );
  out('');
  out(
    `query | what | params | rows | direct ms | junction ms | junction÷direct | jn cold ms${args.mat ? ' (after the materialization read)' : ''} | jn mat ms | jn mat÷direct | jn→pg ms | jn→pg÷direct | answers | sent to the documents source`,
  );

  const failures: string[] = [];
  const differs: string[] = [];
  const goal: { id: string; ratio?: number; mat?: number; cold?: number }[] = [];
  for (const q of list) {
    if (q.files && !files) {
      out(`${q.id} | ${q.title} | | | | | | | | | skipped: no files source |`);
      continue;
    }
    const times: Record<Variant, number[]> = { direct: [], junction: [], mat: [], jnpg: [] };
    const failed = new Map<Variant, string>();
    const answers: string[] = [];
    let rows = 0;
    let sent = '';
    let cold: number | undefined;
    if (!args.mat) await reopenDocuments();
    // unmeasured: every parameter once per variant, answers compared
    for (const params of q.params) {
      const got = new Map<Variant, Run>();
      for (const v of VARIANTS) {
        const r = await run(v, q, params);
        got.set(v, r);
        if (r.error && !failed.has(v)) failed.set(v, r.error);
      }
      const d = got.get('direct')!;
      rows += d.rows?.length ?? 0;
      // the materialized variant must not read a document: that would be the view's own SQL again
      const readDocs = got.get('mat')?.stats?.sourceStatements.some((x) => x.source === 'tpox');
      if (readDocs && !failed.has('mat')) failed.set('mat', 'read the documents: the materialization was not used');
      const j = got.get('junction')!;
      if (cold === undefined && !j.error) cold = j.ms;
      if (!sent && j.stats)
        sent = j.stats.sourceStatements
          .filter((s) => s.source === 'tpox')
          .map((s) => `${s.sql} (${s.rows} rows)`)
          .join('; ');
      if (args.verbose && j.stats)
        for (const s of j.stats.sourceStatements)
          note(`${q.id} ${JSON.stringify(params)} → ${s.source} (${s.rows} rows, ${fmt(s.timeMs)} ms): ${s.sql}`);
      if (args.check && d.rows) {
        for (const v of ['junction', 'mat', 'jnpg'] as const) {
          const r = got.get(v);
          if (!r?.rows) continue;
          const c = compareRows(q.sql, d.rows, r.rows);
          if (c !== 'same') {
            differs.push(`${q.id} ${v} ${JSON.stringify(params)}: ${c}`);
            answers.push(`${v} ${c}`);
          }
        }
      }
    }
    for (const [v, e] of failed) failures.push(`${q.id} ${v}: ${e}`);
    for (let i = 0; i < runs; i++)
      for (const params of q.params)
        for (const v of VARIANTS) {
          if (failed.has(v)) continue;
          const r = await run(v, q, params);
          if (r.error) failed.set(v, r.error);
          else times[v].push(r.ms);
        }
    const ms = (v: Variant): number | undefined =>
      failed.has(v) || times[v].length === 0 ? undefined : median(times[v]);
    const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
      a === undefined || b === undefined || b === 0 ? undefined : a / b;
    const r = ratio(ms('junction'), ms('direct'));
    const rm = ratio(ms('mat'), ms('direct'));
    if (q.lookup)
      goal.push({ id: q.id, ratio: r, mat: rm, cold: ratio(failed.has('junction') ? undefined : cold, ms('direct')) });
    const cell = (v: Variant): string => (failed.has(v) ? 'FAILED' : fmt(ms(v)));
    out(
      [
        q.id,
        q.title,
        q.params.map((p) => p.join(',')).join(' / '),
        rows,
        cell('direct'),
        cell('junction'),
        r === undefined ? '–' : r.toFixed(1),
        failed.has('junction') ? 'FAILED' : fmt(cold),
        cell('mat'),
        rm === undefined ? '–' : rm.toFixed(1),
        cell('jnpg'),
        ratio(ms('jnpg'), ms('direct'))?.toFixed(1) ?? '–',
        !args.check ? 'not checked' : answers.length ? answers.join('; ') : failed.size ? '–' : 'same',
        sent,
      ].join(' | '),
    );
  }

  out('');
  const missed = goal.filter((g) => g.ratio === undefined || g.ratio > GOAL);
  out(
    `goal "filtered lookups within ${GOAL}× of the shredded tables": ${
      missed.length === 0
        ? `met on all ${goal.length} (${goal.map((g) => `${g.id} ${g.ratio!.toFixed(1)}×`).join(', ')})`
        : `MISSED on ${missed.length} of ${goal.length}: ${missed.map((g) => `${g.id} ${g.ratio === undefined ? 'failed' : `${g.ratio.toFixed(1)}×`}`).join(', ')}`
    }`,
  );
  out(
    `the first execution${args.mat ? ' (after the materialization read every table)' : ', the documents source just opened (documents parsed)'}: ` +
      goal.map((g) => `${g.id} ${g.cold === undefined ? 'failed' : `${g.cold.toFixed(0)}×`}`).join(', '),
  );
  const matMissed = goal.filter((g) => g.mat === undefined || g.mat > GOAL);
  if (args.mat)
    out(
      `with the documents materialized${args['mv-index'] ? ' (indexed)' : ''}: ${
        matMissed.length === 0
          ? `within ${GOAL}× on all ${goal.length}`
          : `over ${GOAL}× on ${matMissed.length} of ${goal.length}`
      } (${goal.map((g) => `${g.id} ${g.mat === undefined ? 'failed' : `${g.mat.toFixed(1)}×`}`).join(', ')})`,
    );
  out(`failures: ${failures.length ? `\n  ${failures.join('\n  ')}` : 'none'}`);
  out(`answers differing from direct: ${differs.length ? `\n  ${differs.join('\n  ')}` : 'none'}`);
  out(`wall time ${((performance.now() - started) / 1000).toFixed(0)} s`);

  await engine.close();
  await viaPg.close();
  await pool.end();
  await Promise.allSettled(sources.map((s) => s.connector.close()));
  if (differs.length || failures.length) process.exitCode = 1;
}

main().then(
  () => process.exit(),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
