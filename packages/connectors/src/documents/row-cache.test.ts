import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentTableSpec, SourceConfig } from '../contract/connector.js';
import type { RemoteExpr, RemoteQuery } from '../contract/remote-query.js';
import { t, type JType, type Row, type Value } from '../contract/types.js';
import { DocumentsConnector, selectAll } from './connector.js';
import { decimalKey, equalityKeys } from './filter.js';
import { RowCache, rowBytes } from './row-cache.js';

let root: string;

/** Amounts spelled several ways, NULLs (a missing element, an empty one), padded char(3) codes. */
const ITEMS = `<?xml version="1.0"?>
<shop>
  <item id="1" sku="A-1"><code>EUR</code><amount>1.50</amount><price>2.5</price><day>2024-01-01</day></item>
  <item id="2" sku="A-2"><code>US</code><amount>1.5</amount><price>2.50</price><day>2024-01-02</day></item>
  <item id="3" sku="B-1"><code>EUR</code><amount>+01.500</amount><price>-0</price></item>
  <item id="4" sku="B-2"><code>GBP</code><price>0</price><day>2024-01-01</day></item>
  <item id="5" sku="C-1"><code>US </code><amount/><price>NaN</price><day>2024-01-03</day></item>
  <item id="6" sku="C-2"><code>EUR</code><amount>-0.0</amount><price>NaN</price><day>2024-01-02</day></item>
  <item id="7"><code>EUR</code><amount>0</amount><price>3</price><day>2024-01-03</day></item>
  <item id="2" sku="A-2b"><code>CHF</code><amount>15e-1</amount><price>1e0</price><day>2024-01-01</day></item>
</shop>`;

const ITEMS_TABLE: DocumentTableSpec = {
  name: 'items',
  format: 'xml',
  from: { path: 'items.xml' },
  rowPath: '/shop/item',
  columns: [
    { name: 'id', path: '@id', type: 'integer' },
    { name: 'sku', path: '@sku', type: 'text' },
    { name: 'code', path: 'code', type: 'char(3)' },
    { name: 'amount', path: 'amount', type: 'numeric' },
    { name: 'price', path: 'price', type: 'double precision' },
    { name: 'day', path: 'day', type: 'date' },
  ],
};

const EVENTS_TABLE: DocumentTableSpec = {
  name: 'events',
  format: 'json',
  from: { path: 'events/*.ndjson' },
  rowPath: '$',
  columns: [
    { name: 'id', path: '$.id', type: 'bigint' },
    { name: 'kind', path: '$.kind', type: 'text' },
  ],
};

const config = (tables: DocumentTableSpec[], cacheBytes?: number, dir = root): SourceConfig => ({
  name: 'docs',
  engine: 'documents',
  options: {
    fileRoots: [dir],
    documents: { root: dir, tables, ...(cacheBytes !== undefined ? { cacheBytes } : {}) },
  },
});

async function all(rows: AsyncIterable<{ rows: Row[] }>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const b of rows) out.push(...b.rows);
  return out;
}

const INT = t.int32;
const NUM: JType = { kind: 'decimal' };
const col = (column: string, type: JType): RemoteExpr => ({ kind: 'column', table: 'i', column, type });
const lit = (value: Value, type: JType): RemoteExpr => ({ kind: 'literal', value, type });
const eq = (a: RemoteExpr, b: RemoteExpr): RemoteExpr => ({ kind: 'call', fn: 'eq', args: [a, b], type: t.bool });
const gt = (a: RemoteExpr, b: RemoteExpr): RemoteExpr => ({ kind: 'call', fn: 'gt', args: [a, b], type: t.bool });
const and = (...args: RemoteExpr[]): RemoteExpr => ({ kind: 'call', fn: 'and', args, type: t.bool });
const or = (...args: RemoteExpr[]): RemoteExpr => ({ kind: 'call', fn: 'or', args, type: t.bool });
const inList = (e: RemoteExpr, list: RemoteExpr[], negated = false): RemoteExpr => ({
  kind: 'in',
  expr: e,
  list,
  negated,
  type: t.bool,
});
const keySet = (e: RemoteExpr, values: Value[]): RemoteExpr => ({ kind: 'keySet', expr: e, values, type: t.bool });

