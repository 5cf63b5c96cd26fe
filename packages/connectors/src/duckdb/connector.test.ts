import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, FileTableSpec, SourceConfig } from '../contract/connector.js';
import type { Row } from '../contract/types.js';
import { t } from '../contract/types.js';
import { createConnector } from '../create-connector.js';
import { call, col, lit, table } from '../sql/ir-builders.js';

let dir: string;
let root: string;
const open: Connector[] = [];

function write(rel: string, text: string | Buffer): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

function source(tables: FileTableSpec[] | undefined, extra: Partial<SourceConfig> = {}): Connector {
  const c = createConnector({
    name: 'files',
    engine: 'duckdb',
    ...extra,
    options: { fileRoots: [root], files: { root, tables }, ...extra.options },
  });
  open.push(c);
  return c;
}

async function rows(c: Connector, sql: string): Promise<Row[]> {
  return (await c.execute(sql, [], { readOnly: true })).rows;
}

async function streamed(c: Connector, sql: string, batchSize?: number): Promise<number[]> {
  const sizes: number[] = [];
  for await (const b of c.stream({ sql, params: [], columns: [] }, { batchSize })) sizes.push(b.rows.length);
  return sizes;
}

async function caughtError(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: string; message: string };
  }
  throw new Error('expected an error');
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'jt-duck-')));
  root = path.join(dir, 'root');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(dir, 'outside'));
  fs.writeFileSync(path.join(dir, 'outside', 'secret.csv'), 'secret\nhunter2\n');
  // a BOM, a quoted delimiter, doubled quotes, an embedded newline, NULL markers, an empty field
  write('quirks.csv', '\ufeffid,name,amount,note\n1,"Smith, ""Al""",10.50,x\n2,"two\nlines",NA,\n3,plain,-,"NA"\n');
  write('semicolons.csv', "id;label\n1;'a;b'\n2;'it\\'s'\n");
  write('nohead.csv', '7|1909572716.10|2024-02-29\n8|-0.05|1999-12-31\n');
  write('times.csv', 'ts,ts_tz,day\n2024-03-01 12:34:56.5,2024-03-01 12:00:00+02,2024-02-29\n,,\n');
  write('ints.csv', 'k,v\n9007199254740993,1\n-1,2\n');
  write('sales/2024/jan.csv', 'region,amount\neast,1.10\n');
  write('sales/2024/feb.csv', 'region,amount\nwest,2.20\n');
  write('sales/2025/jan.csv', 'region,amount\nnorth,3.30\n');
  write(
    'events.ndjson',
    '{"id":1,"user":{"name":"ann","tags":["a","b"]},"amount":1.25}\n{"id":2,"amount":2.5}\n{"id":3,"user":{"name":"bo","tags":[]},"extra":true}\n',
  );
  write(
    'array.json',
    '[{"id":1,"price":"19.99","at":"2024-01-02T03:04:05"},{"id":2,"price":"0.10"},{"id":3,"at":null}]',
  );
  // Parquet written by a separate DuckDB, before any sandbox exists
  const writer = await DuckDBInstance.create(':memory:');
  const w = await writer.connect();
  const pq = (name: string) => path.join(root, name).replace(/'/g, "''");
  await w.run(`COPY (SELECT * FROM (VALUES
      (1, 1909572716.10::DECIMAL(15,2), TIMESTAMP '2024-03-01 12:34:56.789012', TIMESTAMPTZ '2024-03-01 12:00:00+02', DATE '2024-02-29', true, 'é'),
      (2, -0.01::DECIMAL(15,2), TIMESTAMP '1970-01-01 00:00:00', TIMESTAMPTZ '1969-12-31 23:59:59.5+00', DATE '1900-01-01', false, ''),
      (3, NULL, NULL, NULL, NULL, NULL, NULL)) v(id, amount, ts, tstz, d, ok, s)) TO '${pq('typed.parquet')}' (FORMAT parquet)`);
  await w.run(`COPY (SELECT i AS id, i * 2 AS twice FROM range(5000) t(i)) TO '${pq('big.parquet')}' (FORMAT parquet)`);
  await w.run(
    `COPY (SELECT 1 AS id, [1, 2, 3] AS xs, {'k': 'v', 'n': 1.5::DECIMAL(3,1)} AS obj) TO '${pq('nested.parquet')}' (FORMAT parquet)`,
  );
  w.disconnectSync();
  writer.closeSync();
  // a symlink inside the root pointing out of it
  fs.symlinkSync(path.join(dir, 'outside', 'secret.csv'), path.join(root, 'link.csv'));
  // a .duckdb database file
  const dbFile = path.join(root, 'extra.duckdb');
  const db = await DuckDBInstance.create(dbFile);
  const dc = await db.connect();
  await dc.run(`CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance DECIMAL(12,2))`);
  await dc.run(`INSERT INTO accounts VALUES (1, 100.00), (2, -3.50)`);
  await dc.run(`CREATE SCHEMA ledger`);
  await dc.run(`CREATE TABLE ledger.entries (n BIGINT)`);
  await dc.run(`INSERT INTO ledger.entries VALUES (42)`);
  dc.disconnectSync();
  db.closeSync();
  // a database file whose view reads a file outside the roots (its columns would be the secret)
  const evil = await DuckDBInstance.create(path.join(root, 'evil.duckdb'));
  const ec = await evil.connect();
  await ec.run(
    `CREATE VIEW line0 AS SELECT * FROM read_csv('${path.join(dir, 'outside', 'secret.csv')}', header = true)`,
  );
  ec.disconnectSync();
  evil.closeSync();
  // a real folder named "?" beside a symlink "0" to the outside: DuckDB would expand "?" again
  fs.mkdirSync(path.join(root, 'q', '?'), { recursive: true });
  fs.writeFileSync(path.join(root, 'q', '?', 'secret.csv'), 'harmless\n1\n');
  fs.symlinkSync(path.join(dir, 'outside'), path.join(root, 'q', '0'));
});

