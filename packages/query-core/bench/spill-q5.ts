/**
 * node --import tsx packages/query-core/bench/spill-q5.ts [--sf 1] [--budget-mb 256] [--no-pushdown] [--explain] [--floor]
 *
 * Issue 14's federated TPC-H Q5 shape (orders and lineitem in PostgreSQL dbA, customer in
 * PostgreSQL dbB, supplier in MariaDB dbC, nation and region in MariaDB dbD) on the JDV
 * benchmark's databases (jbench_<sf>_a … _d, loaded by `npm run bench`), against the same
 * SQL on the one PostgreSQL holding every table (jbench_<sf>_direct). Prints time, the
 * answer check, Junction's peak memory, bytes spilled and the process's peak RSS. With
 * --floor, also the time Junction takes to read each of the six tables whole, as the plan
 * with pushdown off must: what no join or spill can make faster.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createConnector, type Connector, type Row } from '@junction/connectors';
import { sourceFromUrl } from '@junction/tpch';
import { Engine } from '../src/engine.js';
import { Digester } from './answer.js';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';

const { values: args } = parseArgs({
  options: {
    sf: { type: 'string', default: '1' },
    'budget-mb': { type: 'string', default: '256' },
    pushdown: { type: 'boolean', default: true },
    explain: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
  },
  allowNegative: true,
});

const Q5 = (p: (source: string) => string): string => `
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM ${p('dbB')}customer, ${p('dbA')}orders, ${p('dbA')}lineitem, ${p('dbC')}supplier, ${p('dbD')}nation, ${p('dbD')}region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' AND o_orderdate >= DATE '1994-01-01' AND o_orderdate < DATE '1995-01-01'
GROUP BY n_name
ORDER BY revenue DESC`;

async function main(): Promise<void> {
  const tag = `jbench_${String(args.sf).replace('.', '_')}`;
  let peakRss = process.memoryUsage().rss;
  // what the process held when its RSS peaked: V8's heap (live and not yet collected) against buffers outside it
  let atPeak = process.memoryUsage();
  const sampler = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss <= peakRss) return;
    peakRss = rss;
    atPeak = process.memoryUsage();
  }, 20);

  const directUrl = new URL(PG_URL);
  directUrl.pathname = `/${tag}_direct`;
  const direct = new pg.Client({ connectionString: directUrl.toString() });
  await direct.connect();
  const t0 = performance.now();
  const expected = await direct.query({ text: Q5(() => ''), rowMode: 'array', types: { getTypeParser: () => (v: string) => v } });
  const directMs = performance.now() - t0;
  await direct.end();

  const connectors: Connector[] = [];
  const engine = new Engine({ memoryBudgetBytes: Number(args['budget-mb']) * 1024 * 1024 });
  for (const [name, url] of [
    ['dbA', PG_URL],
    ['dbB', PG_URL],
    ['dbC', MYSQL_URL],
    ['dbD', MYSQL_URL],
  ] as const) {
    const c = createConnector(sourceFromUrl(name, url, `${tag}_${name.slice(2).toLowerCase()}`));
    connectors.push(c);
    engine.addSource({ name, connector: c, catalog: await c.introspect(), semantics: await c.probe() });
  }
  const sql = Q5((s) => `${s}.`);
  const rssBefore = process.memoryUsage().rss;
  peakRss = rssBefore;
  atPeak = process.memoryUsage();
  const t1 = performance.now();
  const r = await engine.query(sql, { pushdown: args.pushdown });
  const rows: Row[] = [];
  for await (const b of r.rows) rows.push(...b);
  const fedMs = performance.now() - t1;
  const stats = r.stats();
  clearInterval(sampler);

  const d1 = new Digester();
  for (const row of expected.rows) d1.add(row as Row);
  const d2 = new Digester();
  for (const row of rows) d2.add(row);
  const same = d1.digest().checksum === d2.digest().checksum && JSON.stringify(rows) === JSON.stringify(expected.rows);
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
  process.stdout.write(
    [
      `federated Q5 shape, SF ${args.sf}, budget ${args['budget-mb']} MB, pushdown ${args.pushdown ? 'on' : 'off'}`,
      `direct PostgreSQL: ${directMs.toFixed(0)} ms, ${expected.rows.length} rows`,
      `Junction, 4 sources: ${fedMs.toFixed(0)} ms (${(fedMs / directMs).toFixed(2)}× direct), ${rows.length} rows, answer ${same ? 'same' : 'DIFFERS'}`,
      `Junction peak memory (tracked) ${mb(stats.peakMemoryBytes)} MB, spilled ${mb(stats.spilledBytes)} MB, process RSS before ${mb(rssBefore)} MB, peak ${mb(peakRss)} MB`,
      `at peak RSS: V8 heap used ${mb(atPeak.heapUsed)} MB of ${mb(atPeak.heapTotal)} MB, external ${mb(atPeak.external)} MB (array buffers ${mb(atPeak.arrayBuffers)} MB)`,
    ].join('\n') + '\n',
  );
  if (args.floor) {
    const times: string[] = [];
    let total = 0;
    for (const [source, table] of [['dbA', 'lineitem'], ['dbA', 'orders'], ['dbB', 'customer'], ['dbC', 'supplier'], ['dbD', 'nation'], ['dbD', 'region']]) {
      const t = performance.now();
      // count(*) with pushdown off reads every row and column of the table into Junction
      const c = await engine.query(`SELECT count(*) FROM ${source}.${table}`, { pushdown: false });
      for await (const _ of c.rows) void _;
      const ms = performance.now() - t;
      total += ms;
      times.push(`${table} ${ms.toFixed(0)}`);
    }
    process.stdout.write(`reading the six tables whole (the floor with pushdown off): ${total.toFixed(0)} ms (${(total / directMs).toFixed(2)}× direct): ${times.join(', ')}\n`);
  }
  if (args.explain) {
    const e = await engine.explain(sql, { analyze: true, pushdown: args.pushdown });
    process.stdout.write(e.text + '\n');
  }
  await engine.close();
  await Promise.allSettled(connectors.map((c) => c.close()));
  if (!same) process.exitCode = 1;
}

await main();