const items = (where?: RemoteExpr, limit?: number): RemoteQuery => ({
  select: [
    { expr: col('id', INT), alias: 'id' },
    { expr: col('sku', t.string), alias: 'sku' },
  ],
  from: { kind: 'table', alias: 'i', table: 'items' },
  ...(where ? { where } : {}),
  ...(limit !== undefined ? { limit } : {}),
});

/** A filter, the rows it must give, in document order. */
const CASES: [string, RemoteExpr | undefined, Row[]][] = [
  [
    'no filter',
    undefined,
    [
      [1, 'A-1'],
      [2, 'A-2'],
      [3, 'B-1'],
      [4, 'B-2'],
      [5, 'C-1'],
      [6, 'C-2'],
      [7, null],
      [2, 'A-2b'],
    ],
  ],
  [
    'int = param, a repeated key',
    eq(col('id', INT), lit(2, INT)),
    [
      [2, 'A-2'],
      [2, 'A-2b'],
    ],
  ],
  ['param = int, reversed', eq(lit(7, INT), col('id', INT)), [[7, null]]],
  [
    'int = decimal 2.00',
    eq(col('id', INT), lit('2.00', NUM)),
    [
      [2, 'A-2'],
      [2, 'A-2b'],
    ],
  ],
  [
    'numeric = 1.5: every spelling of it',
    eq(col('amount', NUM), lit('1.5', NUM)),
    [
      [1, 'A-1'],
      [2, 'A-2'],
      [3, 'B-1'],
      [2, 'A-2b'],
    ],
  ],
  [
    'numeric = 0: -0.0 and 0, never the NULLs',
    eq(col('amount', NUM), lit('0.000', NUM)),
    [
      [6, 'C-2'],
      [7, null],
    ],
  ],
  [
    'double = 0: -0 and 0',
    eq(col('price', t.float64), lit(0, t.float64)),
    [
      [3, 'B-1'],
      [4, 'B-2'],
    ],
  ],
  [
    "double = NaN: NaN equals NaN in PostgreSQL's order",
    eq(col('price', t.float64), lit(NaN, t.float64)),
    [
      [5, 'C-1'],
      [6, 'C-2'],
    ],
  ],
  [
    'double = decimal 2.5',
    eq(col('price', t.float64), lit('2.50', NUM)),
    [
      [1, 'A-1'],
      [2, 'A-2'],
    ],
  ],
  ['= NULL matches nothing', eq(col('amount', NUM), lit(null, NUM)), []],
  [
    'char(3) = text: the padding is ignored on the char side only',
    eq(col('code', t.char(3)), lit('US', t.string)),
    [
      [2, 'A-2'],
      [5, 'C-1'],
    ],
  ],
  [
    // PostgreSQL: char(3) 'US' = 'US '::text is false (the char side loses its blanks, the text keeps them)
    "char(3) = text 'US ': the text's blank counts",
    eq(col('code', t.char(3)), lit('US ', t.string)),
    [],
  ],
  [
    'char(3) = char(3)',
    eq(col('code', t.char(3)), lit('US ', t.char(3))),
    [
      [2, 'A-2'],
      [5, 'C-1'],
    ],
  ],
  [
    'date = timestamp midnight',
    eq(col('day', t.date), lit('2024-01-02T00:00:00', t.timestamp)),
    [
      [2, 'A-2'],
      [6, 'C-2'],
    ],
  ],
  [
    'IN, with a NULL and a duplicate in the list',
    inList(col('id', INT), [lit(7, INT), lit(null, INT), lit(1, INT), lit(7, INT)]),
    [
      [1, 'A-1'],
      [7, null],
    ],
  ],
  [
    'NOT IN scans',
    inList(col('id', INT), [lit(1, INT), lit(2, INT), lit(3, INT)], true),
    [
      [4, 'B-2'],
      [5, 'C-1'],
      [6, 'C-2'],
      [7, null],
    ],
  ],
  [
    'keySet',
    keySet(col('sku', t.string), ['C-2', 'A-1', 'nope']),
    [
      [1, 'A-1'],
      [6, 'C-2'],
    ],
  ],
  [
    'AND: the lookup and the rest of the filter',
    and(eq(col('id', INT), lit(2, INT)), gt(col('price', t.float64), lit(2, t.float64))),
    [[2, 'A-2']],
  ],
  [
    'OR of lookups on two columns, in document order',
    or(eq(col('sku', t.string), lit('C-1', t.string)), inList(col('id', INT), [lit(3, INT), lit(1, INT)])),
    [
      [1, 'A-1'],
      [3, 'B-1'],
      [5, 'C-1'],
    ],
  ],
  [
    'OR with a part no index answers scans',
    or(eq(col('id', INT), lit(4, INT)), gt(col('amount', NUM), lit('1.4', NUM))),
    [
      [1, 'A-1'],
      [2, 'A-2'],
      [3, 'B-1'],
      [4, 'B-2'],
      [2, 'A-2b'],
    ],
  ],
  [
    'IS NULL',
    { kind: 'call', fn: 'is_null', args: [col('amount', NUM)], type: t.bool },
    [
      [4, 'B-2'],
      [5, 'C-1'],
    ],
  ],
  [
    'int = text compares as text',
    eq(col('id', INT), lit('2', t.string)),
    [
      [2, 'A-2'],
      [2, 'A-2b'],
    ],
  ],
];

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-row-cache-'));
  fs.writeFileSync(path.join(root, 'items.xml'), ITEMS);
  fs.mkdirSync(path.join(root, 'events'));
  fs.writeFileSync(path.join(root, 'events', 'a.ndjson'), '{"id": 1, "kind": "x"}\n{"id": 2, "kind": "y"}\n');
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('equality keys', () => {
  it('give one key per value the comparator calls equal', () => {
    expect(['1.50', '1.5', '+01.500', '1.5000'].map((x) => decimalKey(x))).toEqual(['+1.5', '+1.5', '+1.5', '+1.5']);
    expect(['0', '-0.0', '+000', '.0'].map((x) => decimalKey(x))).toEqual(['0', '0', '0', '0']);
    expect(decimalKey('-12.50')).toBe('-12.5');
    const dec = equalityKeys(NUM, INT);
    expect([dec.left.kind, dec.left.key('1.50'), dec.right.key(1), dec.right.key(10n)]).toEqual([
      'decimal',
      '+1.5',
      '+1.',
      '+10.',
    ]);
    const chars = equalityKeys(t.char(3), t.string);
    expect([chars.left.kind, chars.left.key('US '), chars.right.kind, chars.right.key('US ')]).toEqual([
      'string:trimmed',
      'US',
      'string',
      'US ',
    ]);
    const float = equalityKeys(t.float64, NUM);
    expect([float.left.key(-0), float.right.key('0.0'), float.left.key(NaN)]).toEqual(['0', '0', 'NaN']);
  });
});