afterAll(async () => {
  for (const c of open) await c.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('duckdb: CSV', () => {
  it('reads quoted delimiters, doubled quotes, embedded newlines, a BOM and the NULL markers given', async () => {
    const c = source([
      { name: 'quirks', path: 'quirks.csv', csv: { nullValues: ['NA', '-'] }, columns: { amount: 'decimal(10,2)' } },
    ]);
    expect(await rows(c, 'SELECT * FROM quirks ORDER BY id')).toEqual([
      [1n, 'Smith, "Al"', '10.50', 'x'],
      [2n, 'two\nlines', null, ''],
      // a quoted "NA" is the text NA, not NULL
      [3n, 'plain', null, 'NA'],
    ]);
    const cat = await c.introspect();
    expect(cat.tables.map((tb) => [tb.name, tb.columns.map((x) => [x.name, x.type])])).toEqual([
      [
        'quirks',
        [
          ['id', t.int64],
          ['name', t.string],
          ['amount', t.decimal(10, 2)],
          ['note', t.string],
        ],
      ],
    ]);
  });

  it('takes the delimiter, quote and escape given', async () => {
    const c = source([
      { name: 'semicolons', path: 'semicolons.csv', csv: { delimiter: ';', quote: "'", escape: '\\' } },
    ]);
    expect(await rows(c, 'SELECT * FROM semicolons ORDER BY id')).toEqual([
      [1n, 'a;b'],
      [2n, "it's"],
    ]);
  });

  it('names and types a header-less file by its column overrides, decimals parsed exactly', async () => {
    const c = source([
      {
        name: 'nohead',
        path: 'nohead.csv',
        csv: { header: false, delimiter: '|' },
        columns: { id: 'integer', amount: 'decimal(15,2)', day: 'date' },
      },
    ]);
    const r = await c.execute('SELECT * FROM nohead ORDER BY id');
    expect(r.rows).toEqual([
      [7, '1909572716.10', '2024-02-29'],
      [8, '-0.05', '1999-12-31'],
    ]);
    expect(r.columns.map((x) => [x.name, x.type])).toEqual([
      ['id', t.int32],
      ['amount', t.decimal(15, 2)],
      ['day', t.date],
    ]);
  });

  it('reads timestamp, timestamptz (to UTC) and date overrides', async () => {
    const c = source([
      { name: 'times', path: 'times.csv', columns: { ts: 'timestamp', ts_tz: 'timestamptz', day: 'date' } },
    ]);
    expect(await rows(c, 'SELECT * FROM times ORDER BY ts NULLS LAST')).toEqual([
      ['2024-03-01T12:34:56.5', '2024-03-01T10:00:00Z', '2024-02-29'],
      [null, null, null],
    ]);
  });

  it('keeps int64 past 2^53 exact', async () => {
    const c = source([{ name: 'ints', path: 'ints.csv' }]);
    expect(await rows(c, 'SELECT k FROM ints ORDER BY v')).toEqual([[9007199254740993n], [-1n]]);
  });

  it('reads a glob as one table, the files expanded by Junction', async () => {
    const c = source([{ name: 'sales', path: 'sales/**/*.csv', columns: { amount: 'decimal(5,2)' } }]);
    expect(await rows(c, 'SELECT region, amount FROM sales ORDER BY region')).toEqual([
      ['east', '1.10'],
      ['north', '3.30'],
      ['west', '2.20'],
    ]);
  });

  it('refuses an unknown override type and an override of a column the file lacks', async () => {
    expect(
      await codeOf(source([{ name: 'q', path: 'quirks.csv', columns: { amount: 'money; DROP' } }]).introspect()),
    ).toBe('file_column_type_unknown');
    expect(await codeOf(source([{ name: 'q', path: 'quirks.csv', columns: { nope: 'text' } }]).introspect())).toBe(
      'file_column_missing',
    );
  });
});

describe('duckdb: Parquet', () => {
  it('keeps decimals exact with their scale, timestamps, timestamptz in UTC, dates, booleans and NULLs', async () => {
    const c = source([{ name: 'typed', path: 'typed.parquet' }]);
    expect(await rows(c, 'SELECT * FROM typed ORDER BY id')).toEqual([
      [1, '1909572716.10', '2024-03-01T12:34:56.789012', '2024-03-01T10:00:00Z', '2024-02-29', true, 'é'],
      [2, '-0.01', '1970-01-01T00:00:00', '1969-12-31T23:59:59.5Z', '1900-01-01', false, ''],
      [3, null, null, null, null, null, null],
    ]);
    const cat = await c.introspect();
    expect(cat.tables[0].columns.map((x) => [x.name, x.type, x.nativeType])).toEqual([
      ['id', t.int32, 'INTEGER'],
      ['amount', t.decimal(15, 2), 'DECIMAL(15,2)'],
      ['ts', t.timestamp, 'TIMESTAMP'],
      ['tstz', t.timestamptz, 'TIMESTAMP WITH TIME ZONE'],
      ['d', t.date, 'DATE'],
      ['ok', t.bool, 'BOOLEAN'],
      ['s', t.string, 'VARCHAR'],
    ]);
    // from the Parquet footers
    expect(cat.tables[0].rowCount).toBe(3);
    expect(Object.fromEntries(cat.tables[0].columns.map((x) => [x.name, x.stats ?? null]))).toEqual({
      id: { nullFraction: 0, min: '1', max: '3' },
      amount: { nullFraction: 1 / 3, min: '-0.01', max: '1909572716.10' },
      ts: { nullFraction: 1 / 3, min: '1970-01-01 00:00:00', max: '2024-03-01 12:34:56.789012' },
      tstz: { nullFraction: 1 / 3, min: '1969-12-31 23:59:59.5+00', max: '2024-03-01 10:00:00+00' },
      d: { nullFraction: 1 / 3, min: '1900-01-01', max: '2024-02-29' },
      ok: { nullFraction: 1 / 3 },
      s: { nullFraction: 1 / 3, min: '', max: 'é' },
    });
  });

  it('decodes to the rendered column types: an expected decimal scale, int64 for an integer', async () => {
    const c = source([{ name: 'typed', path: 'typed.parquet' }]);
    const q = c.render({
      select: [
        { expr: col('x', 'id', t.int64), alias: 'id' },
        { expr: col('x', 'amount', t.decimal(15, 2)), alias: 'amount' },
      ],
      from: table('typed', 'x'),
      where: call('gt', [col('x', 'amount', t.decimal(15, 2)), lit('-0.01', t.decimal(3, 2))]),
    });
    const got: Row[] = [];
    for await (const b of c.stream(q)) got.push(...b.rows);
    expect(got).toEqual([[1n, '1909572716.10']]);
  });

  it('turns nested values into JSON text', async () => {
    const c = source([{ name: 'nested', path: 'nested.parquet' }]);
    expect(await rows(c, 'SELECT * FROM nested')).toEqual([[1, '[1,2,3]', '{"k":"v","n":1.5}']]);
    expect((await c.introspect()).tables[0].columns.map((x) => [x.name, x.type.kind])).toEqual([
      ['id', 'int32'],
      ['xs', 'json'],
      ['obj', 'json'],
    ]);
  });

  it('casts an overridden Parquet column', async () => {
    const c = source([{ name: 'typed', path: 'typed.parquet', columns: { id: 'bigint', amount: 'text' } }]);
    expect(await rows(c, 'SELECT id, amount FROM typed WHERE id = 1')).toEqual([[1n, '1909572716.10']]);
  });
});

describe('duckdb: JSON', () => {
  it('reads newline-delimited JSON: nesting as JSON text, missing fields as NULL', async () => {
    const c = source([{ name: 'events', path: 'events.ndjson' }]);
    expect(await rows(c, 'SELECT * FROM events ORDER BY id')).toEqual([
      [1n, '{"name":"ann","tags":["a","b"]}', 1.25, null],
      [2n, null, 2.5, null],
      [3n, '{"name":"bo","tags":[]}', null, true],
    ]);
  });

  it('reads a JSON array with type overrides parsed from the text', async () => {
    const c = source([
      {
        name: 'arr',
        path: 'array.json',
        json: { format: 'array' },
        columns: { price: 'decimal(6,2)', at: 'timestamp' },
      },
    ]);
    expect(await rows(c, 'SELECT * FROM arr ORDER BY id')).toEqual([
      [1n, '19.99', '2024-01-02T03:04:05'],
      [2n, '0.10', null],
      [3n, null, null],
    ]);
  });
});

describe('duckdb: the sandbox', () => {
  it('lets native SQL read no file but its tables, and never write one', async () => {
    const c = source([{ name: 'quirks', path: 'quirks.csv' }]);
    expect(await codeOf(rows(c, `SELECT * FROM read_csv('/etc/passwd')`))).toBe('file_access_refused');
    expect(await codeOf(rows(c, `SELECT * FROM read_csv('${path.join(root, 'semicolons.csv')}')`))).toBe(
      'file_access_refused',
    );
    expect(await codeOf(rows(c, `SELECT * FROM read_csv('${path.join(root, 'link.csv')}')`))).toBe(
      'file_access_refused',
    );
    expect(await codeOf(rows(c, `SELECT * FROM glob('/etc/*')`))).toBe('file_access_refused');
    // COPY TO an allowed path would overwrite the source file: refused by kind, readOnly or not
    expect(await codeOf(c.execute(`COPY quirks TO '${path.join(root, 'quirks.csv')}'`))).toBe(
      'native_statement_refused',
    );
    expect(await codeOf(c.execute(`SET enable_external_access = true`))).toBe('native_statement_refused');
    expect(await codeOf(c.execute(`INSTALL httpfs`))).toBe('native_statement_refused');
    expect(await codeOf(c.execute(`BEGIN`))).toBe('native_statement_refused');
    expect(await codeOf(c.execute(`IMPORT DATABASE '${dir}'`))).toBe('file_access_refused');
    expect(await codeOf(c.execute(`ATTACH '${path.join(root, 'x.duckdb')}' AS x`))).toBe('attach_refused');
    expect(fs.readFileSync(path.join(root, 'quirks.csv'), 'utf8').startsWith('\ufeffid,name')).toBe(true);
    expect(fs.existsSync(path.join(root, 'x.duckdb'))).toBe(false);
    // the table's own file still reads
    expect((await rows(c, 'SELECT count(*) FROM quirks'))[0]).toEqual([3n]);
  });

  it('refuses EXPLAIN ANALYZE of anything but a query: it runs the statement it explains', async () => {
    const c = source([{ name: 'quirks', path: 'quirks.csv' }]);
    const file = path.join(root, 'quirks.csv');
    for (const readOnly of [true, false]) {
      for (const sql of [
        `EXPLAIN ANALYZE COPY (SELECT 'owned' AS x) TO '${file}' (USE_TMP_FILE false)`,
        'EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1',
        'EXPLAIN ANALYZE DROP VIEW quirks',
        "/* first */ EXPLAIN ANALYZE CREATE OR REPLACE VIEW quirks AS SELECT 'x' AS id",
        'EXPLAIN (FORMAT json) SELECT 1',
      ])
        expect([sql, readOnly, await codeOf(c.execute(sql, [], { readOnly }))]).toEqual([
          sql,
          readOnly,
          'native_statement_refused',
        ]);
    }
    expect(fs.readFileSync(file, 'utf8').startsWith('\ufeffid,name')).toBe(true);
    expect((await rows(c, 'SELECT count(*) FROM quirks'))[0]).toEqual([3n]);
    expect((await rows(c, 'EXPLAIN ANALYZE SELECT count(*) FROM quirks')).length).toBe(1);
  });

  it('locks DuckDB before it reads anything: a view of an attached file reaching outside, a wildcard in a real path', async () => {
    const evil = source([{ name: 'quirks', path: 'quirks.csv' }], { file: 'evil.duckdb' });
    const e = await caughtError(evil.introspect());
    expect(e.code).toBe('source_error');
    expect(e.message).not.toContain('hunter2');
    expect(e.message).toContain('file system operations are disabled');
    expect(await codeOf(source([{ name: 's', path: 'q/[?]/secret.csv', format: 'csv' }]).introspect())).toBe(
      'file_path_invalid',
    );
    // no temp folder to read or write through native SQL either
    expect(
      await rows(source([{ name: 'quirks', path: 'quirks.csv' }]), "SELECT current_setting('temp_directory')"),
    ).toEqual([['']]);
  });

  it('never walks a folder a symlink leads out of, nor says what exists there', async () => {
    fs.symlinkSync('/usr', path.join(root, 'usr-link'));
    try {
      const e = await caughtError(source([{ name: 'u', path: 'usr-*/lib/os-rel*', format: 'csv' }]).introspect());
      expect(e.code).toBe('file_missing');
      expect(e.message).toBe('Source "files": no file matches "usr-*/lib/os-rel*" (table "u").');
      const l = await caughtError(source([{ name: 'l', path: 'link.csv' }]).introspect());
      expect(l.message).toBe(
        `Source "files" may not read ${path.join(root, 'link.csv')} (through a symbolic link): it is outside the folders an administrator allowed (JUNCTION_FILE_ROOTS).`,
      );
    } finally {
      fs.unlinkSync(path.join(root, 'usr-link'));
    }
  });

  it('runs only one reading statement with readOnly', async () => {
    const c = source([{ name: 'quirks', path: 'quirks.csv' }]);
    expect(await codeOf(c.execute('CREATE TABLE t (x INTEGER)', [], { readOnly: true }))).toBe('native_not_read_only');
    expect(await codeOf(c.execute('SELECT 1; SELECT 2', [], { readOnly: true }))).toBe('multiple_statements');
    expect(await codeOf(c.execute('DROP VIEW quirks', [], { readOnly: true }))).toBe('native_not_read_only');
    expect((await c.execute('SELECT $1::INTEGER + 1 AS n', [41], { readOnly: true })).rows).toEqual([[42]]);
  });

  it('refuses at connect a symlink inside the root that points outside, and .. segments', async () => {
    expect(await codeOf(source([{ name: 'l', path: 'link.csv' }]).introspect())).toBe('file_outside_roots');
    expect(await codeOf(source([{ name: 'l', path: '../outside/secret.csv' }]).introspect())).toBe('file_path_invalid');
    const diag = await source([{ name: 'l', path: 'link.csv' }]).test();
    expect(diag.ok ? 'ok' : diag.code).toBe('unknown');
  });
});

describe('duckdb: connector', () => {
  it('test() reports a missing file or folder as file_missing', async () => {
    const missing = await source([{ name: 'm', path: 'missing.csv' }]).test();
    expect(missing).toMatchObject({ ok: false, code: 'file_missing' });
    const folder = await createConnector({
      name: 'f',
      engine: 'duckdb',
      options: { fileRoots: [root], files: { root: path.join(root, 'gone') } },
    }).test();
    expect(folder).toMatchObject({ ok: false, code: 'file_missing' });
    const ok = await source([{ name: 'q', path: 'quirks.csv' }]).test();
    expect(ok).toMatchObject({ ok: true, serverVersion: '1.5.6' });
  });

  it('probe() measures code-point, case- and accent-sensitive, no pad space, UTC', async () => {
    const c = source([]);
    expect(await c.probe()).toEqual({
      serverVersion: '1.5.6',
      defaultCollation: 'C',
      caseSensitive: true,
      accentSensitive: true,
      padSpace: false,
      timeZone: 'UTC',
      maxBindParams: 65535,
      maxIdentifierLength: 1024,
    });
  });

  it('streams in batches of batchSize rows', async () => {
    const c = source([{ name: 'big', path: 'big.parquet' }]);
    expect(await streamed(c, 'SELECT * FROM big', 1500)).toEqual([1500, 1500, 1500, 500]);
    expect(await streamed(c, 'SELECT * FROM big WHERE id < 3')).toEqual([3]);
    expect(await streamed(c, 'SELECT * FROM big WHERE id < 0')).toEqual([]);
  });

  it('breaking out of a stream frees its connection for the next statement', async () => {
    const c = source([{ name: 'big', path: 'big.parquet' }]);
    for (let i = 0; i < 3; i++) {
      for await (const b of c.stream({ sql: 'SELECT * FROM big', params: [], columns: [] }, { batchSize: 10 })) {
        expect(b.rows.length).toBe(10);
        break;
      }
    }
    expect(await rows(c, 'SELECT count(*) FROM big')).toEqual([[5000n]]);
  });

  it('cancels a running statement through the signal, and times one out', async () => {
    const c = source([]);
    const slow = 'SELECT count(*) FROM range(100000000000) a';
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    const started = Date.now();
    const it = c.stream({ sql: slow, params: [], columns: [] }, { signal: ac.signal });
    const err = await (async () => {
      try {
        for await (const _ of it) void _;
      } catch (e) {
        return e as { code: string; kind: string };
      }
    })();
    expect([err?.code, err?.kind]).toEqual(['source_statement_cancelled', 'cancelled']);
    expect(Date.now() - started).toBeLessThan(5000);
    const timedOut = await c.execute(slow, [], { timeoutMs: 150 }).then(
      () => ({ code: 'none', kind: 'none' }),
      (e: { code: string; kind: string }) => e,
    );
    expect([timedOut.code, timedOut.kind]).toEqual(['source_statement_timeout', 'timeout']);
    // the connection is usable afterwards
    expect(await rows(c, 'SELECT 1')).toEqual([[1]]);
  });

  it('stops a stream between chunks when cancelled', async () => {
    const c = source([{ name: 'big', path: 'big.parquet' }]);
    const ac = new AbortController();
    let got = 0;
    const err = await (async () => {
      try {
        for await (const b of c.stream(
          { sql: 'SELECT * FROM big', params: [], columns: [] },
          { signal: ac.signal, batchSize: 100 },
        )) {
          got += b.rows.length;
          ac.abort();
        }
      } catch (e) {
        return (e as { code: string }).code;
      }
    })();
    expect([err, got]).toEqual(['source_statement_cancelled', 100]);
  });

  it('attaches a .duckdb file read-only and lists its tables', async () => {
    const c = source([{ name: 'quirks', path: 'quirks.csv' }], { file: 'extra.duckdb' });
    const cat = await c.introspect();
    expect(
      cat.tables.map((tb) => [tb.schema, tb.name, tb.kind, tb.columns.map((x) => x.type), tb.rowCount ?? null]),
    ).toEqual([
      ['main', 'quirks', 'table', [t.int64, t.string, t.string, t.string], null],
      ['ledger', 'entries', 'table', [t.int64], 1],
      ['main', 'accounts', 'table', [t.int32, t.decimal(12, 2)], 2],
    ]);
    expect(await rows(c, 'SELECT * FROM accounts ORDER BY id')).toEqual([
      [1, '100.00'],
      [2, '-3.50'],
    ]);
    expect(await rows(c, 'SELECT * FROM ledger.entries')).toEqual([[42n]]);
    expect(await codeOf(c.execute(`INSERT INTO junction_attached.accounts VALUES (3, 1)`))).toBe('source_error');
  });

  it('sees new files of a glob at the next introspect', async () => {
    write('grow/a.csv', 'x\n1\n');
    const c = source([{ name: 'grow', path: 'grow/*.csv' }]);
    expect(await rows(c, 'SELECT count(*) FROM grow')).toEqual([[1n]]);
    write('grow/b.csv', 'x\n2\n');
    expect(await rows(c, 'SELECT count(*) FROM grow')).toEqual([[1n]]);
    await c.introspect();
    expect(await rows(c, 'SELECT sum(x) FROM grow')).toEqual([['3']]);
  });

  it('raises division_by_zero for integer division and modulo by zero, as PostgreSQL does', async () => {
    const c = source([{ name: 'ints', path: 'ints.csv' }]);
    const k = col('i', 'v', t.int64);
    const q = (fn: 'div' | 'mod', by: number) =>
      c.render({
        select: [{ expr: call(fn, [k, lit(by, t.int64)], t.int64), alias: 'x' }],
        from: table('ints', 'i'),
        orderBy: [{ expr: k, desc: false, nullsFirst: false }],
      });
    const all = async (rq: ReturnType<typeof q>) => {
      const out: Row[] = [];
      for await (const b of c.stream(rq)) out.push(...b.rows);
      return out;
    };
    expect(await all(q('div', -2))).toEqual([[0n], [-1n]]);
    expect(await all(q('mod', 2))).toEqual([[1n], [0n]]);
    expect(await codeOf(all(q('div', 0)))).toBe('division_by_zero');
    expect(await codeOf(all(q('mod', 0)))).toBe('division_by_zero');
    // NULL divided by zero is NULL, not an error
    const nullByZero = c.render({
      select: [{ expr: call('div', [lit(null, t.int64), lit(0, t.int64)], t.int64), alias: 'x' }],
      from: table('ints', 'i'),
      limit: 1,
    });
    expect(await all(nullByZero)).toEqual([[null]]);
  });

  it('refuses bulk loads: the files are read-only', async () => {
    const c = source([]);
    expect(await codeOf(c.bulkLoad({ name: 'x', columns: [] }, (async function* () {})()))).toBe(
      'bulk_load_unsupported',
    );
  });
});
