/**
 * node --import tsx apps/api/bench/rest.ts [--sf 1] [--runs 5] [--h-seconds 5] [--rss-seconds 0] [--only A,B,H]
 *
 * JDV through the REST API, as a program that embeds Junction sees it, beside direct and
 * in-process in the same run: the real server (main.ts) in a child process, a Bearer token
 * created through the API (its concurrency limit raised to 16 through the admin API, as an
 * application's token would be), keep-alive HTTP, JSON and NDJSON.
 *
 * A–F: each variant warmed for 1.5 s (the server is a long-running process: the JIT has compiled
 * its hot paths by the time a program's queries arrive), then `runs` interleaved rounds, median ms. Within a round a short query runs
 * back to back (as many times as fit in ~20 ms, at most 10) before the next variant: one lone
 * execution of a 1 ms query after the server sat idle measures the scheduler's wake-up on a
 * loaded machine more than the query, for every variant alike, and most for the ones that cross
 * the most processes. Variants: direct (raw SQL on the
 * one-database PostgreSQL copy), in-process Engine over the four-source layout, REST over the
 * four sources (JSON, NDJSON), and use case 1 — all tables in one source — in-process and
 * through REST.
 * H: executions/s and p50/p99 latency at 1, 4 and 16 clients, in alternating 1 s slices;
 * REST errors are counted, not hidden. With --rss-seconds N, afterwards H × 16 through REST
 * for N seconds while the server's RSS is sampled.
 *
 * Uses the benchmark's own databases (jbench_<sf>_*); load them first with
 * `npm run bench -- --sf 1 --only none` (or any bench run at that scale). The workload is
 * @junction/tpch's (workload/jdv).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createConnector, type Connector, type SourceConfig, type Value } from '@junction/connectors';
import { Engine } from '@junction/query-core';
import { jdvWorkload, paramMax } from '@junction/tpch';
import { rewriteOdbc } from '../../../packages/query-core/src/sql/odbc.js';
import { NO_CPU, addCpu, cpuCell, cpuSince, sampleCpu, type CpuByProcess } from './process-cpu.js';
import { restSource, startRestTarget } from './rest-target.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';

// not strict: run.ts imports this file for restSection() under its own options
const { values: args } = parseArgs({
  strict: false,
  options: {
    sf: { type: 'string', default: '1' },
    runs: { type: 'string', default: '5' },
    'h-seconds': { type: 'string', default: '5' },
    'rss-seconds': { type: 'string', default: '0' },
    only: { type: 'string' },
  },
});
const sf = Number(args.sf);
const runs = Number(args.runs);
const hSeconds = Number(args['h-seconds']);
const rssSeconds = Number(args['rss-seconds']);
const only = typeof args.only === 'string' ? new Set(args.only.split(',')) : undefined;
const want = (q: string) => !only || only.has(q);
const tag = `jbench_${String(sf).replace('.', '_')}`;
const placement: Record<string, [string, string]> = {
  dbA: [PG_URL, `${tag}_a`],
  dbB: [PG_URL, `${tag}_b`],
  dbC: [MYSQL_URL, `${tag}_c`],
  dbD: [MYSQL_URL, `${tag}_d`],
  direct: [PG_URL, `${tag}_direct`],
};
const workload = jdvWorkload(sf);
const sqlOf = (q: string, kind: 'direct' | 'federated') => workload.query(q)[kind];
// use case 1: the direct SQL with each table qualified by the one source
const singleSql = (q: string) =>
  sqlOf(q, 'direct').replace(
    /\b(FROM|JOIN|,)\s+(region|nation|supplier|partsupp|part|customer|orders|lineitem)\b/g,
    '$1 direct.$2',
  );

function config(name: string): SourceConfig {
  const [url, database] = placement[name];
  const s = restSource(name, url, database);
  return { ...s, options: s.options ?? {} };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};
/** each variant of each query runs this long before it is measured */
const WARM_MS = 1500;
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

export interface RestSectionContext {
  sf: number;
  runs: number;
  hSeconds: number;
  /** after H: H × 16 through REST for this long while the server's RSS is sampled (0: skip) */
  rssSeconds: number;
  want(q: string): boolean;
  out(line: string): void;
  workload: ReturnType<typeof jdvWorkload>;
  sqlOf(q: string, kind: 'direct' | 'federated'): string;
  /** use case 1: the direct SQL over the one source named `direct` */
  singleSql(q: string): string;
  /** source name → [server URL, database]: dbA–dbD and direct */
  placement: Record<string, [string, string]>;
  /** the baseline and the in-process engines, as the caller measures them (rows answered) */
  direct(q: string, sql: string, params: readonly Value[]): Promise<number>;
  fed(sql: string, params: readonly Value[]): Promise<number>;
  single(sql: string, params: readonly Value[]): Promise<number>;
}

