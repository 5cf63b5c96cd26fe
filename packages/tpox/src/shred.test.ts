import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createConnector, type Connector, type Row } from '@junction/connectors';
import { sourceFromUrl } from '@junction/tpch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceHistory } from './generate.js';
import { shredTpox } from './shred.js';
import { writeTpox, type WriteResult } from './write.js';
import { all, child, readXml, textAt, type El } from './test-support.js';

const SF = 0.001;
const url = process.env.TEST_PG_URL as string;

/**
 * The shredded tables against the documents as an XML reader sees them: the test shreds the
 * written files itself (saxes, independent of the generator's objects) and compares whole tables.
 */
describe('shredTpox into PostgreSQL', () => {
  const db = `i29_tpox_${randomBytes(4).toString('hex')}`;
  let admin: Connector;
  let target: Connector;
  let dir: string;
  let written: WriteResult;
  let customers: El[];

  beforeAll(async () => {
    admin = createConnector(sourceFromUrl('admin', url));
    await admin.execute(`create database "${db}"`);
    target = createConnector(sourceFromUrl('tpox', url, db));
    dir = await mkdtemp(path.join(os.tmpdir(), 'tpox-shred-'));
    written = await writeTpox(dir, { sf: SF });
    customers = all(await readXml(path.join(dir, 'customers.xml')), 'Customer');
  });

  afterAll(async () => {
    await target?.close();
    await admin?.execute(`drop database if exists "${db}" with (force)`);
    await admin?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const select = async (sql: string): Promise<Row[]> => (await target.execute(sql)).rows;

  it('loads as many rows as the documents hold, keyed and indexed, and skips a second load', async () => {
    const r = await shredTpox(target, { sf: SF });
    expect(r.skipped).toBe(false);
    expect(r.rows).toEqual({
      customer_account: written.documents.customers,
      account: written.accounts,
      position: written.positions,
      orders: written.documents.orders,
      security: written.documents.securities,
    });
    expect(r.rows).toEqual({ customer_account: 150, account: 322, position: 1273, orders: 450, security: 500 });
    expect(
      await select(`select tablename, indexname from pg_indexes where schemaname = 'public' order by 1, 2`),
    ).toEqual([
      ['account', 'account_customer_id_idx'],
      ['account', 'account_pkey'],
      ['customer_account', 'customer_account_pkey'],
      ['orders', 'orders_account_id_idx'],
      ['orders', 'orders_pkey'],
      ['orders', 'orders_symbol_idx'],
      ['position', 'position_customer_id_idx'],
      ['position', 'position_pkey'],
      ['position', 'position_symbol_idx'],
      ['security', 'security_pkey'],
    ]);
    const again = await shredTpox(target, { sf: SF });
    expect(again).toEqual({ skipped: true, rows: r.rows, seconds: 0 });
  });

  it('customer_account and account equal what the customer documents say, row for row', async () => {
    const fromXml = customers.map((c) => [
      Number(c.attrs.id),
      textAt(c, 'Name/FirstName'),
      textAt(c, 'Name/LastName'),
      textAt(c, 'DateOfBirth'),
      textAt(c, 'Gender'),
      textAt(c, 'Nationality'),
      textAt(c, 'CountryOfResidence'),
      textAt(c, 'PremiumCustomer'),
    ]);
    expect(await select('select * from customer_account order by customer_id')).toEqual(fromXml);
    const accounts = customers.flatMap((c) =>
      all(child(c, 'Accounts')!, 'Account').map((a) => [
        Number(a.attrs.id),
        Number(c.attrs.id),
        textAt(a, 'Category'),
        textAt(a, 'AccountTitle'),
        textAt(a, 'Currency'),
        textAt(a, 'OpeningDate'),
        textAt(a, 'Balance/OnlineActualBal'),
      ]),
    );
    expect(await select('select * from account order by account_id')).toEqual(accounts);
    // a few spelled out, so a reader sees the shapes: exact decimal text, a date, ids
    expect(await select('select * from account where customer_id = 1 order by account_id')).toEqual([
      [11, 1, 'Checking', 'Personal Checking Silva', 'EUR', '1999-12-28', '98223.28'],
    ]);
  });

  it('position, orders and security equal the holdings, FIXML orders and security documents', async () => {
    const positions = customers.flatMap((c) =>
      all(child(c, 'Accounts')!, 'Account').flatMap((a) =>
        all(child(a, 'Holdings')!, 'Position').map((p) => [
          Number(c.attrs.id),
          Number(a.attrs.id),
          textAt(p, 'Symbol'),
          textAt(p, 'Name'),
          textAt(p, 'Type'),
          Number(textAt(p, 'Qty')),
        ]),
      ),
    );
    // symbols compared by code point on both sides (C collation in PostgreSQL)
    const byKey = (a: unknown[], b: unknown[]): number =>
      (a[1] as number) - (b[1] as number) || (String(a[2]) < String(b[2]) ? -1 : 1);
    expect(await select('select * from position order by account_id, symbol collate "C"')).toEqual(
      positions.sort(byKey),
    );
    const orders = all(await readXml(path.join(dir, 'orders.xml')), 'FIXML').map((f) => {
      const o = child(f, 'Order')!;
      return [
        Number(o.attrs.ID),
        Number(o.attrs.Acct),
        Number(o.attrs.Side),
        o.attrs.TrdDt,
        o.attrs.Px,
        child(o, 'Instrmt')!.attrs.Sym,
        Number(child(o, 'OrdQty')!.attrs.Qty),
      ];
    });
    expect(await select('select * from orders order by order_id')).toEqual(orders);
    expect(await select('select * from orders where order_id = 1')).toEqual([
      [1, 192, 2, '2005-07-15', '323.84', 'LWL', 750],
    ]);
    const securities = all(await readXml(path.join(dir, 'securities.xml')), 'Security').map((s) => [
      textAt(s, 'Symbol'),
      textAt(s, 'Name'),
      textAt(s, 'SecurityType'),
      textAt(s, 'SecurityInformation/StockInformation/Sector') ?? null,
      textAt(s, 'SecurityInformation/StockInformation/Industry') ?? null,
      textAt(s, 'SecurityInformation/FundInformation/FundFamily') ?? null,
      textAt(s, 'Price/LastTrade'),
    ]);
    expect(await select('select * from security order by symbol collate "C"')).toEqual(
      securities.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
    );
    // every order's account is one of the documents' accounts
    expect(
      await select(
        'select count(*) from orders o left join account a on a.account_id = o.account_id where a.account_id is null',
      ),
    ).toEqual([[0n]]);
  });

  it('with prices, reloads (the marker differs) and adds the daily closes exactly as prices.parquet holds them', async () => {
    const r = await shredTpox(target, { sf: SF, prices: true });
    expect(r.skipped).toBe(false);
    expect(r.rows).toEqual({
      customer_account: 150,
      account: 322,
      position: 1273,
      orders: 450,
      security: 500,
      prices: 130000,
    });
    const h = priceHistory(20030101, 11);
    expect(await select(`select * from prices where symbol = '${h[0].symbol}' order by day limit 2`)).toEqual(
      h.slice(0, 2).map((p) => [p.symbol, p.day, p.close, BigInt(p.volume)]),
    );
    expect(
      await select(
        `select count(*) from prices p join security s on s.symbol = p.symbol and p.day = '2005-12-30' and p.close = s.last_trade`,
      ),
    ).toEqual([[500n]]);
  });
});
