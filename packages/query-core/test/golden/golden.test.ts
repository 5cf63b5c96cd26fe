import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Value } from '@junction/connectors';
import { jdvWorkload } from '@junction/tpch/workload';
import { Catalog } from '../../src/catalog/catalog.js';
import { sourcesFromRegistered } from '../../src/optimizer/context.js';
import { optimize } from '../../src/optimizer/driver.js';
import type { LogicalPlan } from '../../src/plan/logical.js';
import { printPlan } from '../../src/plan/print.js';
import { toRemoteQuery } from '../../src/physical/remote-query.js';
import { bind } from '../../src/sql/bind.js';
import { tpchQueries } from '@junction/tpch';
import { LAYOUTS, registeredSources } from './fixtures.js';

/** TPC-H 1–22 (@junction/tpch's workload/tpch), by id. */
const TPCH_QUERIES: Record<string, string> = Object.fromEntries(tpchQueries().map((q) => [q.id, q.sql]));

/**
 * Whole-plan golden files: every JDV query (federated form) bound from its SQL, optimized
 * against each capability layout, printed with each Remote's SQL as the real dialect renders
 * it. Field ids are renumbered in order of appearance so a binder change that only shifts
 * ids does not churn the files. UPDATE_GOLDEN=1 rewrites them; review the diff.
 */
const here = dirname(fileURLToPath(import.meta.url));
const workload = jdvWorkload();
const update = process.env.UPDATE_GOLDEN === '1';

/** $1 for query H: one customer key. */
const PARAMS: Record<string, Value[]> = { H: [42] };

const queries = workload.queries.map((q) => q.id);

/** Compares with the golden file; writes it only when asked, so a lost file fails instead of passing. */
function expectGolden(file: string, text: string): void {
  if (update) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } else if (!existsSync(file)) {
    throw new Error(`${file} is missing: run with UPDATE_GOLDEN=1 to write it, then review it`);
  }
  expect(text).toBe(readFileSync(file, 'utf8'));
}

describe.each(Object.keys(LAYOUTS))('JDV golden plans, layout %s', (layout) => {
  const registered = registeredSources(layout);
  const catalog = new Catalog(registered);
  const input = { sources: sourcesFromRegistered(registered), options: { pushdown: true } };

  it.each(queries)('query %s', (q) => {
    const sql = workload.query(q).federated;
    const bound = bind(sql, catalog, {});
    const plan = optimize(bound.plan, input);
    const text = goldenText(q, layout, sql, plan, PARAMS[q] ?? [], registered);
    expectGolden(join(here, 'jdv', layout, `${q}.plan`), text);
  });
});

/** TPC-H 1–22 in their federated form over the JDV layout: broad plan coverage. */
describe('TPC-H golden plans, layout pg-mariadb', () => {
  const registered = registeredSources('pg-mariadb');
  const catalog = new Catalog(registered);
  const input = { sources: sourcesFromRegistered(registered), options: { pushdown: true } };

  it.each(Object.keys(TPCH_QUERIES))('%s', (q) => {
    const sql = qualify(TPCH_QUERIES[q]).trim();
    const plan = optimize(bind(sql, catalog, {}).plan, input);
    const text = goldenText(q, 'pg-mariadb', sql, plan, [], registered).replace('-- JDV query', '-- TPC-H query');
    expectGolden(join(here, 'tpch', `${q}.plan`), text);
  });
});

/**
 * Subqueries standing where any expression may (under OR and NOT, in CASE, the SELECT list,
 * HAVING) and correlated ones whose correlation is not an equality: their plans, and what
 * each source is sent.
 */