describe('a read keeping rows', () => {
  it('gives up once the part read shows the whole file will not fit, and is not tried again on those files', () => {
    const cache = new RowCache(10_000_000);
    const load = cache.beginLoad('t', 'k1', 100 * 1024 * 1024)!;
    // 1000 rows of about 180 bytes from the first MiB of 100: some 18 MB in all
    for (let i = 0; i < 1000; i++) load.add(['x'.repeat(100), i]);
    load.progress(512 * 1024);
    expect([load.active, cache.stats().bytes]).toEqual([true, 1000 * rowBytes(['x'.repeat(100), 1])]);
    load.progress(1024 * 1024);
    expect(load.active).toBe(false);
    expect(cache.stats()).toMatchObject({ bytes: 0, refused: 1, tables: 0 });
    expect(cache.beginLoad('t', 'k1', 100 * 1024 * 1024)).toBeUndefined();
    // changed files may fit
    const again = cache.beginLoad('t', 'k2', 2 * 1024 * 1024)!;
    for (let i = 0; i < 1000; i++) again.add(['x'.repeat(100), i]);
    again.progress(1024 * 1024);
    expect(again.active).toBe(true);
    expect(again.commit('k2')?.rows.length).toBe(1000);
    expect(cache.stats()).toMatchObject({ tables: 1, loads: 1, refused: 1 });
  });

  it('keeps nothing when the files changed while they were read', () => {
    const cache = new RowCache(1_000_000);
    const load = cache.beginLoad('t', 'k1', 100)!;
    load.add([1]);
    expect(load.commit('k2')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ tables: 0, bytes: 0, loads: 0 });
  });
});

