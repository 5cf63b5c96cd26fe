/**
 * npm run bench -- --preset tpch22 [--sf 1] [--skip-load] [--only 5,19] [--runs 1] [--timeout-s 900]
 *                  [--no-check] [--verbose] [--save FILE] [--growth-from FILE]
 *
 * TPC-H queries 1–22 (@junction/tpch's workload/tpch, validation parameters) on the
 * benchmark's databases (see databases.ts): direct on the one PostgreSQL database holding all
 * eight tables (the native driver, values decoded as Junction decodes them), and through
 * Junction over the JDV federation — orders and lineitem in PostgreSQL A, customer in
 * PostgreSQL B, part/supplier/partsupp in MariaDB C, nation/region in MariaDB D — the same SQL
 * text, its tables found through a search path. Each query runs direct then federated, `runs`
 * times (the median is reported); every federated answer is compared with the direct one
 * (row count and an order-independent checksum) unless --no-check. A query that fails is
 * reported with its error and the run goes on; any failure or difference fails the run.
 * Per query: milliseconds both ways, the ratio, Junction's peak tracked memory (hash tables,
 * sorts, aggregates), the bytes it spilled to disk and the process's peak RSS while it ran;
 * then the targets (each within 2× or +100 ms, total within 1.3×, peak RSS under 1 GB; from SF 10
 * on, as issue 30 sets them, each within 2× or +1 s and peak RSS under 1.5 GB).
 * --save writes each query's medians to a JSON file; --growth-from reads one saved at another
 * scale and adds how each query's time grew, direct beside federated (a federated time that
 * grows faster than direct's is a cost that does not scale like the database's).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Value } from '@junction/connectors';
import { tpchFederatedSearchPath, tpchQueries } from '@junction/tpch';
import { Digester, type AnswerDigest } from './answer.js';
import { median, withPeakRss } from './measure.js';
import { DIRECT_TYPES, directPool, federatedEngine, prepareBenchData, mariadbCacheNote } from './databases.js';

const { values: args } = parseArgs({
  options: {
    preset: { type: 'string' },
    sf: { type: 'string', default: '1' },
    runs: { type: 'string', default: '1' },
    'skip-load': { type: 'boolean', default: false },
    only: { type: 'string' },
    'timeout-s': { type: 'string', default: '900' },
    check: { type: 'boolean', default: true },
    verbose: { type: 'boolean', default: false },
    save: { type: 'string' },
    'growth-from': { type: 'string' },
  },
  allowNegative: true,
});
const sf = Number(args.sf);
const runs = Math.max(1, Number(args.runs));
const timeoutMs = Number(args['timeout-s']) * 1000;
const only = args.only ? new Set(args.only.split(',').map((x) => Number(x.replace(/^q/i, '')))) : undefined;
const MB = 1024 * 1024;
/** a query may take this much longer than direct, or twice as long, and still meet the target */
const SLACK_MS = sf >= 10 ? 1000 : 100;
const RSS_TARGET_MB = sf >= 10 ? 1536 : 1024;

interface Saved {
  readonly sf: number;
  readonly queries: Record<string, { directMs: number; federatedMs: number }>;
}
const before: Saved | undefined = args['growth-from'] ? (JSON.parse(readFileSync(args['growth-from'], 'utf8')) as Saved) : undefined;

