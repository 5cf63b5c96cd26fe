import { mkdtemp, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type Value } from '@junction/connectors';
import { loadTpch } from '@junction/tpch';
import { PRICE_FILE, documentTables, shredTpox, writeTpox } from '@junction/tpox';
import { Engine } from '../../src/engine.js';
import { createMysqlDatabase, createPgDatabase, type TestDatabase } from '../support/databases.js';

// TPoX-like XML documents and a Parquet file joined with TPC-H tables in PostgreSQL and MariaDB
// must answer exactly what one PostgreSQL database holding all of it (the documents shredded)
// answers. The customer ids of the documents are TPC-H's c_custkey.
const TPOX_SF = 0.002; // 300 customers, their accounts, positions and 900 FIXML orders
const TPCH_SF = 0.01;

let dir: string;
let pgSrc: TestDatabase;
let mySrc: TestDatabase;
let one: TestDatabase;
let oneClient: pg.Client;
let engine: Engine;
const connectors: Connector[] = [];

beforeAll(async () => {
  dir = realpathSync(await mkdtemp(path.join(os.tmpdir(), 'jt-docs-fed-')));
  await writeTpox(dir, { sf: TPOX_SF, parquet: true });
  [pgSrc, mySrc, one] = await Promise.all([createPgDatabase('docfed_pg'), createMysqlDatabase('docfed_my'), createPgDatabase('docfed_one')]);
  const pgC = await pgSrc.connector('pg');
  const myC = await mySrc.connector('my');
  const oneC = await one.connector('one');
  await loadTpch(
    [
      { name: 'pg', connector: pgC, tables: ['customer'] },
      { name: 'my', connector: myC, tables: ['nation'] },
      { name: 'one', connector: oneC, tables: ['customer', 'nation'] },
    ],
    { sf: TPCH_SF },
  );
  await shredTpox(oneC, { sf: TPOX_SF, prices: true });
  const c = one.config('one');
  oneClient = new pg.Client({ host: c.host, port: c.port, user: c.user, password: c.password, database: c.database });
  await oneClient.connect();

  const docs = createConnector({
    name: 'docs',
    engine: 'documents',
    options: { fileRoots: [dir], documents: { root: dir, tables: documentTables('collection') } },
  });
  const files = createConnector({
    name: 'files',
    engine: 'duckdb',
    options: { fileRoots: [dir], files: { root: dir, tables: [{ name: 'prices', path: PRICE_FILE }] } },
  });
  connectors.push(docs, files);
  engine = new Engine({ workers: 1 });
  for (const c of [docs, files, pgC, myC])
    engine.addSource({ name: c.name, connector: c, catalog: await c.introspect(), semantics: await c.probe() });
}, 240_000);

afterAll(async () => {
  await engine?.close();
  for (const c of connectors) await c.close().catch(() => undefined);
  await oneClient?.end().catch(() => undefined);
  await Promise.all([pgSrc?.drop(), mySrc?.drop(), one?.drop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const text = (v: Value | undefined): string => (v === null || v === undefined ? 'NULL' : String(v));

async function federated(sql: string): Promise<string[][]> {
  const r = await engine.query(sql);
  const out: string[][] = [];
  for await (const b of r.rows) for (const row of b) out.push(row.map(text));
  return out;
}

/** the same SQL on the one database: the sources' qualifiers dropped, its tables in public */
async function direct(sql: string): Promise<string[][]> {
  const r = await oneClient.query({ text: sql.replace(/\b(pg|my|docs|files)\./g, ''), rowMode: 'array' });
  return r.rows.map((row: unknown[]) =>
    row.map((v) => (v === null ? 'NULL' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v))),
  );
}

const QUERIES: Record<string, string> = {
  'holdings by nation at the 2005 close (XML ⋈ Parquet ⋈ PostgreSQL ⋈ MariaDB)': `
    SELECT n.n_name, count(*) AS positions, sum(p.qty * pr.close) AS value
    FROM pg.customer c
    JOIN my.nation n ON n.n_nationkey = c.c_nationkey
    JOIN docs.account a ON a.customer_id = c.c_custkey
    JOIN docs.position p ON p.account_id = a.account_id
    JOIN files.prices pr ON pr.symbol = p.symbol
    WHERE pr.day = DATE '2005-12-30'
    GROUP BY n.n_name ORDER BY n.n_name`,
  'accounts of a few customers, by key (filters evaluated while streaming)': `
    SELECT a.account_id, a.currency, a.online_actual_bal, a.opening_date, c.c_name
    FROM docs.account a JOIN pg.customer c ON c.c_custkey = a.customer_id
    WHERE a.customer_id IN (5, 77, 150, 299) ORDER BY a.account_id`,
  'orders per sector, funds (no sector) included (namespaced FIXML ⋈ securities)': `
    SELECT s.sector, count(o.order_id) AS orders, sum(o.price * o.quantity) AS notional
    FROM docs.security s LEFT JOIN docs.orders o ON o.symbol = s.symbol
    GROUP BY s.sector ORDER BY s.sector NULLS FIRST`,
  'customers without a EUR account (anti join across sources)': `
    SELECT c.c_custkey, c.c_mktsegment FROM pg.customer c
    WHERE c.c_custkey <= 300
      AND NOT EXISTS (SELECT 1 FROM docs.account a WHERE a.customer_id = c.c_custkey AND a.currency = 'EUR')
    ORDER BY c.c_custkey`,
  "an order's trade day against that day's close (XML attributes ⋈ Parquet)": `
    SELECT o.order_id, o.symbol, o.trade_date, o.price, pr.close, o.price - pr.close AS diff
    FROM docs.orders o JOIN files.prices pr ON pr.symbol = o.symbol AND pr.day = o.trade_date
    WHERE o.account_id IN (SELECT a.account_id FROM docs.account a WHERE a.customer_id BETWEEN 10 AND 20)
    ORDER BY o.order_id`,
};

describe('document and file sources joined with database sources', () => {
  for (const [what, sql] of Object.entries(QUERIES)) {
    it(`${what}: equal to one PostgreSQL database holding all of it`, async () => {
      const want = await direct(sql);
      expect(want.length).toBeGreaterThan(0);
      expect(await federated(sql)).toEqual(want);
    });
  }
});