describe('the row cache', () => {
  it('answers every filter with exactly the rows streaming gives, without parsing again', async () => {
    const streamed = new DocumentsConnector(config([ITEMS_TABLE], 0));
    const cached = new DocumentsConnector(config([ITEMS_TABLE]));
    // a filtered query that reads the whole file fills the cache
    expect(await all(cached.stream(cached.render(items(eq(col('id', INT), lit(4, INT))))))).toEqual([[4, 'B-2']]);
    expect(cached.rowCacheStats()).toMatchObject({ tables: 1, loads: 1, parses: 1, hits: 0 });
    for (const [name, where, rows] of CASES) {
      const q = cached.render(items(where));
      expect([name, await all(streamed.stream(q))]).toEqual([name, rows]);
      expect([name, await all(cached.stream(q))]).toEqual([name, rows]);
    }
    const s = cached.rowCacheStats();
    expect([s.parses, s.loads, s.hits]).toEqual([1, 1, CASES.length]);
    // one index a column, and a second on id, compared as text once
    expect(s.indexes).toBe(7);
    expect(streamed.rowCacheStats()).toMatchObject({ budget: 0, tables: 0, parses: CASES.length });
  });

  it('keeps LIMIT and DISTINCT, batches of the asked size, rows in document order', async () => {
    const c = new DocumentsConnector(config([ITEMS_TABLE]));
    await all(c.stream(c.render(selectAll(ITEMS_TABLE))));
    const limited = c.render(items(inList(col('id', INT), [lit(7, INT), lit(2, INT), lit(1, INT)]), 2));
    expect(await all(c.stream(limited))).toEqual([
      [1, 'A-1'],
      [2, 'A-2'],
    ]);
    const batches: number[] = [];
    for await (const b of c.stream(c.render(items()), { batchSize: 3 })) batches.push(b.rows.length);
    expect(batches).toEqual([3, 3, 2]);
    const distinct = c.render({
      select: [{ expr: col('code', t.char(3)), alias: 'code' }],
      from: { kind: 'table', alias: 'i', table: 'items' },
      distinct: true,
    });
    expect(await all(c.stream(distinct))).toEqual([['EUR'], ['US '], ['GBP'], ['CHF']]);
    expect(c.rowCacheStats()).toMatchObject({ parses: 1, hits: 3 });
  });

  it('is not filled by a read LIMIT stopped early', async () => {
    const c = new DocumentsConnector(config([ITEMS_TABLE]));
    expect(await all(c.stream(c.render(items(undefined, 2))))).toEqual([
      [1, 'A-1'],
      [2, 'A-2'],
    ]);
    expect(c.rowCacheStats()).toMatchObject({ tables: 0, loads: 0, bytes: 0 });
    // a LIMIT the file does not reach still reads it all
    expect(await all(c.stream(c.render(items(eq(col('id', INT), lit(7, INT)), 5))))).toEqual([[7, null]]);
    expect(c.rowCacheStats()).toMatchObject({ tables: 1, loads: 1, parses: 2 });
  });

  it('reads a file again once it is rewritten, and a glob again once a file joins it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-row-cache-inv-'));
    try {
      const file = path.join(dir, 'items.xml');
      fs.writeFileSync(file, '<shop><item id="1" sku="old"/></shop>');
      const c = new DocumentsConnector(config([ITEMS_TABLE, EVENTS_TABLE], undefined, dir));
      const bySku = c.render(items(eq(col('id', INT), lit(1, INT))));
      expect(await all(c.stream(bySku))).toEqual([[1, 'old']]);
      expect(await all(c.stream(bySku))).toEqual([[1, 'old']]);
      expect(c.rowCacheStats()).toMatchObject({ parses: 1, hits: 1 });
      // the same size: only the mtime (and maybe the inode) tells
      fs.writeFileSync(file, '<shop><item id="1" sku="new"/></shop>');
      fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
      expect(await all(c.stream(bySku))).toEqual([[1, 'new']]);
      expect(await all(c.stream(bySku))).toEqual([[1, 'new']]);
      expect(c.rowCacheStats()).toMatchObject({ parses: 2, hits: 2, loads: 2, tables: 1 });

      fs.mkdirSync(path.join(dir, 'events'));
      fs.writeFileSync(path.join(dir, 'events', 'a.ndjson'), '{"id": 1, "kind": "x"}\n');
      const events = c.render({
        select: [
          { expr: col('id', t.int64), alias: 'id' },
          { expr: col('kind', t.string), alias: 'kind' },
        ],
        from: { kind: 'table', alias: 'i', table: 'events' },
        where: inList(col('id', t.int64), [lit(1n, t.int64), lit(2n, t.int64)]),
      });
      expect(await all(c.stream(events))).toEqual([[1n, 'x']]);
      expect(await all(c.stream(events))).toEqual([[1n, 'x']]);
      expect(c.rowCacheStats()).toMatchObject({ parses: 3, hits: 3 });
      fs.writeFileSync(path.join(dir, 'events', 'b.ndjson'), '{"id": 2, "kind": "y"}\n');
      expect(await all(c.stream(events))).toEqual([
        [1n, 'x'],
        [2n, 'y'],
      ]);
      // both files parsed again, then kept
      expect(c.rowCacheStats()).toMatchObject({ parses: 5, hits: 3, loads: 4 });
      expect(await all(c.stream(events))).toEqual([
        [1n, 'x'],
        [2n, 'y'],
      ]);
      expect(c.rowCacheStats()).toMatchObject({ parses: 5, hits: 4 });
      fs.rmSync(path.join(dir, 'events', 'a.ndjson'));
      expect(await all(c.stream(events))).toEqual([[2n, 'y']]);
      expect(c.rowCacheStats()).toMatchObject({ parses: 6, hits: 4 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not keep a table over the budget, and does not try again while its files are unchanged', async () => {
    const full = new DocumentsConnector(config([ITEMS_TABLE]));
    await all(full.stream(full.render(items())));
    const bytes = full.rowCacheStats().bytes;
    expect(bytes).toBeGreaterThan(0);

    const tight = new DocumentsConnector(config([ITEMS_TABLE], bytes - 1));
    const q = tight.render(items(eq(col('id', INT), lit(2, INT))));
    for (let i = 0; i < 2; i++)
      expect(await all(tight.stream(q))).toEqual([
        [2, 'A-2'],
        [2, 'A-2b'],
      ]);
    expect(tight.rowCacheStats()).toMatchObject({ tables: 0, bytes: 0, loads: 0, refused: 1, parses: 2, hits: 0 });

    const exact = new DocumentsConnector(config([ITEMS_TABLE], bytes));
    await all(exact.stream(q));
    expect(exact.rowCacheStats()).toMatchObject({ tables: 1, bytes, loads: 1 });
    // the index would pass the budget: the lookup scans the cached rows instead
    expect(await all(exact.stream(q))).toEqual([
      [2, 'A-2'],
      [2, 'A-2b'],
    ]);
    expect(exact.rowCacheStats()).toMatchObject({ bytes, parses: 1, hits: 1, indexes: 0 });
  });

  it('shares the budget between tables: the second does not fit beside the first', async () => {
    const c1 = new DocumentsConnector(config([ITEMS_TABLE, EVENTS_TABLE]));
    await all(c1.stream(c1.render(items())));
    const itemBytes = c1.rowCacheStats().bytes;
    const c = new DocumentsConnector(config([ITEMS_TABLE, EVENTS_TABLE], itemBytes + 100));
    await all(c.stream(c.render(items())));
    const events = c.render(selectAll(EVENTS_TABLE));
    expect(await all(c.stream(events))).toEqual([
      [1n, 'x'],
      [2n, 'y'],
    ]);
    // the events' two rows are estimated at more than the 100 bytes left
    expect(rowBytes([1n, 'x']) * 2).toBeGreaterThan(100);
    expect(c.rowCacheStats()).toMatchObject({ tables: 1, bytes: itemBytes, refused: 1 });
  });

  it('never fails a query on a bad value in a column it does not read, and then does not cache', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-row-cache-bad-'));
    try {
      fs.writeFileSync(path.join(dir, 'items.xml'), '<shop><item id="1" sku="a"><price>cheap</price></item></shop>');
      const c = new DocumentsConnector(config([ITEMS_TABLE], undefined, dir));
      expect(await all(c.stream(c.render(items())))).toEqual([[1, 'a']]);
      expect(c.rowCacheStats()).toMatchObject({ tables: 0, bytes: 0 });
      const price = c.render({
        select: [{ expr: col('price', t.float64), alias: 'price' }],
        from: { kind: 'table', alias: 'i', table: 'items' },
      });
      await expect(all(c.stream(price))).rejects.toMatchObject({ code: 'invalid_text_representation' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds a cold table once when two queries read it together', async () => {
    const c = new DocumentsConnector(config([ITEMS_TABLE]));
    const q = c.render(items(eq(col('id', INT), lit(1, INT))));
    const [a, b] = await Promise.all([all(c.stream(q)), all(c.stream(q))]);
    expect([a, b]).toEqual([[[1, 'A-1']], [[1, 'A-1']]]);
    expect(c.rowCacheStats()).toMatchObject({ parses: 2, loads: 1, tables: 1 });
    expect(await all(c.stream(q))).toEqual([[1, 'A-1']]);
    expect(c.rowCacheStats()).toMatchObject({ parses: 2, hits: 1 });
  });

  it('reports the exact row count of a cached table to the planner', async () => {
    const c = new DocumentsConnector(config([ITEMS_TABLE, EVENTS_TABLE]));
    const before = await c.introspect();
    expect(before.tables.map((x) => x.rowCount)).toEqual([undefined, undefined]);
    await all(c.stream(c.render(items(eq(col('id', INT), lit(1, INT))))));
    const after = await c.introspect();
    expect(after.tables.map((x) => [x.name, x.rowCount])).toEqual([
      ['items', 8],
      ['events', undefined],
    ]);
  });

  it('stops a scan of cached rows when the query is cancelled', async () => {
    const c = new DocumentsConnector(config([ITEMS_TABLE]));
    await all(c.stream(c.render(items())));
    const abort = new AbortController();
    const seen: Row[] = [];
    await expect(
      (async () => {
        for await (const b of c.stream(c.render(items()), { batchSize: 2, signal: abort.signal })) {
          seen.push(...b.rows);
          abort.abort();
        }
      })(),
    ).rejects.toMatchObject({ code: 'source_statement_cancelled' });
    expect(seen).toEqual([
      [1, 'A-1'],
      [2, 'A-2'],
    ]);
  });
});
