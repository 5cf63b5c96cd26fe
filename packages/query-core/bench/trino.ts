/**
 * npm run bench -- --trino [--sf 1] [--runs 3] [--only-tpch 1,5] [--only-jdv A,B] [--skip-tpch] [--skip-jdv]
 *                  [--timeout-s 600] [--trino-url URL] [--auto-rows N] [--spill-query 5] [--spill-budget-mb 256]
 *                  [--spill-runs 1] [--skip-spill] [--skip-load] [--no-check]
 *
 * Local engine vs Trino vs direct, in one run, on the benchmark's databases (databases.ts):
 * TPC-H 1–22 (@junction/tpch's workload/tpch, unqualified names under the federated search
 * path) and JDV A–F (workload/jdv's federated form). Per query:
 *   direct  the native driver with a prepared statement on the one-database copy (jbench_<sf>_direct)
 *   local   Junction over the four sources dbA … dbD (engine 'local')
 *   trino   the same Junction engine with the query sent to Trino (engine 'trino'), Trino reading
 *           the same four databases through catalogs created here (jbench_<sf>_a … _d)
 * each `runs` times in interleaved rounds (direct, local, trino), the median reported; JDV's
 * queries, which take milliseconds, get one unmeasured round first. Then `auto` runs once:
 * which engine it chose, its reason, and whether that was the faster of local and trino by the
 * medians. Every answer is compared with direct's (row count and an order-independent checksum)
 * unless --no-check; a difference prints the statements sent. A query that fails or passes
 * --timeout-s is reported and the run goes on.
 * Then the memory-budget case: one TPC-H query (--spill-query) with pushdown off under a per-query
 * budget (--spill-budget-mb, by default the engine's own), so the local engine fetches base tables and spills,
 * against the same query through Trino, and what `auto` chose under those options.
 * The last line answers the issue's goal: the queries where `auto` picked the slower engine.
 * Trino: --trino-url, else TRINO_URL, else the repository's own (`bash scripts/trino.sh start`).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { TrinoConnector, type Connector, type Row, type Value } from '@junction/connectors';
import { jdvWorkload, tpchFederatedSearchPath, tpchQueries } from '@junction/tpch';
import { catalogDefinition, type CatalogDefinition } from '../../../apps/api/src/services/trino-catalogs.js';
import type { BackendTable, ExecutionBackend, QueryOptions, QueryStats } from '../src/api.js';
import { Engine } from '../src/engine.js';
import { rewriteOdbc } from '../src/sql/odbc.js';
import { Digester, type AnswerDigest } from './answer.js';
import { median, withPeakRss } from './measure.js';
import { DIRECT_TYPES, PLACEMENT, benchDatabase, benchSource, directPool, prepareBenchData, sourceConfig } from './databases.js';

const { values: args } = parseArgs({
  options: {
    trino: { type: 'boolean', default: false },
    sf: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    'only-tpch': { type: 'string' },
    'only-jdv': { type: 'string' },
    'skip-tpch': { type: 'boolean', default: false },
    'skip-jdv': { type: 'boolean', default: false },
    'skip-spill': { type: 'boolean', default: false },
    'skip-load': { type: 'boolean', default: false },
    'timeout-s': { type: 'string', default: '600' },
    'trino-url': { type: 'string' },
    'auto-rows': { type: 'string' },
    'spill-query': { type: 'string', default: '5' },
    'spill-budget-mb': { type: 'string', default: '256' },
    'spill-runs': { type: 'string', default: '1' },
    check: { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const sf = Number(args.sf);
const runs = Math.max(1, Number(args.runs));
const timeoutMs = Number(args['timeout-s']) * 1000;
const onlyTpch = args['only-tpch'] ? new Set(args['only-tpch'].split(',').map((x) => Number(x.trim().replace(/^q/i, '')))) : undefined;
const onlyJdv = args['only-jdv'] ? new Set(args['only-jdv'].split(',').map((x) => x.trim().toUpperCase())) : undefined;
const spillQuery = Number(args['spill-query'].replace(/^q/i, ''));
const spillBudget = Number(args['spill-budget-mb']) * 1024 * 1024;
const spillRuns = Math.max(1, Number(args['spill-runs']));
const MB = 1024 * 1024;
const SOURCES = ['dbA', 'dbB', 'dbC', 'dbD'] as const;
const TRINO_SCRIPT = fileURLToPath(new URL('../../../scripts/trino.sh', import.meta.url));

type Variant = 'direct' | 'local' | 'trino';

/** One execution: its time to the last row, or why it did not finish. */
interface Run {
  readonly ms: number;
  readonly digest?: AnswerDigest;
  readonly stats?: QueryStats;
  readonly error?: string;
  readonly timedOut?: boolean;
  readonly peakRss?: number;
}

