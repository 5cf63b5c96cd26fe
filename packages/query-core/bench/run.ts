/**
 * npm run bench -- [--sf 1] [--runs 5] [--h-seconds 10] [--skip-load] [--only A,B,H] [--no-check]
 *                   [--rest [--rss-seconds 60]]
 *
 * The JDV benchmark (@junction/tpch's workload/jdv): queries A–F single-user (the first run,
 * then the median of N warm runs), H at 1, 4 and 16 concurrent clients (a random c_custkey per
 * execution), and peak RSS while 8 users run G. Each is measured direct (the native driver on
 * the one-database PostgreSQL copy, prepared statements, values decoded as Junction decodes
 * them), through Junction over that single source (use case 1), and through Junction over the
 * four-source layout (dbA, dbB on PostgreSQL; dbC, dbD on MariaDB). Unless --no-check, every
 * Junction answer is compared with the direct one (row count and an order-independent
 * checksum) and a difference fails the run.
 * Data comes from @junction/tpch's loader into databases of the benchmark's own
 * (jbench_<sf>_a … _d, jbench_<sf>_direct), so tests loading the shared demo databases
 * never disturb it; a target already loaded at this scale is skipped.
 * --rest adds the REST API, as a program embedding Junction uses it (apps/api/bench/rest.ts:
 * the real server in a child process, a Bearer token, keep-alive HTTP, JSON and NDJSON), to
 * A–F and H in the same run, with H's p50/p99 and errors; --rss-seconds then runs H × 16
 * through REST for that long and reports the server's peak RSS.
 */
import { parseArgs } from 'node:util';
import type { Connector, Value } from '@junction/connectors';
import { jdvWorkload, paramMax } from '@junction/tpch';
import { Engine } from '../src/engine.js';
import { rewriteOdbc } from '../src/sql/odbc.js';
import { Digester, type AnswerDigest } from './answer.js';
import { median } from './measure.js';
import { DIRECT_TYPES, PLACEMENT, benchDatabase, benchSource, directPool as openDirectPool, prepareBenchData, mariadbCacheNote } from './databases.js';

const { values: args } = parseArgs({
  options: {
    sf: { type: 'string', default: '1' },
    runs: { type: 'string', default: '5' },
    'h-seconds': { type: 'string', default: '10' },
    'skip-load': { type: 'boolean', default: false },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    check: { type: 'boolean', default: true },
    rest: { type: 'boolean', default: false },
    'rss-seconds': { type: 'string', default: '0' },
  },
  allowNegative: true,
});
const sf = Number(args.sf);
const runs = Number(args.runs);
const hSeconds = Number(args['h-seconds']);
const only = args.only ? new Set(args.only.split(',')) : undefined;
const want = (q: string): boolean => !only || only.has(q);
const workload = jdvWorkload(sf);

function sqlOf(q: string, kind: 'direct' | 'federated'): string {
  return workload.query(q)[kind];
}

async function drain(engine: Engine, sql: string, params: readonly Value[] = []): Promise<number> {
  const r = await engine.query(sql, { params });
  let n = 0;
  for await (const b of r.rows) n += b.length;
  return n;
}

async function digestEngine(engine: Engine, sql: string, params: readonly Value[] = []): Promise<AnswerDigest> {
  const r = await engine.query(sql, { params });
  const d = new Digester();
  for await (const b of r.rows) for (const row of b) d.add(row);
  return d.digest();
}

async function timeIt(fn: () => Promise<number>): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const rows = await fn();
  return { ms: performance.now() - t0, rows };
}

/**
 * The first run of each variant (Junction parses, binds and optimizes it then; the direct
 * statement is prepared then), then `runs` rounds, each running every variant once in turn: on
 * a shared machine a burst of load then hits all variants alike instead of one block.
 */
