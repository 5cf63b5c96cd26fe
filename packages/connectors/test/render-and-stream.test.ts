import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, SourceConfig } from '../src/contract/connector.js';
import type { RemoteQuery } from '../src/contract/remote-query.js';
import { t, type Row } from '../src/contract/types.js';
import { createConnector } from '../src/create-connector.js';
import { call, col, lit, table } from '../src/sql/ir-builders.js';
import { collect, sourceFromUrl, uniqueName } from './support/sources.js';

// Every connector runs the SQL its own dialect renders and decodes it to the same rows.
const name = uniqueName('rs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), name));
const pgUrl = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const myUrl = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';
const engines: { engine: string; admin?: Connector; url?: string; cfg: SourceConfig }[] = [
  { engine: 'postgresql', url: pgUrl, cfg: sourceFromUrl(pgUrl, 'pg', { database: name }) },
  { engine: 'mysql', url: myUrl, cfg: sourceFromUrl(myUrl, 'my', { database: name }) },
  { engine: 'sqlite', cfg: { name: 'lite', engine: 'sqlite', file: path.join(dir, 'rs.db') } },
];

const items = table('items', 'i');
const columns = [
  { name: 'id', type: t.int64, nullable: false },
  { name: 'code', type: t.char(4), nullable: false },
  { name: 'price', type: t.decimal(15, 2), nullable: false },
];
const query: RemoteQuery = {
  select: [
    { expr: col('i', 'id', t.int64), alias: 'id' },
    { expr: col('i', 'code', t.char(4)), alias: 'code' },
    { expr: col('i', 'price', t.decimal(15, 2)), alias: 'price' },
  ],
  from: items,
  where: call('and', [
    call('ge', [col('i', 'price', t.decimal(15, 2)), lit('10.05', t.decimal(15, 2))]),
    call('ne', [col('i', 'code', t.char(4)), lit('ab', t.char(4))]),
  ]),
  orderBy: [{ expr: col('i', 'id', t.int64), desc: true, nullsFirst: true }],
};

const data: Row[] = [
  [9007199254740993n, 'ab', '10.05'],
  [2n, 'abc', '10.04'],
  [3n, 'x', '99999999999.99'],
  [4n, 'ab  ', '20.00'],
  [5n, 'zz', '10.05'],
];

beforeAll(async () => {
  for (const e of engines) {
    if (e.url) {
      e.admin = createConnector(sourceFromUrl(e.url, 'admin'));
      await e.admin.execute(`CREATE DATABASE ${name}`);
    }
    const c = createConnector(e.cfg);
    await c.execute(`CREATE TABLE items (id BIGINT NOT NULL, code CHAR(4) NOT NULL, price DECIMAL(15,2) NOT NULL)`);
    async function* rows(): AsyncIterable<Row[]> {
      yield data;
    }
    await c.bulkLoad({ name: 'items', columns }, rows());
    await c.close();
  }
});

afterAll(async () => {
  for (const e of engines) {
    if (e.admin) {
      await e.admin.execute(e.engine === 'mysql' ? `DROP DATABASE ${name}` : `DROP DATABASE ${name} WITH (FORCE)`);
      await e.admin.close();
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(engines)('$engine renders and streams', (e) => {
  it('gives PostgreSQL’s rows for a rendered query with exact literals', async () => {
    const c = createConnector(e.cfg);
    try {
      await c.probe();
      const rendered = c.render(query);
      expect(rendered.columns.map((x) => x.type)).toEqual(columns.map((x) => x.type));
      const r = await collect(c.stream(rendered));
      expect(r.rows).toEqual([
        [5n, 'zz  ', '10.05'],
        [3n, 'x   ', '99999999999.99'],
      ]);
    } finally {
      await c.close();
    }
  });

  it('finds the same rows for a dependent join\'s key sets (PostgreSQL: one array parameter each)', async () => {
    const c = createConnector(e.cfg);
    try {
      await c.probe();
      const keys: RemoteQuery = {
        ...query,
        where: call('and', [
          { kind: 'keySet', expr: col('i', 'id', t.int64), values: [9007199254740993n, 3n, 4n, 77n], type: t.bool },
          call('and', [
            { kind: 'keySet', expr: col('i', 'code', t.char(4)), values: ['ab', 'x', 'a"b\\', '{,}'], type: t.bool },
            { kind: 'keySet', expr: col('i', 'price', t.decimal(15, 2)), values: ['10.05', '99999999999.99', '20.00'], type: t.bool },
          ]),
        ]),
      };
      const rendered = c.render(keys);
      expect(rendered.sql.includes('= ANY(')).toBe(e.engine === 'postgresql');
      expect((await collect(c.stream(rendered))).rows).toEqual([
        [9007199254740993n, 'ab  ', '10.05'],
        [4n, 'ab  ', '20.00'],
        [3n, 'x   ', '99999999999.99'],
      ]);
    } finally {
      await c.close();
    }
  });
});