const SUBQUERY_SHAPES: Record<string, string> = {
  'in-under-or-one-source': `SELECT o_orderkey FROM dbA.orders WHERE o_orderkey IN (SELECT l_orderkey FROM dbA.lineitem WHERE l_quantity > 49) OR o_totalprice > 500000`,
  'in-under-or-across-sources': `SELECT c_custkey FROM dbB.customer WHERE c_nationkey IN (SELECT n_nationkey FROM dbD.nation WHERE n_regionkey = 1) OR c_acctbal < 0`,
  'exists-in-case-correlated': `SELECT c_custkey, CASE WHEN EXISTS (SELECT 1 FROM dbA.orders WHERE o_custkey = c_custkey AND o_totalprice > 400000) THEN 1 ELSE 0 END AS big FROM dbB.customer`,
  'not-in-select-list-one-source': `SELECT s_suppkey, s_nationkey NOT IN (SELECT p_size FROM dbC.part WHERE p_size > 45) AS odd FROM dbC.supplier`,
  'not-exists-under-or': `SELECT c_custkey FROM dbD.customer WHERE NOT EXISTS (SELECT 1 FROM dbD.nation WHERE n_nationkey = c_nationkey AND n_regionkey = 2) OR c_acctbal > 9000`,
  'greater-than-all-correlated': `SELECT p_partkey FROM dbC.part WHERE p_retailprice > ALL (SELECT ps_supplycost FROM dbC.partsupp WHERE ps_partkey = p_partkey) OR p_size = 1`,
  'scalar-count-non-equality': `SELECT n_nationkey, (SELECT count(*) FROM dbD.region WHERE r_regionkey < n_regionkey) AS lower_regions FROM dbD.nation`,
  'scalar-sum-mixed-correlation-across-sources': `SELECT c_custkey FROM dbB.customer WHERE c_acctbal < (SELECT sum(o_totalprice) FROM dbA.orders WHERE o_custkey = c_custkey AND o_orderdate > DATE '1998-01-01' AND o_totalprice <> c_acctbal)`,
  'exists-not-equal-correlation-q21-shape': `SELECT l_orderkey, l_suppkey, EXISTS (SELECT 1 FROM dbA.lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey) AS shared FROM dbA.lineitem l1 WHERE l_orderkey < 10`,
  'exists-in-left-join-on': `SELECT c_custkey, o_orderkey FROM dbB.customer LEFT JOIN dbA.orders ON o_custkey = c_custkey AND EXISTS (SELECT 1 FROM dbA.lineitem WHERE l_orderkey = o_orderkey AND l_quantity > 49)`,
  // issue 30 (b): the subquery's few customers drive, orders is read by their keys
  'in-from-another-source-drives': `SELECT o_orderkey, o_totalprice FROM dbA.orders WHERE o_custkey IN (SELECT c_custkey FROM dbB.customer WHERE c_nationkey = 7 AND c_mktsegment = 'AUTOMOBILE')`,
  'in-in-having': `SELECT o_custkey, count(*) AS n FROM dbA.orders GROUP BY o_custkey HAVING o_custkey IN (SELECT c_custkey FROM dbB.customer WHERE c_acctbal > 9000) OR count(*) > 30`,
  // issue 30, the last refusals: NOT EXISTS reading the query two levels up; a scalar subquery that may find several rows
  'not-exists-two-levels-up': `SELECT c_custkey FROM dbB.customer c WHERE NOT EXISTS (SELECT 1 FROM dbA.orders o WHERE o.o_custkey = c.c_custkey AND NOT EXISTS (SELECT 1 FROM dbA.lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_linenumber = c.c_nationkey))`,
  'scalar-several-rows-checked': `SELECT c_custkey, (SELECT n_name FROM dbD.nation WHERE n_regionkey = c_nationkey) AS nation FROM dbB.customer WHERE c_acctbal > 9000`,
};

describe('subquery shapes, golden plans, layout pg-mariadb', () => {
  const registered = registeredSources('pg-mariadb');
  const catalog = new Catalog(registered);
  const input = { sources: sourcesFromRegistered(registered), options: { pushdown: true } };

  it.each(Object.keys(SUBQUERY_SHAPES))('%s', (name) => {
    const sql = SUBQUERY_SHAPES[name];
    const plan = optimize(bind(sql, catalog, {}).plan, input);
    const text = goldenText(name, 'pg-mariadb', sql, plan, [], registered).replace(/^-- JDV query (\S+), federated form/, '-- subquery shape $1');
    expectGolden(join(here, 'subqueries', `${name}.plan`), text);
  });
});