interface Measured {
  readonly direct: Outcome;
  readonly local: Outcome;
  readonly trino: Outcome;
}

interface Outcome {
  readonly runs: readonly Run[];
  /** median of the finished runs; undefined when none finished */
  readonly ms?: number;
  readonly last?: Run;
  readonly error?: string;
  readonly timedOut?: boolean;
}

function fmt(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || b === 0 ? '–' : (a / b).toFixed(2);
}

function errorText(e: unknown): string {
  const err = e as { code?: string; message?: string };
  return `${err.code ?? 'error'}: ${(err.message ?? String(e)).replace(/\s+/g, ' ')}`;
}

function isTimeout(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return /timeout|timed out|statement_timeout|canceling statement/i.test(`${err.code ?? ''} ${err.message ?? ''}`);
}

function outcome(list: readonly Run[]): Outcome {
  const done = list.filter((r) => r.error === undefined);
  const failed = list.find((r) => r.error !== undefined);
  return {
    runs: list,
    ...(done.length ? { ms: median(done.map((r) => r.ms)), last: done[done.length - 1] } : {}),
    ...(failed ? { error: failed.error, timedOut: failed.timedOut } : {}),
  };
}

function digestOf(rows: readonly (readonly Value[])[]): AnswerDigest {
  const d = new Digester();
  for (const r of rows) d.add(r);
  return d.digest();
}

/** Starts the repository's Trino (a no-op when it already serves) and returns its URL. */
async function trinoUrl(): Promise<URL> {
  const given = args['trino-url'] ?? process.env.TRINO_URL;
  if (given) return new URL(given);
  await new Promise<void>((resolve, reject) =>
    execFile('bash', [TRINO_SCRIPT, 'start'], { timeout: 600_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`bash scripts/trino.sh start failed: ${err.message}\n${stderr}`)) : resolve(),
    ),
  );
  return new URL(`http://127.0.0.1:${process.env.TRINO_PORT ?? '8088'}`);
}

/** Which sources the statements went to: "yes" when every one went to Trino. */
function onTrino(stats: QueryStats | undefined): string {
  if (!stats) return '–';
  const counts = new Map<string, number>();
  for (const s of stats.sourceStatements) counts.set(s.source, (counts.get(s.source) ?? 0) + 1);
  const all = stats.engine === 'trino' && stats.sourceStatements.length > 0 && counts.size === 1 && counts.has('trino');
  if (all) return `yes (${stats.sourceStatements.length} stmt)`;
  return `NO: ${[...counts].map(([s, n]) => `${s}×${n}`).join(', ') || 'no statements'}`;
}

/** Rows the statements of a run fetched from the sources (what auto's estimate predicts for a local run). */
function fetched(stats: QueryStats | undefined): string {
  return stats ? stats.sourceStatements.reduce((n, x) => n + x.rows, 0).toLocaleString('en-US') : '–';
}

interface Judged {
  readonly id: string;
  readonly picked: string;
  readonly faster?: string;
  readonly factor?: number;
}

/** Whether auto's engine was the faster of local and trino by the medians (a failure or timeout is the slowest). */
function judge(id: string, picked: string | undefined, local: Outcome, trino: Outcome): Judged | undefined {
  if (picked === undefined) return undefined;
  const l = local.ms !== undefined && !local.error ? local.ms : Infinity;
  const t = trino.ms !== undefined && !trino.error ? trino.ms : Infinity;
  if (l === Infinity && t === Infinity) return { id, picked };
  const faster = l <= t ? 'local' : 'trino';
  const [mine, other] = picked === 'trino' ? [t, l] : [l, t];
  return { id, picked, faster, factor: mine / other };
}

