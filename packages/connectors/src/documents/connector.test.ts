import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DocumentTableSpec, SourceConfig } from '../contract/connector.js';
import type { JunctionError } from '../contract/errors.js';
import type { RemoteExpr, RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import { t, type JType, type Row, type Value } from '../contract/types.js';
import { createConnector } from '../create-connector.js';
import { DocumentsConnector, previewDocumentTable, selectAll } from './connector.js';

let root: string;

const BANK = `<?xml version="1.0"?>
<b:Bank xmlns:b="urn:bank" xmlns="urn:bank:acct">
  <b:Customer id="C-1">
    <Account id="1" opened="2020-01-31"><Currency>EUR</Currency><Balance><OnlineActualBal>1909572716.10</OnlineActualBal></Balance></Account>
    <Account id="2" opened="2021-06-01"><Currency>USD</Currency><Balance><OnlineActualBal>-12.5</OnlineActualBal></Balance></Account>
  </b:Customer>
  <b:Customer id="C-2">
    <Account id="3"><Currency>EUR</Currency><Balance><OnlineActualBal>0.01</OnlineActualBal></Balance></Account>
    <Account id="4"><Currency>EUR</Currency><Balance><OnlineActualBal/></Balance></Account>
  </b:Customer>
</b:Bank>`;

const ACCOUNTS: DocumentTableSpec = {
  name: 'accounts',
  format: 'xml',
  from: { path: 'bank.xml' },
  rowPath: '/b:Bank/b:Customer/Account',
  namespaces: { b: 'urn:bank' },
  columns: [
    { name: 'id', path: '@id', type: 'integer' },
    { name: 'customer', path: '../@id', type: 'varchar(10)' },
    { name: 'currency', path: 'Currency', type: 'char(3)' },
    { name: 'balance', path: 'Balance/OnlineActualBal', type: 'decimal(15,2)' },
    { name: 'opened', path: '@opened', type: 'date' },
  ],
};

const EVENTS: DocumentTableSpec = {
  name: 'events',
  format: 'json',
  from: { path: 'events.ndjson' },
  rowPath: '$',
  columns: [
    { name: 'id', path: '$.id', type: 'bigint' },
    { name: 'amount', path: '$.amount.value', type: 'decimal(20,4)' },
    { name: 'at', path: '$.at', type: 'timestamptz' },
    { name: 'ok', path: '$.ok', type: 'boolean' },
    { name: 'meta', path: '$.meta', type: 'text' },
  ],
};

const config = (
  tables: DocumentTableSpec[],
  options: Partial<NonNullable<SourceConfig['options']>> = {},
): SourceConfig => ({
  name: 'docs',
  engine: 'documents',
  options: { fileRoots: [root], documents: { root, tables }, ...options },
});

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'i29-docs-conn-'));
  fs.writeFileSync(path.join(root, 'bank.xml'), BANK);
  fs.writeFileSync(
    path.join(root, 'events.ndjson'),
    [
      '{"id": 9007199254740993, "amount": {"value": 123456789012.3456}, "at": "2024-05-01T12:00:00+02:00", "ok": true, "meta": {"k": [1, 2.50]}}',
      '{"id": 2, "amount": {"value": "7"}, "at": "2024-05-02T00:00:00Z", "ok": false}',
      '{"id": 3}',
    ].join('\n') + '\n',
  );
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function all(rows: AsyncIterable<{ rows: Row[] }>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const b of rows) out.push(...b.rows);
  return out;
}

const col = (column: string, type: JType): RemoteExpr => ({ kind: 'column', table: 'a', column, type });
const lit = (value: Value, type: JType): RemoteExpr => ({ kind: 'literal', value, type });
const cmp = (fn: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge', a: RemoteExpr, b: RemoteExpr): RemoteExpr => ({
  kind: 'call',
  fn,
  args: [a, b],
  type: t.bool,
});
const DEC = t.decimal(15, 2);