/**
 * Issue 30's cross-source shapes beside TPC-H's: what each source is sent and how the joins
 * left in Junction run.
 */
const FEDERATED_SHAPES: Record<string, string> = {
  // lineitem's filter has no index, its l_orderkey has: the orders found drive it by key
  'outer-join-chain-unindexed-filter': `SELECT c_custkey, o_orderkey, l_linenumber FROM dbB.customer LEFT JOIN dbA.orders ON o_custkey = c_custkey LEFT JOIN dbA.lineitem ON l_orderkey = o_orderkey AND l_shipdate = DATE '1998-11-01' WHERE c_nationkey = 9`,
};

describe('federated shapes, golden plans, layout pg-mariadb', () => {
  const registered = registeredSources('pg-mariadb');
  const catalog = new Catalog(registered);
  const input = { sources: sourcesFromRegistered(registered), options: { pushdown: true } };

  it.each(Object.keys(FEDERATED_SHAPES))('%s', (name) => {
    const sql = FEDERATED_SHAPES[name];
    const plan = optimize(bind(sql, catalog, {}).plan, input);
    const text = goldenText(name, 'pg-mariadb', sql, plan, [], registered).replace(/^-- JDV query (\S+), federated form/, '-- federated shape $1');
    expectGolden(join(here, 'shapes', `${name}.plan`), text);
  });
});

const SOURCE_OF: Record<string, string> = {
  orders: 'dbA',
  lineitem: 'dbA',
  customer: 'dbB',
  part: 'dbC',
  supplier: 'dbC',
  partsupp: 'dbC',
  nation: 'dbD',
  region: 'dbD',
};

function qualify(sql: string): string {
  return sql.replace(
    /\b(from|,|join)\s+(orders|lineitem|customer|partsupp|part|supplier|nation|region)\b/gi,
    (_m, kw: string, t: string) => `${kw} ${SOURCE_OF[t.toLowerCase()]}.${t}`,
  );
}

function goldenText(
  q: string,
  layout: string,
  sql: string,
  plan: LogicalPlan,
  params: Value[],
  registered: ReturnType<typeof registeredSources>,
): string {
  const remotes: Extract<LogicalPlan, { kind: 'Remote' }>[] = [];
  const visit = (p: LogicalPlan): void => {
    if (p.kind === 'Remote') {
      remotes.push(p);
      return;
    }
    if (p.kind === 'Join' || p.kind === 'MarkJoin' || p.kind === 'SetOp') {
      visit(p.left);
      visit(p.right);
    } else if (p.kind !== 'Scan' && p.kind !== 'Values') visit(p.input);
  };
  visit(plan);
  const lines = [
    `-- JDV query ${q}, federated form, layout ${layout}${params.length ? `, params ${JSON.stringify(params)}` : ''}`,
    sql,
    '',
    '== optimized plan',
    printPlan(plan),
    '',
    '== source queries',
  ];
  remotes.forEach((r, i) => {
    const source = registered.find((s) => s.name === r.source)!;
    const rendered = source.connector.render(toRemoteQuery(r, params));
    lines.push(`[${i + 1}] ${r.source} (${source.connector.engine})`, rendered.sql);
    if (rendered.params.length)
      lines.push(
        `params: ${rendered.params.map((v) => (typeof v === 'bigint' ? `${v}` : JSON.stringify(v))).join(', ')}`,
      );
  });
  return canonicalIds(lines.join('\n')) + '\n';
}

/** name#17 → name#1, … in order of first appearance. */
function canonicalIds(text: string): string {
  const map = new Map<string, number>();
  return text.replace(/([A-Za-z_][\w]*)#(\d+)/g, (_m, name: string, id: string) => {
    if (!map.has(id)) map.set(id, map.size + 1);
    return `${name}#${map.get(id)}`;
  });
}