interface Measured {
  readonly ms: number;
  readonly digest: AnswerDigest;
  readonly peakMemoryBytes: number;
  readonly spilledBytes: number;
  readonly peakRss: number;
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

async function main(): Promise<void> {
  await prepareBenchData(sf, !args['skip-load']);
  const cacheNote = await mariadbCacheNote(sf);
  if (cacheNote) process.stdout.write(`${cacheNote}\n`);
  const { fed, connectors } = await federatedEngine(sf);
  const searchPath = tpchFederatedSearchPath();
  const pool = directPool(sf, 4);

  const runDirect = async (sql: string): Promise<Measured> => {
    const t0 = performance.now();
    const { value: rows, peakRss } = await withPeakRss(async () => (await pool.query({ text: sql, rowMode: 'array', types: DIRECT_TYPES })).rows as Value[][]);
    const ms = performance.now() - t0;
    const d = new Digester();
    for (const r of rows) d.add(r);
    return { ms, digest: d.digest(), peakMemoryBytes: 0, spilledBytes: 0, peakRss };
  };
  const runFederated = async (sql: string): Promise<Measured> => {
    const t0 = performance.now();
    const d = new Digester();
    const { value: stats, peakRss } = await withPeakRss(async () => {
      const r = await fed.query(sql, { searchPath, timeoutMs });
      for await (const b of r.rows) for (const row of b) d.add(row);
      return r.stats();
    });
    return { ms: performance.now() - t0, digest: d.digest(), peakMemoryBytes: stats.peakMemoryBytes, spilledBytes: stats.spilledBytes, peakRss };
  };

  const out = (s: string): void => void process.stdout.write(s + '\n');
  out(`TPC-H 1–22 at SF ${sf}: direct (one PostgreSQL) vs Junction over the JDV federation (dbA, dbB PostgreSQL; dbC, dbD MariaDB), ${runs === 1 ? 'one run' : `median of ${runs} runs`} each (ms)`);
  const growthHead = before ? ` | direct ×, SF ${before.sf} → ${sf} | federated ×, SF ${before.sf} → ${sf}` : '';
  out(`query | rows | direct ms | federated ms | ratio | peak memory MB | spilled MB | peak RSS MB | answer${growthHead}`);
  const saved: Saved = { sf, queries: {} };
  const grew: string[] = [];
  const failures: string[] = [];
  let totalDirect = 0;
  let totalFed = 0;
  let peakRss = 0;
  const slow: string[] = [];
  for (const q of tpchQueries(sf)) {
    if (only && !only.has(q.number)) continue;
    const direct: Measured[] = [];
    const federated: Measured[] = [];
    let error: string | undefined;
    for (let i = 0; i < runs && !error; i++) {
      direct.push(await runDirect(q.sql));
      try {
        federated.push(await runFederated(q.sql));
      } catch (e) {
        const err = e as { code?: string; message?: string };
        error = `${err.code ?? 'error'}: ${err.message ?? String(e)}`;
      }
    }
    const d = median(direct.map((m) => m.ms));
    const last = direct[direct.length - 1];
    if (error) {
      failures.push(`${q.id}: ${error}`);
      out(`${q.id} | ${last.digest.rows} | ${fmt(d)} | FAILED | | | | | ${error.slice(0, 200)}`);
      continue;
    }
    const f = median(federated.map((m) => m.ms));
    const fl = federated[federated.length - 1];
    const rss = Math.max(...federated.map((m) => m.peakRss));
    peakRss = Math.max(peakRss, rss);
    totalDirect += d;
    totalFed += f;
    let answer = 'not checked';
    if (args.check) {
      const same = fl.digest.rows === last.digest.rows && fl.digest.checksum === last.digest.checksum;
      answer = last.digest.rows === 0 ? 'EMPTY (checks nothing)' : same ? 'same' : 'DIFFERS';
      if (!same) failures.push(`${q.id}: Junction answered ${fl.digest.rows} rows (checksum ${fl.digest.checksum}), direct ${last.digest.rows} rows (checksum ${last.digest.checksum})`);
    }
    if (f > Math.max(2 * d, d + SLACK_MS)) slow.push(q.id);
    saved.queries[q.id] = { directMs: d, federatedMs: f };
    let growth = '';
    const was = before?.queries[q.id];
    if (before) {
      if (!was) growth = ' | – | –';
      else {
        const gd = d / was.directMs;
        const gf = f / was.federatedMs;
        growth = ` | ${gd.toFixed(1)} | ${gf.toFixed(1)}`;
        // noise at a few ms says nothing: only a federated time that ends far above direct counts
        if (gf > 1.5 * gd && f > d + 100) grew.push(`${q.id} (${gf.toFixed(1)}× against ${gd.toFixed(1)}×)`);
      }
    }
    out(`${q.id} | ${last.digest.rows} | ${fmt(d)} | ${fmt(f)} | ${(f / d).toFixed(2)} | ${(Math.max(...federated.map((m) => m.peakMemoryBytes)) / MB).toFixed(1)} | ${(Math.max(...federated.map((m) => m.spilledBytes)) / MB).toFixed(1)} | ${(rss / MB).toFixed(0)} | ${answer}${growth}`);
    if (args.verbose) {
      const e = await fed.explain(q.sql, { analyze: true, searchPath });
      out(e.text);
    }
  }
  out(`total (queries that finished) | | ${fmt(totalDirect)} | ${fmt(totalFed)} | ${totalDirect ? (totalFed / totalDirect).toFixed(2) : '–'} | | | ${(peakRss / MB).toFixed(0)} |`);
  out(`targets: each within 2× or +${SLACK_MS} ms: ${slow.length ? `missed by ${slow.join(', ')}` : 'met'}; total within 1.3×: ${totalFed <= 1.3 * totalDirect ? 'met' : 'missed'}; peak RSS under ${(RSS_TARGET_MB / 1024).toFixed(1)} GB: ${peakRss < RSS_TARGET_MB * MB ? 'met' : 'missed'}; failures: ${failures.length}`);

  if (before) out(`grew faster than direct from SF ${before.sf} (over 1.5× direct's growth, and over direct + 100 ms): ${grew.length ? grew.join(', ') : 'none'}`);
  if (args.save) writeFileSync(args.save, JSON.stringify(saved, null, 2) + '\n');

  await fed.close();
  await pool.end();
  await Promise.allSettled(connectors.map((c) => c.close()));
  if (failures.length) throw new Error(`TPC-H federated:\n  ${failures.join('\n  ')}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
