/**
 * npm run bench -- --shapes [--sf 1] [--runs 3] [--only a,b1] [--verbose]
 *
 * Issue 30's query shapes that were slower federated than on one PostgreSQL: (a) an OR of
 * per-part predicate groups across a join (TPC-H Q19), (b) IN (subquery) whose inner side is
 * in another source, (c) a window function over a cross-source join, (d) a chain of outer
 * joins keeping NULL-extended rows. Each runs on the benchmark's databases (databases.ts,
 * loaded by `npm run bench`): direct on jbench_<sf>_direct, then through Junction over the JDV
 * federation, the same SQL text with its tables found through the federated search path
 * (customer from dbB). Prints the medians, the ratio, whether the answers are equal (row count
 * and an order-independent checksum) and the 2× / +100 ms target; any difference fails the run.
 */
import { parseArgs } from 'node:util';
import type { Value } from '@junction/connectors';
import { tpchFederatedSearchPath } from '@junction/tpch';
import { Digester, type AnswerDigest } from './answer.js';
import { median } from './measure.js';
import { DIRECT_TYPES, directPool, federatedEngine } from './databases.js';
import { SHAPES } from './shapes-sql.js';

const { values: args } = parseArgs({
  options: {
    shapes: { type: 'boolean' },
    sf: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

async function main(): Promise<void> {
  const sf = Number(args.sf);
  const runs = Math.max(1, Number(args.runs));
  const only = args.only ? new Set(args.only.split(',')) : undefined;
  const { fed, connectors } = await federatedEngine(sf);
  const searchPath = tpchFederatedSearchPath();
  const pool = directPool(sf, 4);
  const runDirect = async (sql: string): Promise<{ ms: number; digest: AnswerDigest }> => {
    const t0 = performance.now();
    const rows = (await pool.query({ text: sql, rowMode: 'array', types: DIRECT_TYPES })).rows as Value[][];
    const ms = performance.now() - t0;
    const d = new Digester();
    for (const r of rows) d.add(r);
    return { ms, digest: d.digest() };
  };
  const runFederated = async (sql: string): Promise<{ ms: number; digest: AnswerDigest }> => {
    const t0 = performance.now();
    const d = new Digester();
    const r = await fed.query(sql, { searchPath });
    for await (const b of r.rows) for (const row of b) d.add(row);
    return { ms: performance.now() - t0, digest: d.digest() };
  };

  const out = (s: string): void => void process.stdout.write(s + '\n');
  out(`issue 30 shapes at SF ${sf}: direct (one PostgreSQL) vs Junction over the JDV federation, median of ${runs} runs (ms)`);
  out('shape | rows | direct ms | federated ms | ratio | target | answer');
  const failures: string[] = [];
  for (const [id, sql] of Object.entries(SHAPES)) {
    if (only && !only.has(id)) continue;
    const direct: number[] = [];
    const federated: number[] = [];
    let dd: AnswerDigest | undefined;
    let fd: AnswerDigest | undefined;
    for (let i = 0; i < runs; i++) {
      const a = await runDirect(sql);
      const b = await runFederated(sql);
      direct.push(a.ms);
      federated.push(b.ms);
      dd = a.digest;
      fd = b.digest;
    }
    const d = median(direct);
    const f = median(federated);
    const same = dd!.rows === fd!.rows && dd!.checksum === fd!.checksum;
    if (!same) failures.push(`${id}: Junction ${fd!.rows} rows (${fd!.checksum}), direct ${dd!.rows} rows (${dd!.checksum})`);
    const met = f <= Math.max(2 * d, d + 100);
    out(`${id} | ${dd!.rows} | ${fmt(d)} | ${fmt(f)} | ${(f / d).toFixed(2)} | ${met ? 'met' : 'MISSED'} | ${dd!.rows === 0 ? 'EMPTY' : same ? 'same' : 'DIFFERS'}`);
    if (args.verbose) out((await fed.explain(sql, { analyze: true, searchPath })).text);
  }
  await fed.close();
  await pool.end();
  await Promise.allSettled(connectors.map((c) => c.close()));
  if (failures.length) throw new Error(`shapes:\n  ${failures.join('\n  ')}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
