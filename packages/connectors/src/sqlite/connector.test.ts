import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../contract/connector.js';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import { t, type ColumnMeta, type Row } from '../contract/types.js';
import { createConnector } from '../create-connector.js';
import { collect, uniqueName } from '../../test/support/sources.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), uniqueName('sqlite')));
const file = path.join(dir, 'src.db');
let conn: Connector;

async function caught(p: Promise<unknown>): Promise<JunctionError> {
  try {
    await p;
  } catch (e) {
    if (isJunctionError(e)) return e;
    throw e;
  }
  throw new Error('expected a JunctionError');
}

beforeAll(() => {
  conn = createConnector({ name: 'lite', engine: 'sqlite', file });
});

afterAll(async () => {
  await conn.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('sqlite connector', () => {
  it('reports a primary key column nullable where SQLite lets it hold NULL, and a partial index not unique', async () => {
    const keys = createConnector({ name: 'keys', engine: 'sqlite', file: path.join(dir, 'keys.db') });
    try {
      // a rowid table's primary key other than a lone INTEGER one takes NULL in any number of rows
      await keys.execute(`CREATE TABLE s (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`);
      await keys.execute(`CREATE TABLE w (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID`);
      await keys.execute(`CREATE TABLE c (a INTEGER, b INTEGER, PRIMARY KEY (a, b))`);
      await keys.execute(`CREATE TABLE i (k INTEGER PRIMARY KEY, v INTEGER NOT NULL, live INTEGER NOT NULL)`);
      await keys.execute(`CREATE UNIQUE INDEX i_v_live ON i (v) WHERE live = 1`);
      await keys.execute(`CREATE UNIQUE INDEX i_v_k ON i (v, k)`);
      await keys.execute(`INSERT INTO s VALUES (NULL, 1), (NULL, 2)`);
      const snap = await keys.introspect();
      const nullable = (name: string) => Object.fromEntries(snap.tables.find((x) => x.name === name)!.columns.map((c) => [c.name, c.nullable]));
      expect(nullable('s')).toEqual({ k: true, v: false });
      expect(nullable('w')).toEqual({ k: false, v: false });
      expect(nullable('c')).toEqual({ a: true, b: true });
      expect(nullable('i')).toEqual({ k: false, v: false, live: false });
      expect(snap.tables.find((x) => x.name === 'i')!.indexes.map((x) => `${x.name}:${x.unique}`)).toEqual(['i_v_k:true', 'i_v_live:false']);
    } finally {
      await keys.close();
    }
  });

  it('introspects a known schema exactly', async () => {
    await conn.execute(
      `CREATE TABLE region (r_id INTEGER PRIMARY KEY, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152))`,
    );
    await conn.execute(`CREATE TABLE nation (n_id BIGINT NOT NULL, n_code SMALLINT NOT NULL DEFAULT 7, n_region INTEGER REFERENCES region (r_id),
      n_price DECIMAL(15,2), n_day DATE, n_ts TIMESTAMP, n_data BLOB, n_flag BOOLEAN, n_geo GEOMETRY, PRIMARY KEY (n_id, n_code))`);
    await conn.execute(`CREATE INDEX nation_region_idx ON nation (n_region)`);
    await conn.execute(`CREATE UNIQUE INDEX nation_price_idx ON nation (n_price, n_day)`);
    await conn.execute(`CREATE VIEW v_region AS SELECT r_id, r_name FROM region`);
    await conn.execute(`INSERT INTO region VALUES (1, 'a', NULL), (2, 'b', NULL), (3, 'c', 'x')`);
    const snap = await conn.introspect();
    expect(snap.defaultSchema).toBe('main');
    expect(snap.tables.map((x) => `${x.name}:${x.kind}:${x.rowCount}`)).toEqual([
      'nation:table:0',
      'region:table:3',
      'v_region:view:undefined',
    ]);
    expect(snap.tables[1]).toEqual({
      schema: 'main',
      name: 'region',
      kind: 'table',
      columns: [
        { name: 'r_id', type: t.int64, nativeType: 'INTEGER', nullable: false, default: null },
        { name: 'r_name', type: t.char(25), nativeType: 'CHAR(25)', nullable: false, default: null },
        { name: 'r_comment', type: t.varchar(152), nativeType: 'VARCHAR(152)', nullable: true, default: null },
      ],
      primaryKey: ['r_id'],
      foreignKeys: [],
      indexes: [],
      rowCount: 3,
    });
    const nation = snap.tables[0];
    expect(nation.columns.map((c) => [c.name, c.type, c.nullable, c.default])).toEqual([
      ['n_id', t.int64, false, null],
      ['n_code', t.int16, false, '7'],
      ['n_region', t.int64, true, null],
      ['n_price', t.decimal(15, 2), true, null],
      ['n_day', t.date, true, null],
      ['n_ts', t.timestamp, true, null],
      ['n_data', t.binary, true, null],
      ['n_flag', t.bool, true, null],
      ['n_geo', t.unknown, true, null],
    ]);
    expect(nation.primaryKey).toEqual(['n_id', 'n_code']);
    expect(nation.foreignKeys).toEqual([
      { name: 'fk_nation_0', columns: ['n_region'], refSchema: 'main', refTable: 'region', refColumns: ['r_id'] },
    ]);
    expect(nation.indexes).toEqual([
      { name: 'nation_price_idx', columns: ['n_price', 'n_day'], unique: true },
      { name: 'nation_region_idx', columns: ['n_region'], unique: false },
      { name: 'sqlite_autoindex_nation_1', columns: ['n_id', 'n_code'], unique: true },
    ]);
    expect(snap.warnings).toEqual([
      'main.nation.n_geo: type "GEOMETRY" is read as text: it has no Junction equivalent',
    ]);
    await conn.execute(`ANALYZE`);
    const again = await conn.introspect();
    expect(again.tables.find((x) => x.name === 'region')?.rowCount).toBe(3);
  });

  it("reads row counts and leading index columns' distinct counts from sqlite_stat1 after ANALYZE", async () => {
    const lite = createConnector({ name: 'stats', engine: 'sqlite', file: path.join(dir, 'stats.db') });
    try {
      // 1000 rows: a has 4 values, c 7 values and NULL in every third row, d is unique, e unindexed
      // execute() runs one statement at a time
      for (const sql of [
        `CREATE TABLE t (id INTEGER PRIMARY KEY, a INT NOT NULL, b TEXT, c INT, d INT, e INT)`,
        `CREATE INDEX t_ab ON t (a, b)`,
        `CREATE INDEX t_c ON t (c)`,
        `CREATE INDEX t_d_part ON t (d) WHERE d > 5`,
        `CREATE INDEX t_expr ON t (e + 1)`,
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
        INSERT INTO t SELECT i, i % 4, 'b' || (i % 10), CASE WHEN i % 3 = 0 THEN NULL ELSE i % 7 END, i, i % 2 FROM n`,
        `CREATE TABLE w (k TEXT PRIMARY KEY, v INT) WITHOUT ROWID`,
        `INSERT INTO w VALUES ('x', 1), ('y', 1), ('z', 2)`,
        `CREATE TABLE only_partial (x INT)`,
        `CREATE INDEX only_partial_x ON only_partial (x) WHERE x > 0`,
        `INSERT INTO only_partial VALUES (-1), (-2), (3), (4), (5)`,
        `CREATE TABLE empty (x INT)`,
        `CREATE INDEX empty_x ON empty (x)`,
      ])
        await lite.execute(sql);
      const before = await lite.introspect();
      // no ANALYZE yet: rows are counted, columns carry no statistics
      expect(before.tables.map((x) => [x.name, x.rowCount, x.columns.filter((c) => c.stats).length])).toEqual([
        ['empty', 0, 0],
        ['only_partial', 5, 0],
        ['t', 1000, 0],
        ['w', 3, 0],
      ]);
      await lite.execute(`ANALYZE`);
      // rows added after ANALYZE do not show: the counts are ANALYZE's, as with pg_stats
      await lite.execute(`INSERT INTO w VALUES ('zz', 3)`);
      const snap = await lite.introspect();
      const stats = (name: string): [string, unknown][] =>
        snap.tables.find((x) => x.name === name)!.columns.map((c) => [c.name, c.stats]);
      expect(snap.tables.map((x) => [x.name, x.rowCount])).toEqual([
        ['empty', 0],
        ['only_partial', 5],
        ['t', 1000],
        ['w', 3],
      ]);
      expect(stats('t')).toEqual([
        ['id', undefined],
        ['a', { distinct: 4 }],
        ['b', undefined],
        ['c', { distinct: 7 }],
        ['d', undefined],
        ['e', undefined],
      ]);
      expect(stats('w')).toEqual([
        ['k', { distinct: 3 }],
        ['v', undefined],
      ]);
      expect(stats('only_partial')).toEqual([['x', undefined]]);
      expect(stats('empty')).toEqual([['x', undefined]]);
    } finally {
      await lite.close();
    }
  });

  it('probes the semantics', async () => {
    const s = await conn.probe();
    expect(s.serverVersion).toMatch(/^3\.\d+\.\d+$/);
    expect([s.caseSensitive, s.accentSensitive, s.padSpace, s.timeZone, s.defaultCollation]).toEqual([
      true,
      true,
      false,
      'UTC',
      'BINARY',
    ]);
    expect(s.maxBindParams).toBeGreaterThanOrEqual(999);
  });

  it('round-trips edge values exactly', async () => {
    await conn.execute(
      `CREATE TABLE rt (id INTEGER, i8 BIGINT, i4 INT4, d DECIMAL(15,2), f DOUBLE, b BOOLEAN, c CHAR(5), vc VARCHAR(20), dt DATE, ts TIMESTAMP, bin BLOB, js JSON, u UUID)`,
    );
    const rows: Row[] = [
      [
        1,
        9223372036854775807n,
        2147483647,
        '1234567890123.45',
        1.5,
        true,
        'ab',
        '',
        '2024-02-29',
        '2021-03-28T02:30:00.123456',
        new Uint8Array([0, 255]),
        '{"a":1}',
        'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
      ],
      [
        2,
        -9223372036854775808n,
        -2147483648,
        '-0.10',
        -0.25,
        false,
        'abcde',
        'trail  ',
        '0001-01-01',
        '2021-10-31T02:30:00',
        new Uint8Array([]),
        '[]',
        null,
      ],
      [3, 9007199254740993n, 0, '7', 0, null, 'emoji😀', 'ü 中', null, null, null, null, null],
    ];
    for (const r of rows) await conn.execute(`INSERT INTO rt VALUES (${r.map(() => '?').join(', ')})`, r);
    const columns: ColumnMeta[] = [
      ['id', t.int32],
      ['i8', t.int64],
      ['i4', t.int32],
      ['d', t.decimal(15, 2)],
      ['f', t.float64],
      ['b', t.bool],
      ['c', t.char(5)],
      ['vc', t.varchar(20)],
      ['dt', t.date],
      ['ts', t.timestamp],
      ['bin', t.binary],
      ['js', t.json],
      ['u', t.uuid],
    ].map(([name, type]) => ({ name: name as string, type: type as ColumnMeta['type'], nullable: true }));
    const r = await collect(
      conn.stream({ sql: `SELECT ${columns.map((c) => c.name).join(', ')} FROM rt ORDER BY id`, params: [], columns }),
    );
    expect(r.rows).toEqual([
      [
        1,
        9223372036854775807n,
        2147483647,
        '1234567890123.45',
        1.5,
        true,
        'ab   ',
        '',
        '2024-02-29',
        '2021-03-28T02:30:00.123456',
        new Uint8Array([0, 255]),
        '{"a":1}',
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ],
      [
        2,
        -9223372036854775808n,
        -2147483648,
        '-0.10',
        -0.25,
        false,
        'abcde',
        'trail  ',
        '0001-01-01',
        '2021-10-31T02:30:00',
        new Uint8Array([]),
        '[]',
        null,
      ],
      [3, 9007199254740993n, 0, '7.00', 0, null, 'emoji😀', 'ü 中', null, null, null, null, null],
    ]);
    const found = await conn.execute(`SELECT id FROM rt WHERE i8 = ? ORDER BY id`, [9007199254740993n]);
    expect(found.rows).toEqual([[3n]]);
    expect(found.columns).toEqual([{ name: 'id', type: t.int64, nullable: true }]);
  });

  it('streams 100k rows in many batches and stops early cleanly', async () => {
    const columns: ColumnMeta[] = [{ name: 'x', type: t.int64, nullable: false }];
    const sql = `WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 100000) SELECT x FROM s`;
    const all = await collect(conn.stream({ sql, params: [], columns }, { batchSize: 1000 }));
    expect(all.rows.length).toBe(100000);
    expect(all.batches).toBe(100);
    expect(all.rows[99999]).toEqual([100000n]);
    for (let i = 0; i < 20; i++) {
      for await (const b of conn.stream({ sql, params: [], columns }, { batchSize: 10 })) {
        expect(b.rows[0]).toEqual([1n]);
        break;
      }
    }
    // handles came back: a write needs no busy handle
    expect((await conn.execute(`CREATE TABLE after_break (x INTEGER)`)).rowCount).toBe(0);
  });

  it('cancels between batches with kind cancelled', async () => {
    const ac = new AbortController();
    const sql = `WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 10000000) SELECT x FROM s`;
    let seen = 0;
    const err = await caught(
      (async () => {
        for await (const b of conn.stream(
          { sql, params: [], columns: [{ name: 'x', type: t.int64, nullable: false }] },
          { signal: ac.signal, batchSize: 1000 },
        )) {
          seen += b.rows.length;
          if (seen === 5000) setTimeout(() => ac.abort(), 0);
        }
      })(),
    );
    expect(err.kind).toBe('cancelled');
    expect(seen).toBeLessThan(1_000_000);
    const timeout = await caught(
      collect(conn.stream({ sql, params: [], columns: [] }, { timeoutMs: 50, batchSize: 1000 })),
    );
    expect(timeout.kind).toBe('timeout');
  });

  it('bulk loads inside one transaction', async () => {
    await conn.execute(`CREATE TABLE bulk (id BIGINT, s TEXT, d DECIMAL(12,2), b BLOB)`);
    async function* gen(): AsyncIterable<Row[]> {
      for (let b = 0; b < 5; b++)
        yield Array.from({ length: 1001 }, (_, i): Row => [
          BigInt(b * 1001 + i),
          `s${i}\t'`,
          `${i}.50`,
          new Uint8Array([i % 256]),
        ]);
    }
    const table = {
      name: 'bulk',
      columns: [
        { name: 'id', type: t.int64, nullable: false },
        { name: 's', type: t.string, nullable: true },
        { name: 'd', type: t.decimal(12, 2), nullable: true },
        { name: 'b', type: t.binary, nullable: true },
      ],
    };
    expect(await conn.bulkLoad(table, gen())).toBe(5005);
    const r = await conn.execute(`SELECT count(*), sum(id) FROM bulk`);
    expect(r.rows).toEqual([[5005n, 12522510n]]);
    const last = await collect(
      conn.stream({ sql: `SELECT id, s, d, b FROM bulk WHERE id = 5004`, params: [], columns: table.columns }),
    );
    expect(last.rows).toEqual([[5004n, `s1000\t'`, '1000.50', new Uint8Array([1000 % 256])]]);
  });

  it('reports statement errors as external naming the source', async () => {
    const err = await caught(conn.execute(`SELECT * FROM nope`));
    expect(err.kind).toBe('external');
    expect(err.message).toBe('Source "lite" failed the statement: no such table: nope');
  });

  it('diagnoses a missing file without creating it', async () => {
    const missing = path.join(dir, 'missing.db');
    const c = createConnector({ name: 'gone', engine: 'sqlite', file: missing });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'file_missing' });
    expect(fs.existsSync(missing)).toBe(false);
    const ok = await conn.test();
    expect(ok.ok).toBe(true);
  });
});
