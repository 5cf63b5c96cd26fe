import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createConnector, formatType, type Row, type Value } from '@junction/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED, FIXML_NS, scaleOf } from './generate.js';
import { rowsOf } from './shred.js';
import { TPOX_TABLES, documentTables, type Layout } from './tables.js';
import { writeTpox } from './write.js';

const SF = 0.001;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tpox-docs-'));
  await writeTpox(path.join(dir, 'collection'), { sf: SF });
  await writeTpox(path.join(dir, 'files'), { sf: SF, layout: 'files' });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const text = (row: readonly Value[]): string => row.map((v) => (v === null ? 'NULL' : String(v))).join('|');

describe('documentTables', () => {
  it('spells each table as row and column paths over the collection files or the document folders', () => {
    const [collection, files] = (['collection', 'files'] as const).map((l) =>
      documentTables(l).find((t) => t.name === 'orders'),
    );
    expect(collection).toEqual({
      name: 'orders',
      format: 'xml',
      from: { path: 'orders.xml' },
      rowPath: '/Orders/f:FIXML/f:Order',
      namespaces: { f: FIXML_NS },
      columns: [
        { name: 'order_id', path: '@ID', type: 'integer' },
        { name: 'account_id', path: '@Acct', type: 'integer' },
        { name: 'side', path: '@Side', type: 'integer' },
        { name: 'trade_date', path: '@TrdDt', type: 'date' },
        { name: 'price', path: '@Px', type: 'decimal(10,2)' },
        { name: 'symbol', path: 'f:Instrmt/@Sym', type: 'text' },
        { name: 'quantity', path: 'f:OrdQty/@Qty', type: 'integer' },
      ],
    });
    expect(files).toEqual({ ...collection, from: { path: 'order/*.xml' }, rowPath: '/f:FIXML/f:Order' });
    expect(documentTables('files').find((t) => t.name === 'position')?.rowPath).toBe(
      '/Customer/Accounts/Account/Holdings/Position',
    );
  });
});

/**
 * Through the documents connector (engine 'documents'), every table reads back exactly the rows the
 * shredder loads into PostgreSQL: the paths, types and the generator agree.
 */
describe.each(['collection', 'files'] as const)('the documents connector over the %s layout', (layout: Layout) => {
  it('reads every table exactly as the shredded rows, with the declared types', async () => {
    const root = path.join(dir, layout);
    const connector = createConnector({
      name: 'tpox',
      engine: 'documents',
      options: { fileRoots: [dir], documents: { root, tables: documentTables(layout) } },
    });
    try {
      const catalog = await connector.introspect();
      for (const def of TPOX_TABLES) {
        const table = catalog.tables.find((t) => t.name === def.name);
        expect(table?.columns.map((c) => [c.name, formatType(c.type)])).toEqual(
          def.columns.map((c) => [c.name, c.type === 'integer' ? 'int32' : c.type === 'date' ? 'date' : c.type]),
        );
        const rendered = connector.render({
          select: table!.columns.map((c) => ({
            expr: { kind: 'column', table: 't', column: c.name, type: c.type },
            alias: c.name,
          })),
          from: { kind: 'table', alias: 't', table: def.name },
        });
        const got: Row[] = [];
        for await (const b of connector.stream(rendered)) got.push(...b.rows);
        const expected = [...rowsOf(def.name, DEFAULT_SEED, scaleOf(SF))];
        // the folder layout reads files in name order ("10.xml" before "2.xml"), not document order
        if (layout === 'files') expect(got.map(text).sort()).toEqual(expected.map(text).sort());
        else expect(got).toEqual(expected);
      }
    } finally {
      await connector.close();
    }
  });
});
