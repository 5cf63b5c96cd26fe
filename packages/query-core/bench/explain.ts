/**
 * node --import tsx packages/query-core/bench/explain.ts [--sf 1] [--layout federated|single] [--query C,H,Q19] [--param 4243]
 *   [--no-analyze] [--no-warmup]
 *
 * EXPLAIN ANALYZE (with estimates) of JDV queries (A–H) and TPC-H queries (Q1–Q22) on the data
 * `npm run bench` loaded: where the time of a benchmark query goes, statement by statement.
 */
import { parseArgs } from 'node:util';
import { createConnector, type Connector, type EngineName } from '@junction/connectors';
import { jdvWorkload } from '@junction/tpch/workload';
import { tpchFederatedSearchPath, tpchQueries } from '@junction/tpch';
import { Engine } from '../src/engine.js';
import { explainText } from '../src/explain/text.js';

const { values: args } = parseArgs({
  options: {
    sf: { type: 'string', default: '1' },
    layout: { type: 'string', default: 'federated' },
    query: { type: 'string', default: 'A,B,C,D,E,F,H' },
    param: { type: 'string', default: '4243' },
    // --no-analyze: the plan and its estimates only, nothing run (a slow query's plan in seconds)
    analyze: { type: 'boolean', default: true },
    warmup: { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';
const tag = `jbench_${String(args.sf).replace('.', '_')}`;
const connectors: Connector[] = [];

async function source(name: string, url: string, database: string) {
  const u = new URL(url);
  const engine: EngineName = u.protocol.startsWith('postgres') ? 'postgresql' : 'mysql';
  const c = createConnector({ name, engine, host: u.hostname, port: Number(u.port), database, user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) });
  connectors.push(c);
  return { name, connector: c, semantics: await c.probe(), catalog: await c.introspect() };
}

const single = args.layout === 'single';
const engine = new Engine();
if (single) engine.addSource(await source('direct', PG_URL, `${tag}_direct`));
else {
  engine.addSource(await source('dbA', PG_URL, `${tag}_a`));
  engine.addSource(await source('dbB', PG_URL, `${tag}_b`));
  engine.addSource(await source('dbC', MYSQL_URL, `${tag}_c`));
  engine.addSource(await source('dbD', MYSQL_URL, `${tag}_d`));
}
for (const q of args.query.split(',')) {
  const tpch = /^Q\d+$/i.test(q) ? tpchQueries(Number(args.sf)).find((x) => x.id === q.toUpperCase()) : undefined;
  let sql: string;
  if (tpch) sql = tpch.sql;
  else {
    const query = jdvWorkload(Number(args.sf)).query(q);
    sql = single ? query.direct : query.federated;
    if (single) sql = sql.replace(/\b(FROM|JOIN|,)\s+(region|nation|supplier|partsupp|part|customer|orders|lineitem)\b/g, '$1 direct.$2');
  }
  // TPC-H queries name tables unqualified: the search path finds them
  const searchPath = tpch ? (single ? ['direct'] : tpchFederatedSearchPath()) : undefined;
  const params = sql.includes('$1') ? [Number(args.param)] : [];
  if (args.analyze && args.warmup) await engine.explain(sql, { analyze: true, params, searchPath });
  const ex = await engine.explain(sql, { analyze: args.analyze, params, searchPath });
  process.stdout.write(`== ${q}\n${explainText(ex.plan, { estimates: true })}\n`);
}
await engine.close();
await Promise.allSettled(connectors.map((c) => c.close()));