/**
 * The REST part of the benchmark: starts the server, measures A–F and H through it beside the
 * caller's direct and in-process variants (interleaved, so load from elsewhere hits all alike),
 * prints the tables with ctx.out, stops the server. `npm run bench -- --rest` and this file's
 * own main() call it.
 */
export async function restSection(ctx: RestSectionContext): Promise<void> {
  const rest = await startRestTarget({
    sources: Object.keys(ctx.placement).map((n) => restSource(n, ...ctx.placement[n])),
    tokenConcurrency: 16,
    maxSockets: 16,
    log: (l) => process.stderr.write(`server: ${l}\n`),
  });

  const viaRest = async (sql: string, params: readonly Value[] = [], ndjson = false) =>
    (await rest.query(sql, params as unknown[], { ndjson })).rows;

  ctx.out(
    `JDV through REST (the server in a child process, a Bearer token, keep-alive HTTP), SF ${ctx.sf}; median of ${ctx.runs} interleaved rounds after ${WARM_MS / 1000} s of warm-up per variant, short queries back to back within a round (ms)`,
  );
  ctx.out(
    'query | rows | direct | in-process 4 src | REST 4 src JSON | ÷ direct | REST 4 src NDJSON | ÷ direct | in-process 1 src | REST 1 src JSON | ÷ direct',
  );
  const totals = [0, 0, 0, 0, 0, 0];
  for (const q of ['A', 'B', 'C', 'D', 'E', 'F']) {
    if (!ctx.want(q)) continue;
    const d = rewriteOdbc(ctx.sqlOf(q, 'direct')).text;
    const f = ctx.sqlOf(q, 'federated');
    const s = ctx.singleSql(q);
    const fns = [
      () => ctx.direct(q, d, []),
      () => ctx.fed(f, []),
      () => viaRest(f),
      () => viaRest(f, [], true),
      () => ctx.single(s, []),
      () => viaRest(s),
    ];
    const reps = fns.map(() => 1);
    for (let v = 0; v < fns.length; v++) {
      // warm up for WARM_MS, not once: the server is a long-running process, and its first few
      // hundred executions of a route run in V8's interpreter before the JIT has compiled it
      const warmUntil = performance.now() + WARM_MS;
      let t = Infinity;
      do {
        const t0 = performance.now();
        await fns[v]();
        t = Math.min(t, performance.now() - t0);
      } while (performance.now() < warmUntil);
      reps[v] = Math.max(1, Math.min(10, Math.floor(20 / t)));
    }
    const times = fns.map(() => [] as number[]);
    const rows = fns.map(() => 0);
    for (let i = 0; i < ctx.runs; i++)
      for (let v = 0; v < fns.length; v++)
        for (let r = 0; r < reps[v]; r++) {
          const t0 = performance.now();
          rows[v] = await fns[v]();
          times[v].push(performance.now() - t0);
        }
    const m = times.map(median);
    m.forEach((x, i) => (totals[i] += x));
    const same = rows.every((r) => r === rows[0]);
    ctx.out(
      `${q} | ${same ? rows[0] : `${rows.join('/')} MISMATCH`} | ${fmt(m[0])} | ${fmt(m[1])} | ${fmt(m[2])} | ${(m[2] / m[0]).toFixed(2)} | ${fmt(m[3])} | ${(m[3] / m[0]).toFixed(2)} | ${fmt(m[4])} | ${fmt(m[5])} | ${(m[5] / m[0]).toFixed(2)}`,
    );
  }
  if (totals[0] > 0)
    ctx.out(
      `A–F total | | ${fmt(totals[0])} | ${fmt(totals[1])} | ${fmt(totals[2])} | ${(totals[2] / totals[0]).toFixed(2)} | ${fmt(totals[3])} | ${(totals[3] / totals[0]).toFixed(2)} | ${fmt(totals[4])} | ${fmt(totals[5])} | ${(totals[5] / totals[0]).toFixed(2)}`,
    );

  if (ctx.want('H')) {
    const [keyParam] = ctx.workload.query('H').params;
    const customers = paramMax(keyParam, ctx.sf);
    const key = () => keyParam.min + Math.floor(Math.random() * (customers - keyParam.min + 1));
    const hD = ctx.sqlOf('H', 'direct');
    const hF = ctx.sqlOf('H', 'federated');
    const variants: [string, () => Promise<number>][] = [
      ['direct', () => ctx.direct('H', hD, [key()])],
      ['in-process', () => ctx.fed(hF, [key()])],
      ['REST JSON', () => viaRest(hF, [key()])],
      ['REST NDJSON', () => viaRest(hF, [key()], true)],
    ];
    ctx.out('');
    ctx.out(
      `H (random c_custkey), ${ctx.hSeconds} interleaved 1 s slices per variant: executions/s (p50 / p99 ms) [errors]`,
    );
    ctx.out(`clients | ${variants.map((v) => v[0]).join(' | ')} | REST JSON ÷ direct | server RSS peak`);
    const cpuRows: string[] = [];
    for (const clients of [1, 4, 16]) {
      const cpu: CpuByProcess[] = variants.map(() => NO_CPU);
      const lat = variants.map(() => [] as number[]);
      const done = variants.map(() => 0);
      const errors = variants.map(() => 0);
      const firstError: string[] = [];
      let peak = 0;
      const slice = async (v: number, count: boolean) => {
        const deadline = performance.now() + 1000;
        const cpuBefore = sampleCpu(rest.pid);
        await Promise.all(
          Array.from({ length: clients }, async () => {
            while (performance.now() < deadline) {
              const t0 = performance.now();
              try {
                await variants[v][1]();
                if (count) {
                  done[v]++;
                  lat[v].push(performance.now() - t0);
                }
              } catch (e) {
                if (count) errors[v]++;
                if (firstError.length === 0) firstError.push(String(e).slice(0, 300));
              }
            }
          }),
        );
        // requests still in flight at the deadline finish inside the slice, so their CPU is counted with them
        if (count) cpu[v] = addCpu(cpu[v], cpuSince(cpuBefore, rest.pid));
        peak = Math.max(peak, rest.rssBytes());
      };
      for (let v = 0; v < variants.length; v++) await slice(v, false);
      for (let i = 0; i < ctx.hSeconds; i++) for (let v = 0; v < variants.length; v++) await slice(v, true);
      const cell = (v: number) =>
        `${(done[v] / ctx.hSeconds).toFixed(0)} (${fmt(pct(lat[v], 0.5))} / ${fmt(pct(lat[v], 0.99))})${errors[v] ? ` [${errors[v]} errors]` : ''}`;
      ctx.out(
        `${clients} | ${variants.map((_, v) => cell(v)).join(' | ')} | ${(done[2] / done[0]).toFixed(2)} | ${(peak / 2 ** 20).toFixed(0)} MB`,
      );
      if (firstError.length) ctx.out(`  first error: ${firstError[0]}`);
      cpuRows.push(`${clients} | ${variants.map((_, v) => cpuCell(cpu[v], done[v] + errors[v])).join(' | ')}`);
    }
    ctx.out('');
    ctx.out('H: CPU per execution on this host, ms (bench process / server / PostgreSQL / MariaDB = total; every process of those databases counts)');
    ctx.out(`clients | ${variants.map((v) => v[0]).join(' | ')}`);
    for (const row of cpuRows) ctx.out(row);
    if (ctx.rssSeconds > 0) {
      let peak = 0;
      let n = 0;
      let errors = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, rest.rssBytes())), 100);
      const deadline = performance.now() + ctx.rssSeconds * 1000;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (performance.now() < deadline) {
            try {
              await viaRest(hF, [key()]);
              n++;
            } catch {
              errors++;
            }
          }
        }),
      );
      clearInterval(sampler);
      ctx.out(
        `H × 16 through REST for ${ctx.rssSeconds} s: ${(n / ctx.rssSeconds).toFixed(0)} executions/s, ${errors} errors, server RSS peak ${(peak / 2 ** 20).toFixed(0)} MB`,
      );
    }
  }

  await rest.close();
}

