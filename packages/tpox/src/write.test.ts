import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expectedRowCount } from '@junction/tpch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXML_NS, customer, order, priceHistory, scaleOf, securities } from './generate.js';
import { writeTpox, type WriteResult } from './write.js';
import { all, child, count, readXml, textAt } from './test-support.js';

const SF = 0.001;
let dir: string;
let result: WriteResult;

async function hashes(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of (await readdir(folder, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const rel = path.relative(folder, path.join(f.parentPath, f.name));
    out[rel] = createHash('sha256')
      .update(await readFile(path.join(folder, rel)))
      .digest('hex')
      .slice(0, 16);
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tpox-write-'));
  result = await writeTpox(path.join(dir, 'a'), { sf: SF });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('scale', () => {
  it("has TPC-H's customer count, so ids are exactly c_custkey 1 … n", () => {
    for (const sf of [0.001, 0.01, 0.1, 1]) expect(scaleOf(sf).customers).toBe(expectedRowCount('customer', sf));
    expect(scaleOf(0.01)).toEqual({ sf: 0.01, customers: 1500, orders: 4500, securities: 500 });
    expect(() => scaleOf(0)).toThrow('tpox: scale factor must be in [0.001, 10], got 0');
  });
});

describe('writeTpox', () => {
  it('is deterministic: the same seed writes the same bytes, another seed other bytes', async () => {
    const again = await writeTpox(path.join(dir, 'b'), { sf: SF });
    await writeTpox(path.join(dir, 'c'), { sf: SF, seed: 7 });
    const a = await hashes(path.join(dir, 'a'));
    expect(await hashes(path.join(dir, 'b'))).toEqual(a);
    expect(again).toEqual(result);
    const c = await hashes(path.join(dir, 'c'));
    expect(Object.keys(c).sort()).toEqual(['customers.xml', 'orders.xml', 'securities.xml']);
    for (const f of Object.keys(c)) expect(c[f]).not.toBe(a[f]);
    // pinned: a change to the generator changes the data every load marker records (bump TPOX_GENERATOR_VERSION)
    expect(a).toEqual(PINNED);
  });

  it('writes well-formed collection files whose element counts are exactly the documents generated', async () => {
    expect(result.documents).toEqual({ customers: 150, orders: 450, securities: 500 });
    expect(result.files).toEqual(['customers.xml', 'orders.xml', 'securities.xml']);
    const customers = await readXml(path.join(dir, 'a', 'customers.xml'));
    expect(customers.name).toBe('Customers');
    expect(all(customers, 'Customer').length).toBe(150);
    expect(count(customers, 'Account')).toBe(result.accounts);
    expect(count(customers, 'Position')).toBe(result.positions);
    let accounts = 0;
    let positions = 0;
    for (let id = 1; id <= 150; id++) {
      accounts += customer(20030101, id).accounts.length;
      positions += customer(20030101, id).accounts.reduce((n, a) => n + a.positions.length, 0);
    }
    expect([result.accounts, result.positions]).toEqual([accounts, positions]);
    expect([accounts, positions]).toEqual(PINNED_COUNTS);

    const orders = await readXml(path.join(dir, 'a', 'orders.xml'));
    const fixml = all(orders, 'FIXML');
    expect(fixml.length).toBe(450);
    expect(fixml.every((f) => f.uri === FIXML_NS && child(f, 'Order')?.uri === FIXML_NS)).toBe(true);
    const securitiesXml = await readXml(path.join(dir, 'a', 'securities.xml'));
    expect(all(securitiesXml, 'Security').length).toBe(500);
  });

  it('writes the values exactly: decimals as plain text with two digits, escaped text read back unescaped', async () => {
    const customers = await readXml(path.join(dir, 'a', 'customers.xml'));
    const balances = all(customers, 'Customer').flatMap((c) =>
      all(child(c, 'Accounts')!, 'Account').map((a) => textAt(a, 'Balance/OnlineActualBal')!),
    );
    expect(balances.every((b) => /^-?(0|[1-9]\d*)\.\d\d$/.test(b))).toBe(true);
    expect(balances.some((b) => b.startsWith('-'))).toBe(true);
    // the sum in cents, exactly, against the generator's own values
    const cents = (s: string): bigint => BigInt(s.replace('.', ''));
    let expected = 0n;
    for (let id = 1; id <= 150; id++) for (const a of customer(20030101, id).accounts) expected += cents(a.balance);
    expect(balances.reduce((n, b) => n + cents(b), 0n)).toBe(expected);

    const first = all(customers, 'Customer')[0];
    const c1 = customer(20030101, 1);
    expect(first.attrs).toEqual({ id: '1' });
    expect(textAt(first, 'Name/LastName')).toBe(c1.lastName);
    expect(
      all(child(first, 'Accounts')!, 'Account').map((a) => [a.attrs.id, textAt(a, 'Balance/OnlineActualBal')]),
    ).toEqual(c1.accounts.map((a) => [String(a.id), a.balance]));

    const orders = await readXml(path.join(dir, 'a', 'orders.xml'));
    const o7 = child(all(orders, 'FIXML')[6], 'Order')!;
    const g7 = order(20030101, scaleOf(SF), 7);
    expect(o7.attrs).toEqual({
      ID: '7',
      Side: String(g7.side),
      Acct: String(g7.accountId),
      TrdDt: g7.tradeDate,
      Px: g7.price,
    });
    expect(child(o7, 'Instrmt')!.attrs).toEqual({ Sym: g7.symbol });
    expect(all(orders, 'FIXML').every((f) => /^(0|[1-9]\d*)\.\d\d$/.test(child(f, 'Order')!.attrs.Px))).toBe(true);

    const secs = all(await readXml(path.join(dir, 'a', 'securities.xml')), 'Security');
    const names = secs.map((s) => textAt(s, 'Name')!);
    expect(names).toEqual(securities().map((s) => s.name));
    expect(names.some((n) => n.includes(' & '))).toBe(true);
    expect(secs.map((s) => textAt(s, 'SecurityInformation/StockInformation/Industry') ?? null)).toEqual(
      securities().map((s) => s.industry ?? null),
    );
    expect((await readFile(path.join(dir, 'a', 'securities.xml'), 'utf8')).includes(' &amp; ')).toBe(true);
  });

  it('writes one file per document, each a well-formed document with the collection file’s content', async () => {
    const r = await writeTpox(path.join(dir, 'files'), { sf: SF, layout: 'files' });
    expect(r.files.length).toBe(150 + 450 + 500);
    expect((await readdir(path.join(dir, 'files', 'custacc'))).length).toBe(150);
    const c42 = await readXml(path.join(dir, 'files', 'custacc', '42.xml'));
    const fromCollection = all(await readXml(path.join(dir, 'a', 'customers.xml')), 'Customer')[41];
    expect(c42).toEqual(fromCollection);
    const o9 = await readXml(path.join(dir, 'files', 'order', '9.xml'));
    expect([o9.name, o9.uri, child(o9, 'Order')!.attrs.ID]).toEqual(['FIXML', FIXML_NS, '9']);
    const sym = securities()[3].symbol;
    expect(textAt(await readXml(path.join(dir, 'files', 'security', `${sym}.xml`)), 'Symbol')).toBe(sym);
  });

  it('writes prices.parquet with exact decimal closes, the last one each security’s LastTrade', async () => {
    const r = await writeTpox(path.join(dir, 'p'), { sf: SF, parquet: true });
    expect(r.prices).toBe(500 * 260);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const file = path.join(dir, 'p', 'prices.parquet');
      const read = async (sql: string) => (await conn.runAndReadAll(sql)).getRowsJS();
      expect(
        await read(`SELECT count(*), count(DISTINCT symbol), min(day)::text, max(day)::text FROM '${file}'`),
      ).toEqual([[130000n, 500n, '2005-01-03', '2005-12-30']]);
      expect(await read(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${file}')`)).toEqual([
        ['symbol', 'VARCHAR'],
        ['day', 'DATE'],
        ['close', 'DECIMAL(10,2)'],
        ['volume', 'BIGINT'],
      ]);
      const s = securities()[10];
      const h = priceHistory(20030101, 11);
      expect(
        await read(`SELECT day::text, close::text FROM '${file}' WHERE symbol = '${s.symbol}' ORDER BY day LIMIT 2`),
      ).toEqual(h.slice(0, 2).map((p) => [p.day, p.close]));
      expect(h[h.length - 1].close).toBe(s.lastTrade);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});

const PINNED: Record<string, string> = {
  'customers.xml': '1bd324a4a6e07206',
  'orders.xml': '3af17a478b9305e3',
  'securities.xml': 'a509cf4bbb45d5b8',
};
const PINNED_COUNTS: [number, number] = [322, 1273];