async function measureInterleaved(
  fns: readonly (() => Promise<number>)[],
): Promise<{ first: number; ms: number; rows: number }[]> {
  const first: number[] = [];
  for (const fn of fns) first.push((await timeIt(fn)).ms);
  const times = fns.map(() => [] as number[]);
  const rows = fns.map(() => 0);
  for (let i = 0; i < runs; i++) {
    for (let v = 0; v < fns.length; v++) {
      const r = await timeIt(fns[v]);
      times[v].push(r.ms);
      rows[v] = r.rows;
    }
  }
  return fns.map((_, v) => ({ first: first[v], ms: median(times[v]), rows: rows[v] }));
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
  const dbName = (target: string): string => benchDatabase(sf, target);
  const placement = PLACEMENT;
  await prepareBenchData(sf, !args['skip-load']);
  const cacheNote = await mariadbCacheNote(sf);
  if (cacheNote) process.stdout.write(`${cacheNote}\n`);
  const connectors: Connector[] = [];
  const connect = async (name: string) => {
    const s = await benchSource(sf, name);
    connectors.push(s.connector);
    return s;
  };
  const single = new Engine();
  single.addSource(await connect('direct'));
  const fed = new Engine();
  for (const t of ['dbA', 'dbB', 'dbC', 'dbD']) fed.addSource(await connect(t));

  const directPool = openDirectPool(sf);
  // The strongest baseline a program has: the native driver, a prepared statement per query
  // (each connection prepares it on first use), rows as arrays, values decoded as Junction's
  // connector decodes them (dates as text, not Date objects; int8 and numeric as text).
  const directRows = async (q: string, sql: string, params: readonly Value[]): Promise<unknown[][]> =>
    (await directPool.query({ name: `jdv_${q}`, text: sql, values: params as unknown[], rowMode: 'array', types: DIRECT_TYPES })).rows;
  const direct = async (q: string, sql: string, params: readonly Value[] = []): Promise<number> =>
    (await directRows(q, sql, params)).length;
  const digestDirect = async (q: string, sql: string, params: readonly Value[] = []): Promise<AnswerDigest> => {
    const d = new Digester();
    for (const row of await directRows(q, sql, params)) d.add(row as Value[]);
    return d.digest();
  };
  // Junction over the single source: the direct SQL with each table qualified by the source
  const singleSql = (q: string): string => sqlOf(q, 'direct').replace(/\b(FROM|JOIN|,)\s+(region|nation|supplier|partsupp|part|customer|orders|lineitem)\b/g, '$1 direct.$2');

  const lines: string[] = [];
  const out = (s: string): void => {
    lines.push(s);
    process.stdout.write(s + '\n');
  };
  const failures: string[] = [];
  /** The answers of Junction over one and over four sources must be the direct answer. */
  const check = async (q: string, params: readonly Value[], directSql: string, singleQuery: string, fedQuery: string): Promise<string> => {
    if (!args.check) return '';
    const [d, s, f] = [await digestDirect(q, directSql, params), await digestEngine(single, singleQuery, params), await digestEngine(fed, fedQuery, params)];
    const bad = [['1 source', s], ['4 sources', f]].filter(([, x]) => (x as AnswerDigest).checksum !== d.checksum || (x as AnswerDigest).rows !== d.rows);
    for (const [name, x] of bad) failures.push(`${q}${params.length ? ` ${JSON.stringify(params)}` : ''}: Junction ${name} answered ${(x as AnswerDigest).rows} rows (checksum ${(x as AnswerDigest).checksum}), direct ${d.rows} rows (checksum ${d.checksum})`);
    if (d.rows === 0) return 'EMPTY (checks nothing)';
    return bad.length ? 'DIFFERS' : 'same';
  };

  const adjusted = workload.queries.filter((q) => q.adjusted.length > 0).map((q) => q.id);
  out(`JDV benchmark, SF ${sf}: first run, then the median of ${runs} interleaved warm runs (ms)`);
  if (adjusted.length) out(`constants adjusted for SF < 1 (the study's select nothing there): ${adjusted.join(', ')}`);
  out(`query | rows | direct first | direct | Junction 1 source first | Junction 1 source | ÷ direct | Junction 4 sources first | Junction 4 sources | ÷ direct${args.check ? ' | answers' : ''}`);
  let totalDirect = 0;
  let totalFed = 0;
  for (const q of ['A', 'B', 'C', 'D', 'E', 'F']) {
    if (!want(q)) continue;
    const directSql = rewriteOdbc(sqlOf(q, 'direct')).text;
    const [d, s, f] = await measureInterleaved([
      () => direct(q, directSql),
      () => drain(single, singleSql(q)),
      () => drain(fed, sqlOf(q, 'federated')),
    ]);
    totalDirect += d.ms;
    totalFed += f.ms;
    const rowsNote = d.rows === s.rows && d.rows === f.rows ? String(d.rows) : `${d.rows}/${s.rows}/${f.rows}`;
    const answers = await check(q, [], directSql, singleSql(q), sqlOf(q, 'federated'));
    out(`${q} | ${rowsNote} | ${fmt(d.first)} | ${fmt(d.ms)} | ${fmt(s.first)} | ${fmt(s.ms)} | ${(s.ms / d.ms).toFixed(2)} | ${fmt(f.first)} | ${fmt(f.ms)} | ${(f.ms / d.ms).toFixed(2)}${args.check ? ` | ${answers}` : ''}`);
    if (args.verbose) {
      const e = await fed.explain(sqlOf(q, 'federated'), { analyze: true });
      process.stdout.write(e.text + '\n');
    }
  }
  if (totalDirect > 0) out(`A–F total (warm) | | | ${fmt(totalDirect)} | | | | | ${fmt(totalFed)} | ${(totalFed / totalDirect).toFixed(2)}`);

  if (want('H')) {
    const [keyParam] = workload.query('H').params;
    const customers = paramMax(keyParam, sf);
    const key = (): number => keyParam.min + Math.floor(Math.random() * (customers - keyParam.min + 1));
    const hDirect = sqlOf('H', 'direct');
    const hSingle = singleSql('H');
    const hFed = sqlOf('H', 'federated');
    if (args.check) {
      const keys = [keyParam.example, key(), key()];
      const results = [];
      for (const k of keys) results.push(`${k}: ${await check('H', [k], hDirect, hSingle, hFed)}`);
      out('');
      out(`H answers for c_custkey ${results.join(', ')}`);
    }
    out('');
    out(`H (one random c_custkey per execution), executions/s over ${hSeconds} interleaved 1 s slices per variant`);
    out('clients | direct | Junction 1 source | ÷ direct | Junction 4 sources | ÷ direct');
    for (const clients of [1, 4, 16]) {
      const [d, s, f] = await throughputInterleaved(clients, hSeconds, [
        () => direct('H', hDirect, [key()]),
        () => drain(single, hSingle, [key()]),
        () => drain(fed, hFed, [key()]),
      ]);
      out(`${clients} | ${d.toFixed(1)} | ${s.toFixed(1)} | ${(s / d).toFixed(2)} | ${f.toFixed(1)} | ${(f / d).toFixed(2)}`);
    }
  }

  if (args.rest) {
    // loaded only for --rest: it starts the API server (apps/api/bench/rest.ts)
    const { restSection } = await import('../../../apps/api/bench/rest.js');
    out('');
    await restSection({
      sf,
      runs,
      hSeconds,
      rssSeconds: Number(args['rss-seconds']),
      want,
      out,
      workload,
      sqlOf,
      singleSql,
      placement: Object.fromEntries(Object.entries(placement).map(([t, url]) => [t, [url, dbName(t)]])),
      direct: (q, sql, params) => direct(q, sql, params),
      fed: (sql, params) => drain(fed, sql, params),
      single: (sql, params) => drain(single, sql, params),
    });
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
  if (failures.length) throw new Error(`Junction's answers differ from the direct ones:\n  ${failures.join('\n  ')}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