describe('DocumentsConnector', () => {
  it('lists one table per definition with its declared types', async () => {
    const c = createConnector(config([ACCOUNTS, EVENTS]));
    expect(c).toBeInstanceOf(DocumentsConnector);
    const snap = await c.introspect();
    expect(snap.defaultSchema).toBe('main');
    expect(
      snap.tables.map((x) => [x.schema, x.name, x.columns.map((k) => [k.name, k.type, k.nativeType, k.nullable])]),
    ).toEqual([
      [
        'main',
        'accounts',
        [
          ['id', t.int32, 'integer', true],
          ['customer', t.varchar(10), 'varchar(10)', true],
          ['currency', t.char(3), 'char(3)', true],
          ['balance', DEC, 'decimal(15,2)', true],
          ['opened', t.date, 'date', true],
        ],
      ],
      [
        'main',
        'events',
        [
          ['id', t.int64, 'bigint', true],
          ['amount', t.decimal(20, 4), 'decimal(20,4)', true],
          ['at', t.timestamptz, 'timestamptz', true],
          ['ok', t.bool, 'boolean', true],
          ['meta', t.string, 'text', true],
        ],
      ],
    ]);
    expect(await c.probe()).toEqual({
      serverVersion: 'documents 1',
      defaultCollation: 'C',
      caseSensitive: true,
      accentSensitive: true,
      padSpace: false,
      timeZone: 'UTC',
      maxBindParams: 65535,
      maxIdentifierLength: 1024,
    });
  });

  it('reads XML rows in Junction values: exact decimals, ancestor attributes, empty elements as NULL', async () => {
    const c = new DocumentsConnector(config([ACCOUNTS]));
    expect(await all(c.stream(c.render(selectAll(ACCOUNTS))))).toEqual([
      [1, 'C-1', 'EUR', '1909572716.10', '2020-01-31'],
      [2, 'C-1', 'USD', '-12.50', '2021-06-01'],
      [3, 'C-2', 'EUR', '0.01', null],
      [4, 'C-2', 'EUR', null, null],
    ]);
  });

  it('reads NDJSON rows: int64 past 2^53, exact decimals, UTC timestamps, nested objects as JSON text', async () => {
    const c = new DocumentsConnector(config([EVENTS]));
    expect(await all(c.stream(c.render(selectAll(EVENTS))))).toEqual([
      [9007199254740993n, '123456789012.3456', '2024-05-01T10:00:00Z', true, '{"k":[1,2.50]}'],
      [2n, '7.0000', '2024-05-02T00:00:00Z', false, null],
      [3n, null, null, null, null],
    ]);
  });

  it('evaluates pushed filters while reading, projecting only what was asked', async () => {
    const c = new DocumentsConnector(config([ACCOUNTS]));
    const q: RemoteQuery = {
      select: [
        { expr: col('id', t.int32), alias: 'id' },
        { expr: col('balance', DEC), alias: 'bal' },
      ],
      from: { kind: 'table', alias: 'a', table: 'accounts' },
      where: {
        kind: 'call',
        fn: 'and',
        args: [
          cmp('gt', col('balance', DEC), lit('0.00', DEC)),
          { kind: 'in', expr: col('currency', t.char(3)), list: [lit('EUR', t.char(3))], negated: false, type: t.bool },
        ],
        type: t.bool,
      },
    };
    const r = c.render(q);
    expect([r.sql, r.params]).toEqual([
      'SELECT "id", "balance" AS "bal" FROM "accounts" WHERE ("balance" > $1 AND "currency" IN ($2))',
      ['0.00', 'EUR'],
    ]);
    expect(await all(c.stream(r))).toEqual([
      [1, '1909572716.10'],
      [3, '0.01'],
    ]);
    const keys: RemoteQuery = {
      ...q,
      where: { kind: 'keySet', expr: col('id', t.int32), values: [4, 2], type: t.bool },
      limit: 10,
    };
    const rk = c.render(keys);
    expect(rk.sql).toBe('SELECT "id", "balance" AS "bal" FROM "accounts" WHERE "id" IN ($1, $2) LIMIT 10');
    expect(await all(c.stream(rk))).toEqual([
      [2, '-12.50'],
      [4, null],
    ]);
    const nulls: RemoteQuery = {
      ...q,
      where: { kind: 'call', fn: 'is_null', args: [col('opened', t.date)], type: t.bool },
      distinct: true,
      select: [q.select[0]],
    };
    expect(await all(c.stream(c.render(nulls)))).toEqual([[3], [4]]);
  });

  it('stops reading the file once LIMIT rows are out', async () => {
    const big = path.join(root, 'big.xml');
    const unit =
      '<Account id="7" xmlns="urn:bank:acct"><Currency>EUR</Currency><Balance><OnlineActualBal>1.00</OnlineActualBal></Balance></Account>\n';
    fs.writeFileSync(
      big,
      '<b:Bank xmlns:b="urn:bank"><b:Customer id="X">' + unit.repeat(200_000) + '</b:Customer></b:Bank>',
    );
    const size = fs.statSync(big).size;
    const table: DocumentTableSpec = { ...ACCOUNTS, from: { path: 'big.xml' } };
    const streams: fs.ReadStream[] = [];
    const original = fs.createReadStream;
    const spy = vi.spyOn(fs, 'createReadStream').mockImplementation(((
      ...args: Parameters<typeof fs.createReadStream>
    ) => {
      const s = original(...args);
      streams.push(s);
      return s;
    }) as typeof fs.createReadStream);
    try {
      const rows = await previewDocumentTable(config([table]), 'accounts', 3);
      expect(rows.rows).toEqual([
        [7, 'X', 'EUR', '1.00', null],
        [7, 'X', 'EUR', '1.00', null],
        [7, 'X', 'EUR', '1.00', null],
      ]);
      expect(streams).toHaveLength(1);
      expect(streams[0].destroyed).toBe(true);
      expect(size).toBeGreaterThan(25_000_000);
      expect(streams[0].bytesRead).toBeLessThanOrEqual(128 * 1024);
    } finally {
      spy.mockRestore();
    }
  });

  it('stops on cancel and on timeout with the errors every connector raises', async () => {
    let sent = 0;
    let closed = false;
    const server = http.createServer((_req, res) => {
      res.writeHead(200);
      res.write('<r>');
      const timer = setInterval(() => {
        sent++;
        res.write('<a id="x"/>');
      }, 5);
      res.on('close', () => {
        closed = true;
        clearInterval(timer);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const table: DocumentTableSpec = {
        name: 'slow',
        format: 'xml',
        from: { url: `http://127.0.0.1:${port}/slow.xml` },
        rowPath: '/r/a',
        columns: [{ name: 'id', path: '@id', type: 'text' }],
      };
      const c = new DocumentsConnector(config([table], { urlHosts: [`127.0.0.1:${port}`] }));
      const r = c.render(selectAll(table));
      const ac = new AbortController();
      const seen: Row[] = [];
      const cancelled = (async () => {
        for await (const b of c.stream(r, { signal: ac.signal, batchSize: 1 })) {
          seen.push(...b.rows);
          if (seen.length === 3) ac.abort();
        }
      })();
      const err = (await cancelled.then(
        () => undefined,
        (e: unknown) => e,
      )) as JunctionError;
      expect([err.code, err.kind, err.message]).toEqual([
        'source_statement_cancelled',
        'cancelled',
        'The statement on source "docs" was cancelled.',
      ]);
      const timedOut = (await all(c.stream(r, { timeoutMs: 100 })).then(
        () => undefined,
        (e: unknown) => e,
      )) as JunctionError;
      expect([timedOut.code, timedOut.kind]).toEqual(['source_statement_timeout', 'timeout']);
      await vi.waitFor(() => expect(closed).toBe(true));
      expect(sent).toBeGreaterThan(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('aborts the download once LIMIT rows are out', async () => {
    let sent = 0;
    let closed = false;
    const server = http.createServer((_req, res) => {
      res.writeHead(200);
      res.write('[\n');
      // an endless JSON array: only stopping the download ends this response
      const timer = setInterval(() => {
        sent++;
        res.write(`{"n": ${sent}.0},\n`);
      }, 2);
      res.on('close', () => {
        closed = true;
        clearInterval(timer);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const table: DocumentTableSpec = {
        name: 'feed',
        format: 'json',
        from: { url: `http://127.0.0.1:${port}/feed.json` },
        rowPath: '$[*]',
        columns: [{ name: 'n', path: '$.n', type: 'decimal(5,1)' }],
      };
      const preview = await previewDocumentTable(config([table], { urlHosts: ['127.0.0.1'] }), 'feed', 2);
      expect(preview).toEqual({
        columns: [{ name: 'n', type: t.decimal(5, 1), nullable: true }],
        rows: [['1.0'], ['2.0']],
      });
      await vi.waitFor(() => expect(closed).toBe(true));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('reads documents that start with a byte order mark', async () => {
    fs.writeFileSync(path.join(root, 'bom.ndjson'), '\uFEFF{"id": 1}\n{"id": 2}\n');
    fs.writeFileSync(path.join(root, 'bom.xml'), '\uFEFF<?xml version="1.0"?><r><a id="1"/></r>');
    const json: DocumentTableSpec = {
      ...EVENTS,
      name: 'bomj',
      from: { path: 'bom.ndjson' },
      columns: [EVENTS.columns[0]],
    };
    const xml: DocumentTableSpec = {
      name: 'bomx',
      format: 'xml',
      from: { path: 'bom.xml' },
      rowPath: '/r/a',
      columns: [{ name: 'id', path: '@id', type: 'integer' }],
    };
    expect((await previewDocumentTable(config([json]), 'bomj', 10)).rows).toEqual([[1n], [2n]]);
    expect((await previewDocumentTable(config([xml]), 'bomx', 10)).rows).toEqual([[1]]);
  });

  it('names the table, column, path and value of text that is not of its type', async () => {
    fs.writeFileSync(path.join(root, 'bad.xml'), '<r><a n="1"/><a n="1,5"/></r>');
    const table: DocumentTableSpec = {
      name: 'bad',
      format: 'xml',
      from: { path: 'bad.xml' },
      rowPath: '/r/a',
      columns: [{ name: 'n', path: '@n', type: 'numeric(5,1)' }],
    };
    const err = (await previewDocumentTable(config([table]), table, 5).then(
      () => undefined,
      (e: unknown) => e,
    )) as JunctionError;
    expect([err.code, err.kind, err.message]).toEqual([
      'invalid_text_representation',
      'user',
      'Document table "bad" (source "docs"): column "n" (path "@n" under rows "/r/a") holds "1,5", which is not a valid decimal(5,1). Fix the document or declare the column as text.',
    ]);
  });

  it('has no native SQL and cannot be loaded into', async () => {
    const c = new DocumentsConnector(config([ACCOUNTS]));
    await expect(c.execute('SELECT 1')).rejects.toMatchObject({ code: 'native_sql_unsupported', kind: 'unsupported' });
    await expect(c.bulkLoad({ name: 'x', columns: [] }, (async function* () {})())).rejects.toMatchObject({
      code: 'bulk_load_unsupported',
    });
    const stray: RenderedQuery = { sql: 'SELECT "id" FROM "nope"', params: [], columns: [] };
    await expect(all(c.stream(stray))).rejects.toMatchObject({
      code: 'table_not_found',
      message: 'Source "docs" has no document table "nope".',
    });
  });

  it('names the table and column of a path it cannot read', async () => {
    const c = new DocumentsConnector(
      config([{ ...ACCOUNTS, columns: [{ name: 'name', path: '../Name', type: 'text' }] }]),
    );
    await expect(c.introspect()).rejects.toMatchObject({
      code: 'document_path_invalid',
      message: `Document table "accounts", column "name": The column path "../Name" is not a path documents understand: after '..' only an attribute ('../@id') can be read: earlier elements are gone when the row streams.`,
    });
  });

  it('diagnoses a missing document', async () => {
    const c = new DocumentsConnector(config([{ ...ACCOUNTS, from: { path: 'gone.xml' } }]));
    expect(await c.test()).toEqual({
      ok: false,
      code: 'file_missing',
      message: 'Document "gone.xml" of table "accounts" (source "docs") does not exist.',
      hint: 'Check the path: it is resolved on the machine running Junction, relative to the documents root.',
    });
    expect(await new DocumentsConnector(config([ACCOUNTS, EVENTS])).test()).toMatchObject({ ok: true });
  });
});
