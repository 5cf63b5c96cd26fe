/**
 * node --import tsx apps/api/bench/rest.ts [--sf 1] [--runs 5] [--h-seconds 5] [--rss-seconds 0] [--only A,B,H]
 *
 * JDV through the REST API, as a program that embeds Junction sees it, beside direct and
 * in-process in the same run: the real server (main.ts) in a child process, a Bearer token
 * created through the API (its concurrency limit raised to 16 through the admin API, as an
 * application's token would be), keep-alive HTTP, JSON and NDJSON.
 *
 * A–F: 1 warm-up, then `runs` interleaved rounds, median ms. Variants: direct (raw SQL on the
 * one-database PostgreSQL copy), in-process Engine over the four-source layout, REST over the
 * four sources (JSON, NDJSON), and use case 1 — all tables in one source — in-process and
 * through REST.
 * H: executions/s and p50/p99 latency at 1, 4 and 16 clients, in alternating 1 s slices;
 * REST errors are counted, not hidden. With --rss-seconds N, afterwards H × 16 through REST
 * for N seconds while the server's RSS is sampled.
 *
 * Uses the benchmark's own databases (jbench_<sf>_*); load them first with
 * `npm run bench -- --sf 1 --only none` (or any bench run at that scale).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createConnector, type Connector, type SourceConfig, type Value } from '@junction/connectors';
import { Engine } from '@junction/query-core';
import { rewriteOdbc } from '../../../packages/query-core/src/sql/odbc.js';
import { restSource, startRestTarget } from './rest-target.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';
const inRepo = new URL('../../../packages/query-core/bench/workload/jdv', import.meta.url).pathname;

const { values: args } = parseArgs({
  options: {
    sf: { type: 'string', default: '1' },
    runs: { type: 'string', default: '5' },
    'h-seconds': { type: 'string', default: '5' },
    'rss-seconds': { type: 'string', default: '0' },
    only: { type: 'string' },
    workload: { type: 'string', default: existsSync(inRepo) ? inRepo : '/work/shared/workload/jdv' },
  },
});
const sf = Number(args.sf);
const runs = Number(args.runs);
const hSeconds = Number(args['h-seconds']);
const rssSeconds = Number(args['rss-seconds']);
const only = args.only ? new Set(args.only.split(',')) : undefined;
const want = (q: string) => !only || only.has(q);
const tag = `jbench_${String(sf).replace('.', '_')}`;
const placement: Record<string, [string, string]> = {
  dbA: [PG_URL, `${tag}_a`],
  dbB: [PG_URL, `${tag}_b`],
  dbC: [MYSQL_URL, `${tag}_c`],
  dbD: [MYSQL_URL, `${tag}_d`],
  direct: [PG_URL, `${tag}_direct`],
};
const sqlOf = (q: string, kind: 'direct' | 'federated') => readFileSync(join(args.workload, `${q}.${kind}.sql`), 'utf8').trim();
// use case 1: the direct SQL with each table qualified by the one source
const singleSql = (q: string) =>
  sqlOf(q, 'direct').replace(/\b(FROM|JOIN|,)\s+(region|nation|supplier|partsupp|part|customer|orders|lineitem)\b/g, '$1 direct.$2');

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
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

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

  const rest = await startRestTarget({
    sources: Object.keys(placement).map((n) => restSource(n, ...placement[n])),
    tokenConcurrency: 16,
    maxSockets: 16,
    log: (l) => process.stderr.write(`server: ${l}\n`),
  });

  const direct = async (sql: string, params: readonly Value[] = []) => {
    const r = await pool.query({ text: sql, values: params as unknown[], rowMode: 'array' });
    return r.rowCount ?? r.rows.length;
  };
  const drain = async (engine: Engine, sql: string, params: readonly Value[] = []) => {
    const r = await engine.query(sql, { params });
    let n = 0;
    for await (const b of r.rows) n += b.length;
    return n;
  };
  const viaRest = async (sql: string, params: readonly Value[] = [], ndjson = false) =>
    (await rest.query(sql, params as unknown[], { ndjson })).rows;

  const out = (s: string) => process.stdout.write(s + '\n');
  out(`JDV through REST, SF ${sf}; median of ${runs} interleaved runs after 1 warm-up (ms). Shared 2-core machine: noisy.`);
  out('query | rows | direct | in-process 4 src | REST 4 src JSON | ÷ direct | REST 4 src NDJSON | ÷ direct | in-process 1 src | REST 1 src JSON | ÷ direct');
  const totals = [0, 0, 0, 0, 0, 0];
  for (const q of ['A', 'B', 'C', 'D', 'E', 'F']) {
    if (!want(q)) continue;
    const d = rewriteOdbc(sqlOf(q, 'direct')).text;
    const f = sqlOf(q, 'federated');
    const s = singleSql(q);
    const fns = [
      () => direct(d),
      () => drain(fed, f),
      () => viaRest(f),
      () => viaRest(f, [], true),
      () => drain(single, s),
      () => viaRest(s),
    ];
    for (const fn of fns) await fn();
    const times = fns.map(() => [] as number[]);
    const rows = fns.map(() => 0);
    for (let i = 0; i < runs; i++)
      for (let v = 0; v < fns.length; v++) {
        const t0 = performance.now();
        rows[v] = await fns[v]();
        times[v].push(performance.now() - t0);
      }
    const m = times.map(median);
    m.forEach((x, i) => (totals[i] += x));
    const same = rows.every((r) => r === rows[0]);
    out(
      `${q} | ${same ? rows[0] : `${rows.join('/')} MISMATCH`} | ${fmt(m[0])} | ${fmt(m[1])} | ${fmt(m[2])} | ${(m[2] / m[0]).toFixed(2)} | ${fmt(m[3])} | ${(m[3] / m[0]).toFixed(2)} | ${fmt(m[4])} | ${fmt(m[5])} | ${(m[5] / m[0]).toFixed(2)}`,
    );
  }
  if (totals[0] > 0)
    out(
      `A–F total | | ${fmt(totals[0])} | ${fmt(totals[1])} | ${fmt(totals[2])} | ${(totals[2] / totals[0]).toFixed(2)} | ${fmt(totals[3])} | ${(totals[3] / totals[0]).toFixed(2)} | ${fmt(totals[4])} | ${fmt(totals[5])} | ${(totals[5] / totals[0]).toFixed(2)}`,
    );

  if (want('H')) {
    const customers = Math.round(150_000 * sf);
    const key = () => 1 + Math.floor(Math.random() * customers);
    const hD = sqlOf('H', 'direct');
    const hF = sqlOf('H', 'federated');
    const variants: [string, () => Promise<number>][] = [
      ['direct', () => direct(hD, [key()])],
      ['in-process', () => drain(fed, hF, [key()])],
      ['REST JSON', () => viaRest(hF, [key()])],
      ['REST NDJSON', () => viaRest(hF, [key()], true)],
    ];
    out('');
    out(`H (random c_custkey), ${hSeconds} interleaved 1 s slices per variant: executions/s (p50 / p99 ms) [errors]`);
    out(`clients | ${variants.map((v) => v[0]).join(' | ')} | REST JSON ÷ direct | server RSS peak`);
    for (const clients of [1, 4, 16]) {
      const lat = variants.map(() => [] as number[]);
      const done = variants.map(() => 0);
      const errors = variants.map(() => 0);
      const firstError: string[] = [];
      let peak = 0;
      const slice = async (v: number, count: boolean) => {
        const deadline = performance.now() + 1000;
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
        peak = Math.max(peak, rest.rssBytes());
      };
      for (let v = 0; v < variants.length; v++) await slice(v, false);
      for (let i = 0; i < hSeconds; i++) for (let v = 0; v < variants.length; v++) await slice(v, true);
      const cell = (v: number) =>
        `${(done[v] / hSeconds).toFixed(0)} (${fmt(pct(lat[v], 0.5))} / ${fmt(pct(lat[v], 0.99))})${errors[v] ? ` [${errors[v]} errors]` : ''}`;
      out(
        `${clients} | ${variants.map((_, v) => cell(v)).join(' | ')} | ${(done[2] / done[0]).toFixed(2)} | ${(peak / 2 ** 20).toFixed(0)} MB`,
      );
      if (firstError.length) out(`  first error: ${firstError[0]}`);
    }
    if (rssSeconds > 0) {
      let peak = 0;
      let n = 0;
      let errors = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, rest.rssBytes())), 100);
      const deadline = performance.now() + rssSeconds * 1000;
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
      out(`H × 16 through REST for ${rssSeconds} s: ${(n / rssSeconds).toFixed(0)} executions/s, ${errors} errors, server RSS peak ${(peak / 2 ** 20).toFixed(0)} MB`);
    }
  }

  await rest.close();
  await fed.close();
  await single.close();
  await pool.end();
  await Promise.allSettled(connectors.map((c) => c.close()));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