async function main(): Promise<void> {
  const connectors: Connector[] = [];
  const connect = async (name: string) => {
    const c = createConnector(config(name));
    connectors.push(c);
    return { name, connector: c, catalog: await c.introspect(), semantics: await c.probe() };
  };
  const fed = new Engine();
  for (const t of ['dbA', 'dbB', 'dbC', 'dbD']) fed.addSource(await connect(t));
  const single = new Engine();
  single.addSource(await connect('direct'));
  const directUrl = new URL(PG_URL);
  directUrl.pathname = `/${tag}_direct`;
  const pool = new pg.Pool({ connectionString: directUrl.toString(), max: 16 });
  const drain = async (engine: Engine, sql: string, params: readonly Value[] = []) => {
    const r = await engine.query(sql, { params });
    let n = 0;
    for await (const b of r.rows) n += b.length;
    return n;
  };
  await restSection({
    sf,
    runs,
    hSeconds,
    rssSeconds,
    want,
    out: (line) => process.stdout.write(line + '\n'),
    workload,
    sqlOf,
    singleSql,
    placement,
    direct: async (_q, sql, params) => {
      const r = await pool.query({ text: sql, values: params as unknown[], rowMode: 'array' });
      return r.rowCount ?? r.rows.length;
    },
    fed: (sql, params) => drain(fed, sql, params),
    single: (sql, params) => drain(single, sql, params),
  });
  await fed.close();
  await single.close();
  await pool.end();
  await Promise.allSettled(connectors.map((c) => c.close()));
}

// run directly (not imported by packages/query-core/bench/run.ts)
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