function judgement(j: Judged | undefined): string {
  if (!j) return '–';
  if (!j.faster) return 'n/a (both failed)';
  if (j.picked === j.faster) return 'yes';
  return `NO (${j.faster} faster, ${j.factor === Infinity ? 'picked one failed' : `${j.factor!.toFixed(2)}×`})`;
}

async function main(): Promise<void> {
  const started = performance.now();
  const out = (s: string): void => void process.stdout.write(s + '\n');
  const note = (s: string): void => void process.stderr.write(s + '\n');
  await prepareBenchData(sf, !args['skip-load']);

  const url = await trinoUrl();
  const trino = new TrinoConnector({ name: 'trino', engine: 'trino', host: url.hostname, port: Number(url.port || 8080), user: 'junction' });
  const connectors: Connector[] = [trino];

  // the four sources, and a catalog for each on Trino reading the same database
  const engine = new Engine();
  const tables = new Map<string, BackendTable>();
  for (const name of SOURCES) {
    const s = await benchSource(sf, name);
    connectors.push(s.connector);
    engine.addSource(s);
    const def = catalogDefinition(sourceConfig(name, PLACEMENT[name], benchDatabase(sf, name)), s.semantics, benchDatabase(sf, name));
    if ('local' in def) throw new Error(`source ${name} cannot be read through Trino: ${def.reason}`);
    await createCatalog(trino, def);
    tables.set(name, { catalog: def.name, schema: def.schema });
  }
  const backend: ExecutionBackend = {
    name: 'trino',
    connector: trino,
    tableOf: (source) => tables.get(source) ?? { local: true, reason: 'the benchmark made no catalog for it' },
    ...(args['auto-rows'] ? { autoRowsThreshold: Number(args['auto-rows']) } : {}),
  };
  engine.setBackend(backend);

  const pool = directPool(sf, 4);
  // each connection's statements stop at the timeout, as the engine's do (SET before the pool hands it out)
  const connected = new WeakSet<object>();
  const withTimeout = async (): Promise<pg.PoolClient> => {
    const c = await pool.connect();
    if (!connected.has(c)) {
      await c.query(`SET statement_timeout = ${Math.round(timeoutMs)}`);
      connected.add(c);
    }
    return c;
  };

  const runDirect = async (name: string, sql: string): Promise<Run> => {
    const t0 = performance.now();
    try {
      const c = await withTimeout();
      try {
        const r = await c.query({ name, text: sql, rowMode: 'array', types: DIRECT_TYPES });
        const ms = performance.now() - t0;
        return { ms, digest: digestOf(r.rows as Value[][]) };
      } finally {
        c.release();
      }
    } catch (e) {
      return { ms: performance.now() - t0, error: errorText(e), timedOut: isTimeout(e) };
    }
  };
  const runEngine = async (sql: string, options: QueryOptions): Promise<Run> => {
    const t0 = performance.now();
    let stats: QueryStats | undefined;
    try {
      const { value: rows, peakRss } = await withPeakRss(async () => {
        const r = await engine.query(sql, { timeoutMs, ...options });
        const got: Row[] = [];
        try {
          for await (const b of r.rows) for (const row of b) got.push(row);
        } finally {
          stats = r.stats();
        }
        return got;
      });
      const ms = performance.now() - t0;
      return { ms, digest: digestOf(rows), stats, peakRss };
    } catch (e) {
      const error = errorText(e);
      note(`${options.engine ?? 'engine'} failed after ${fmt(performance.now() - t0)} ms: ${error}\n  query: ${sql.replace(/\s+/g, ' ')}`);
      for (const s of stats?.sourceStatements ?? []) note(`  sent to ${s.source} (${s.rows} rows): ${s.sql}`);
      return { ms: performance.now() - t0, stats, error, timedOut: isTimeout(e) };
    }
  };

  const failures: string[] = [];
  const differs: string[] = [];
  const judged: Judged[] = [];
  /** "same", or "DIFFERS" with the difference recorded and the statements sent printed */
  const compare = (id: string, what: string, direct: Run | undefined, got: Run | undefined): string => {
    if (!args.check) return 'not checked';
    if (!direct?.digest || !got?.digest) return '–';
    const d = direct.digest;
    const g = got.digest;
    if (d.rows === g.rows && d.checksum === g.checksum) return d.rows === 0 ? 'empty' : 'same';
    differs.push(`${id} ${what}: ${g.rows} rows (checksum ${g.checksum}), direct ${d.rows} rows (checksum ${d.checksum})`);
    note(`${id} ${what} DIFFERS from direct: ${g.rows} rows vs ${d.rows}; statements sent:`);
    for (const s of got.stats?.sourceStatements ?? []) note(`  [${s.source}, ${s.rows} rows] ${s.sql}`);
    return 'DIFFERS';
  };

  /** One query: interleaved rounds of direct, local and trino, then auto once. */
  const measure = async (
    id: string,
    directSql: string,
    federatedSql: string,
    options: QueryOptions,
    warmup: boolean,
  ): Promise<Measured> => {
    const fns: Record<Variant, () => Promise<Run>> = {
      direct: () => runDirect(`trino_bench_${id}`, directSql),
      local: () => runEngine(federatedSql, { ...options, engine: 'local' }),
      trino: () => runEngine(federatedSql, { ...options, engine: 'trino' }),
    };
    const variants: Variant[] = ['direct', 'local', 'trino'];
    const list: Record<Variant, Run[]> = { direct: [], local: [], trino: [] };
    const stopped = new Set<Variant>();
    if (warmup) for (const v of variants) if ((await fns[v]()).error) stopped.add(v);
    for (let i = 0; i < runs; i++) {
      for (const v of variants) {
        if (stopped.has(v) && list[v].length > 0) continue;
        const r = await fns[v]();
        list[v].push(r);
        // a failure or a timeout is not repeated
        if (r.error) stopped.add(v);
      }
    }
    const [d, l, t] = variants.map((v) => outcome(list[v]));
    const auto = await runEngine(federatedSql, { ...options, engine: 'auto' });
    const picked = auto.stats?.engine;
    const j = judge(id, picked, l, t);
    if (j) judged.push(j);
    for (const [v, o] of [['direct', d], ['local', l], ['trino', t], ['auto', outcome([auto])]] as const)
      if (o.error) failures.push(`${id} ${v}: ${o.timedOut ? 'TIMEOUT ' : ''}${o.error}`);
    const answers = [
      `local ${compare(id, 'local', d.last, l.last)}`,
      `trino ${compare(id, 'trino', d.last, t.last)}`,
      `auto ${compare(id, 'auto', d.last, auto.error ? undefined : auto)}`,
    ].join(', ');
    const cell = (o: Outcome): string => (o.ms !== undefined && !o.error ? fmt(o.ms) : o.timedOut ? `TIMEOUT(${fmt(o.runs[o.runs.length - 1].ms)})` : 'FAILED');
    const rows = d.last?.digest?.rows ?? l.last?.digest?.rows ?? t.last?.digest?.rows;
    const okMs = (o: Outcome): number | undefined => (o.error ? undefined : o.ms);
    const line = [
      id,
      rows ?? '–',
      cell(d),
      cell(l),
      cell(t),
      ratio(okMs(l), okMs(d)),
      ratio(okMs(t), okMs(d)),
      ratio(okMs(t), okMs(l)),
      fetched(l.last?.stats),
      onTrino(t.last?.stats ?? t.runs[0]?.stats),
      picked ? `${picked}${auto.error ? ' (FAILED)' : ''}` : `FAILED: ${auto.error?.slice(0, 80)}`,
      auto.error ? '–' : fmt(auto.ms),
      judgement(j),
      answers,
      auto.stats?.engineReason ?? '',
    ].join(' | ');
    out(line);
    return { direct: d, local: l, trino: t };
  };

  const header = 'query | rows | direct ms | local ms | trino ms | local÷direct | trino÷direct | trino÷local | rows local fetched | all on Trino | auto chose | auto ms (1 run) | auto picked faster | answers vs direct | auto reason';
  /** Sums over the queries all three variants finished. */
  const totals = (label: string, measured: readonly Measured[]): void => {
    const done = measured.filter((m) => [m.direct, m.local, m.trino].every((o) => o !== undefined && o.ms !== undefined && !o.error));
    const sum = (f: (m: Measured) => Outcome): number => done.reduce((n, m) => n + f(m).ms!, 0);
    const [d, l, t] = [sum((m) => m.direct), sum((m) => m.local), sum((m) => m.trino)];
    out(`${label} total (the ${done.length} of ${measured.length} queries all three finished) | | ${fmt(d)} | ${fmt(l)} | ${fmt(t)} | ${ratio(l, d)} | ${ratio(t, d)} | ${ratio(t, l)}`);
  };

  const threshold = backend.autoRowsThreshold;
  out(`Local engine vs Trino vs direct, SF ${sf}, Trino at ${url.origin}; median of ${runs} interleaved run${runs === 1 ? '' : 's'} (ms), timeout ${args['timeout-s']} s; auto's rows threshold: ${threshold ?? 'the engine default'}`);

  if (!args['skip-jdv']) {
    const workload = jdvWorkload(sf);
    out('');
    out(`JDV A–F (federated form over dbA … dbD; one unmeasured round first)`);
    out(header);
    const measured: Measured[] = [];
    for (const q of ['A', 'B', 'C', 'D', 'E', 'F']) {
      if (onlyJdv && !onlyJdv.has(q)) continue;
      const w = workload.query(q);
      measured.push(await measure(q, rewriteOdbc(w.direct).text, w.federated, {}, true));
    }
    totals('JDV', measured);
  }

  if (!args['skip-tpch']) {
    const searchPath = tpchFederatedSearchPath();
    out('');
    out(`TPC-H 1–22 (unqualified, search path ${searchPath.join(', ')})`);
    out(header);
    const measured: Measured[] = [];
    for (const q of tpchQueries(sf)) {
      if (onlyTpch && !onlyTpch.has(q.number)) continue;
      measured.push(await measure(q.id, q.sql, q.sql, { searchPath }, false));
    }
    totals('TPC-H', measured);
  }

  if (!args['skip-spill']) {
    const q = tpchQueries(sf).find((x) => x.number === spillQuery);
    if (!q) throw new Error(`--spill-query ${spillQuery}: TPC-H has queries 1–22`);
    const searchPath = tpchFederatedSearchPath();
    const options: QueryOptions = { searchPath, pushdown: false, memoryBudgetBytes: spillBudget };
    out('');
    out(`Memory budget: TPC-H ${q.id}, pushdown off, budget ${args['spill-budget-mb']} MB per query, ${spillRuns === 1 ? 'one run' : `median of ${spillRuns} runs`} each`);
    out('variant | ms | ÷ direct | engine | statements | rows fetched from sources | peak tracked memory MB | spilled MB | peak RSS MB | answer | reason');
    const direct = outcome(await repeat(() => runDirect(`trino_bench_spill_${q.id}`, q.sql)));
    const variants: [string, QueryOptions][] = [
      ['local (pushdown off, spilling)', { ...options, engine: 'local' }],
      ['trino (pushdown on)', { ...options, pushdown: true, engine: 'trino' }],
      ['trino (pushdown off)', { ...options, engine: 'trino' }],
      ['auto (pushdown off)', { ...options, engine: 'auto' }],
    ];
    out(`direct | ${direct.error ? direct.error : fmt(direct.ms)} | 1.00 | | | | | | | |`);
    const measured = new Map<string, Outcome>();
    for (const [label, o] of variants) {
      const r = outcome(await repeat(() => runEngine(q.sql, o), label.startsWith('auto') ? 1 : spillRuns));
      measured.set(label, r);
      const run = r.last ?? r.runs[r.runs.length - 1];
      const s = run?.stats;
      if (r.error) failures.push(`${q.id} memory budget, ${label}: ${r.timedOut ? 'TIMEOUT ' : ''}${r.error}`);
      out(
        [
          label,
          r.error ? `${r.timedOut ? 'TIMEOUT' : 'FAILED'} after ${fmt(run?.ms)}: ${r.error.slice(0, 160)}` : fmt(r.ms),
          r.error ? '–' : ratio(r.ms, direct.ms),
          s?.engine ?? '–',
          s ? onTrino(s) : '–',
          fetched(s),
          s ? (s.peakMemoryBytes / MB).toFixed(1) : '–',
          s ? (s.spilledBytes / MB).toFixed(1) : '–',
          run?.peakRss ? (run.peakRss / MB).toFixed(0) : '–',
          compare(`${q.id} memory budget`, label, direct.last, r.error ? undefined : r.last),
          s?.engineReason ?? '',
        ].join(' | '),
      );
    }
    const local = measured.get(variants[0][0])!;
    const spilled = local.last?.stats?.spilledBytes ?? 0;
    if (!local.error && spilled === 0)
      out(`note: the local run did not spill (peak ${((local.last?.stats?.peakMemoryBytes ?? 0) / MB).toFixed(1)} MB): this is not the memory-budget case; lower --spill-budget-mb or pick another --spill-query`);
    const auto = measured.get(variants[3][0])!;
    const picked = (auto.last ?? auto.runs[0])?.stats?.engine;
    // auto chooses between the two plans of the options it was given (pushdown off): local or on Trino
    const j = judge(`${q.id} (memory budget)`, picked, local, measured.get(variants[2][0])!);
    if (j) judged.push(j);
    const okMs = (o: Outcome): number | undefined => (o.error ? undefined : o.ms);
    out(
      `memory budget: trino (pushdown on) ÷ local spilling = ${ratio(okMs(measured.get(variants[1][0])!), okMs(local))}, trino (pushdown off) ÷ local spilling = ${ratio(okMs(measured.get(variants[2][0])!), okMs(local))}; auto (pushdown off) chose ${picked ?? '–'}: the faster of local and trino under pushdown off: ${judgement(j)}`,
    );
  }

  out('');
  const wrong = judged.filter((j) => j.faster && j.picked !== j.faster);
  out(`goal "auto never picks the slower": ${wrong.length === 0 ? `met on all ${judged.length} queries judged` : `MISSED on ${wrong.length} of ${judged.length}: ${wrong.map((j) => `${j.id} (chose ${j.picked}, ${j.factor === Infinity ? 'which failed' : `${j.factor!.toFixed(2)}× the ${j.faster} time`})`).join(', ')}`}`);
  out(`failures: ${failures.length ? `\n  ${failures.join('\n  ')}` : 'none'}`);
  out(`answers differing from direct: ${differs.length ? `\n  ${differs.join('\n  ')}` : 'none'}`);
  out(`wall time ${((performance.now() - started) / 1000).toFixed(0)} s`);

  await engine.close();
  await pool.end();
  await Promise.allSettled(connectors.map((c) => c.close()));
  if (differs.length) process.exitCode = 1;
}

async function repeat(fn: () => Promise<Run>, n = spillRuns): Promise<Run[]> {
  const list: Run[] = [];
  for (let i = 0; i < n; i++) {
    const r = await fn();
    list.push(r);
    if (r.error) break;
  }
  return list;
}

/** The source's catalog on Trino, made afresh (DROP CATALOG IF EXISTS, CREATE CATALOG), then checked by listing its schemas. */
async function createCatalog(trino: TrinoConnector, def: CatalogDefinition): Promise<void> {
  await trino.execute(`DROP CATALOG IF EXISTS ${def.name}`);
  await trino.execute(def.sql);
  const schemas = (await trino.execute(`SHOW SCHEMAS FROM ${def.name}`)).rows.map((r) => String(r[0]).toLowerCase());
  if (!schemas.includes(def.schema.toLowerCase()))
    throw new Error(`Trino's catalog ${def.name} has no schema ${def.schema} (it has ${schemas.join(', ')})`);
}

main().then(
  () => process.exit(),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
