import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, SourceConfig } from '../contract/connector.js';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import type { RemoteQuery } from '../contract/remote-query.js';
import { t, type ColumnMeta, type Row } from '../contract/types.js';
import { call, col, lit, table } from '../sql/ir-builders.js';
import { createConnector } from '../create-connector.js';
import { closedPort, collect, eventually, sourceFromUrl, uniqueName } from '../../test/support/sources.js';

const url = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';
const db = uniqueName('my');
const cfg: SourceConfig = {
  ...sourceFromUrl(url, 'mysrc'),
  database: db,
  options: { pool: { max: 3 }, connectTimeoutMs: 5000 },
};
let admin: mysql.Connection;
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

async function running(pattern: string): Promise<number> {
  const [rows] = await admin.query(
    `SELECT count(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%'`,
    [pattern],
  );
  return Number((rows as { n: number }[])[0].n);
}

const cols = (spec: [string, ColumnMeta['type']][]): ColumnMeta[] =>
  spec.map(([name, type]) => ({ name, type, nullable: true }));

beforeAll(async () => {
  admin = await mysql.createConnection(url);
  await admin.query(`CREATE DATABASE ${db} CHARACTER SET utf8mb4`);
  conn = createConnector(cfg);
});

afterAll(async () => {
  await conn?.close();
  await admin.query(`DROP DATABASE IF EXISTS ${db}`);
  await admin.end();
});

describe('mysql connector', () => {
  it('introspects a known schema exactly', async () => {
    await conn.execute(
      `CREATE TABLE region (r_id INT PRIMARY KEY, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152)) ENGINE=InnoDB`,
    );
    await conn.execute(`CREATE TABLE nation (n_id BIGINT NOT NULL, n_code SMALLINT NOT NULL DEFAULT 7, n_region INT, n_price DECIMAL(15,2),
      n_flag TINYINT(1), n_ts DATETIME(3), n_tz TIMESTAMP(6) NULL, n_data VARBINARY(16), n_doc JSON, n_uid UUID, n_big BIGINT UNSIGNED, n_pt POINT,
      PRIMARY KEY (n_id, n_code), KEY nation_region_idx (n_region), UNIQUE KEY nation_uid_idx (n_uid, n_price),
      CONSTRAINT nation_region_fk FOREIGN KEY (n_region) REFERENCES region (r_id)) ENGINE=InnoDB`);
    await conn.execute(`CREATE VIEW v_region AS SELECT r_id, r_name FROM region`);
    await conn.execute(`INSERT INTO region VALUES (1, 'a', NULL), (2, 'b', NULL), (3, 'c', 'x')`);
    await conn.execute(`ANALYZE TABLE region`);
    const snap = await conn.introspect();
    expect(snap.defaultSchema).toBe(db);
    expect(snap.tables.map((x) => `${x.name}:${x.kind}`)).toEqual(['nation:table', 'region:table', 'v_region:view']);
    expect(snap.tables[1]).toEqual({
      schema: db,
      name: 'region',
      kind: 'table',
      columns: [
        // the primary key's cardinality after ANALYZE TABLE is the column's distinct count
        { name: 'r_id', type: t.int32, nativeType: 'int(11)', nullable: false, default: null, stats: { distinct: 3 } },
        { name: 'r_name', type: t.char(25), nativeType: 'char(25)', nullable: false, default: null },
        { name: 'r_comment', type: t.varchar(152), nativeType: 'varchar(152)', nullable: true, default: null },
      ],
      primaryKey: ['r_id'],
      foreignKeys: [],
      indexes: [{ name: 'PRIMARY', columns: ['r_id'], unique: true }],
      rowCount: 3,
    });
    // MariaDB's engine-independent statistics, where collected, say more
    await conn.execute(`ANALYZE TABLE region PERSISTENT FOR ALL`);
    const analyzed = (await conn.introspect()).tables[1].columns;
    expect(analyzed.map((c) => [c.name, c.stats])).toEqual([
      ['r_id', { distinct: 3, nullFraction: 0, min: '1', max: '3' }],
      ['r_name', { distinct: 3, nullFraction: 0, min: 'a', max: 'c' }],
      // nulls_ratio is DECIMAL(12,4) in mysql.column_stats
      ['r_comment', { distinct: 1, nullFraction: 0.6667, min: 'x', max: 'x' }],
    ]);
    const nation = snap.tables[0];
    expect(nation.columns.map((c) => [c.name, c.type, c.nativeType, c.nullable, c.default])).toEqual([
      ['n_id', t.int64, 'bigint(20)', false, null],
      ['n_code', t.int16, 'smallint(6)', false, '7'],
      ['n_region', t.int32, 'int(11)', true, null],
      ['n_price', t.decimal(15, 2), 'decimal(15,2)', true, null],
      ['n_flag', t.bool, 'tinyint(1)', true, null],
      ['n_ts', { kind: 'timestamp', precision: 3 }, 'datetime(3)', true, null],
      ['n_tz', { kind: 'timestamptz', precision: 6 }, 'timestamp(6)', true, null],
      ['n_data', { kind: 'binary', length: 16 }, 'varbinary(16)', true, null],
      // MariaDB's JSON is an alias of LONGTEXT with a json_valid check
      ['n_doc', t.string, 'longtext', true, null],
      ['n_uid', t.uuid, 'uuid', true, null],
      ['n_big', t.decimal(20, 0), 'bigint(20) unsigned', true, null],
      ['n_pt', t.unknown, 'point', true, null],
    ]);
    expect(nation.primaryKey).toEqual(['n_id', 'n_code']);
    expect(nation.foreignKeys).toEqual([
      { name: 'nation_region_fk', columns: ['n_region'], refSchema: db, refTable: 'region', refColumns: ['r_id'] },
    ]);
    expect(nation.indexes).toEqual([
      { name: 'PRIMARY', columns: ['n_id', 'n_code'], unique: true },
      { name: 'nation_region_idx', columns: ['n_region'], unique: false },
      { name: 'nation_uid_idx', columns: ['n_uid', 'n_price'], unique: true },
    ]);
    expect(nation.rowCount).toBe(0);
    expect(snap.tables[2].rowCount).toBeUndefined();
    expect(snap.warnings).toEqual([`${db}.nation.n_pt: type "point" is read as text: it has no Junction equivalent`]);
  });

  it('probes the semantics with real comparisons', async () => {
    const s = await conn.probe();
    expect(s.serverVersion).toMatch(/MariaDB/);
    expect(s.defaultCollation).toBe('utf8mb4_general_ci');
    // a case- and accent-insensitive PAD SPACE collation: measured, not assumed
    expect([s.caseSensitive, s.accentSensitive, s.padSpace]).toEqual([false, false, true]);
    expect(s.timeZone).toBe('+00:00');
    expect(s.maxIdentifierLength).toBe(64);
  });

  it('round-trips edge values exactly', async () => {
    await conn.execute(`CREATE TABLE rt (id INT, i8 BIGINT, i4 INT, i2 SMALLINT, d DECIMAL(38,10), f8 DOUBLE, b TINYINT(1), c CHAR(5), vc VARCHAR(20), tx TEXT,
      dt DATE, tm TIME(6), ts DATETIME(6), tz TIMESTAMP(6) NULL, bin VARBINARY(10), js JSON, u UUID) CHARACTER SET utf8mb4`);
    const table = {
      name: 'rt',
      columns: cols([
        ['id', t.int32],
        ['i8', t.int64],
        ['i4', t.int32],
        ['i2', t.int16],
        ['d', t.decimal(38, 10)],
        ['f8', t.float64],
        ['b', t.bool],
        ['c', t.char(5)],
        ['vc', t.varchar(20)],
        ['tx', t.string],
        ['dt', t.date],
        ['tm', t.time],
        ['ts', t.timestamp],
        ['tz', t.timestamptz],
        ['bin', t.binary],
        ['js', t.json],
        ['u', t.uuid],
      ]),
    };
    const input: Row[] = [
      [
        1,
        9223372036854775807n,
        2147483647,
        32767,
        '9999999999999999999999999999.9999999999',
        1.7976931348623157e308,
        true,
        'ab',
        '',
        'emoji 😀 ü 中 \\ \' "',
        '2024-02-29',
        '23:59:59.999999',
        '2021-03-28T02:30:00',
        '2021-03-28T00:59:59.123456Z',
        new Uint8Array([0, 1, 92, 255]),
        '{"a": [1, 2]}',
        'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
      ],
      [
        2,
        -9223372036854775808n,
        -2147483648,
        -32768,
        '-9999999999999999999999999999.9999999999',
        -0.5,
        false,
        'abcde',
        'trail  ',
        'x\ty\nz\0',
        '1000-01-01',
        '00:00:00',
        '2021-10-31T02:30:00.5',
        '2021-03-28T01:00:00Z',
        new Uint8Array([]),
        'null',
        '00000000-0000-0000-0000-000000000000',
      ],
      [
        3,
        9007199254740993n,
        0,
        0,
        '0.0000000001',
        0,
        null,
        '  x',
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
      ],
    ];
    async function* once(): AsyncIterable<Row[]> {
      yield input;
    }
    expect(await conn.bulkLoad(table, once())).toBe(3);
    const expected: Row[] = [
      [
        1,
        9223372036854775807n,
        2147483647,
        32767,
        '9999999999999999999999999999.9999999999',
        1.7976931348623157e308,
        true,
        'ab   ',
        '',
        'emoji 😀 ü 中 \\ \' "',
        '2024-02-29',
        '23:59:59.999999',
        '2021-03-28T02:30:00',
        '2021-03-28T00:59:59.123456Z',
        new Uint8Array([0, 1, 92, 255]),
        '{"a": [1, 2]}',
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ],
      [
        2,
        -9223372036854775808n,
        -2147483648,
        -32768,
        '-9999999999999999999999999999.9999999999',
        -0.5,
        false,
        'abcde',
        'trail  ',
        'x\ty\nz\0',
        '1000-01-01',
        '00:00:00',
        '2021-10-31T02:30:00.5',
        '2021-03-28T01:00:00Z',
        new Uint8Array([]),
        'null',
        '00000000-0000-0000-0000-000000000000',
      ],
      [
        3,
        9007199254740993n,
        0,
        0,
        '0.0000000001',
        0,
        null,
        '  x  ',
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
      ],
    ];
    const sql = `SELECT ${table.columns.map((c) => c.name).join(', ')} FROM rt ORDER BY id`;
    expect((await collect(conn.stream({ sql, params: [], columns: table.columns }))).rows).toEqual(expected);
    // parameters are exact: a bigint past 2^53, a 38-digit decimal, a string with a backslash
    const found = await conn.execute(
      `SELECT id FROM rt WHERE i8 = ? OR d = CAST(? AS DECIMAL(38,10)) OR tx = ? ORDER BY id`,
      [9007199254740993n, '-9999999999999999999999999999.9999999999', 'emoji 😀 ü 中 \\ \' "'],
    );
    expect(found.rows).toEqual([[1], [2], [3]]);
    const meta = await conn.execute(`SELECT i8, d, b, c, ts, tz, bin FROM rt WHERE id = 1`);
    expect(meta.columns.map((c) => c.type)).toEqual([
      t.int64,
      t.decimal(38, 10),
      t.bool,
      t.char(5),
      t.timestamp,
      t.timestamptz,
      t.binary,
    ]);
    expect(meta.rows).toEqual([
      [
        9223372036854775807n,
        '9999999999999999999999999999.9999999999',
        true,
        'ab   ',
        '2021-03-28T02:30:00',
        '2021-03-28T00:59:59.123456Z',
        new Uint8Array([0, 1, 92, 255]),
      ],
    ]);
  });

  it('bulk loads 100k rows and streams them back in many batches', async () => {
    await conn.execute(`CREATE TABLE big (id BIGINT PRIMARY KEY, s VARCHAR(40), d DECIMAL(12,2))`);
    async function* gen(): AsyncIterable<Row[]> {
      for (let b = 0; b < 10; b++)
        yield Array.from({ length: 10000 }, (_, i): Row => [BigInt(b * 10000 + i + 1), `row ${i} 'q' \\`, `${i}.05`]);
    }
    const table = {
      name: 'big',
      columns: cols([
        ['id', t.int64],
        ['s', t.varchar(40)],
        ['d', t.decimal(12, 2)],
      ]),
    };
    expect(await conn.bulkLoad(table, gen())).toBe(100000);
    let rows = 0;
    let batches = 0;
    let sum = 0n;
    for await (const b of conn.stream(
      { sql: `SELECT id FROM big ORDER BY id`, params: [], columns: cols([['id', t.int64]]) },
      { batchSize: 1000 },
    )) {
      batches++;
      rows += b.rows.length;
      for (const r of b.rows) sum += r[0] as bigint;
    }
    expect([rows, batches, sum]).toEqual([100000, 100, 5000050000n]);
    const last = await conn.execute(`SELECT s, d FROM big WHERE id = 100000`);
    expect(last.rows).toEqual([[`row 9999 'q' \\`, '9999.05']]);
  });

  it('ends a batch of wide rows at batchBytes before batchSize', async () => {
    const sql = `WITH RECURSIVE g (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 25) SELECT REPEAT('x', 1000) AS s FROM g`;
    const columns = cols([['s', t.string]]);
    const sizes: number[] = [];
    // 25 rows of 1000 characters weigh 16 + 8 + 16 + 2000 = 2040 bytes each as strings: three reach 6120
    for await (const b of conn.stream({ sql, params: [], columns }, { batchSize: 10, batchBytes: 3 * 2040 })) {
      sizes.push(b.rows.length);
      expect(b.rows[0]).toEqual(['x'.repeat(1000)]);
    }
    expect(sizes).toEqual([3, 3, 3, 3, 3, 3, 3, 3, 1]);
    sizes.length = 0;
    for await (const b of conn.stream({ sql, params: [], columns }, { batchSize: 10, batchBytes: 100 * 2040 })) sizes.push(b.rows.length);
    expect(sizes).toEqual([10, 10, 5]);
  });

  it('a value the column cannot hold fails the load instead of being truncated', async () => {
    await conn.execute(`CREATE TABLE narrow (id INT, s VARCHAR(3))`);
    async function* once(): AsyncIterable<Row[]> {
      yield [
        [1, 'abc'],
        [2, 'abcd'],
      ];
    }
    const table = {
      name: 'narrow',
      columns: cols([
        ['id', t.int32],
        ['s', t.varchar(3)],
      ]),
    };
    const err = await caught(conn.bulkLoad(table, once()));
    expect(err.kind).toBe('external');
    expect(err.message).toBe(
      'Source "mysrc" failed the bulk load into narrow: LOAD DATA reported 1 warning(s), e.g. Data truncated for column \'s\' at row 2',
    );
    // the whole load was rolled back
    expect((await conn.execute(`SELECT count(*) FROM narrow`)).rows).toEqual([[0n]]);
  });

  it('falls back to multi-row INSERT with the same exact values (servers with local_infile off)', async () => {
    await conn.execute(`CREATE TABLE ins (id BIGINT, s TEXT, b VARBINARY(4), tz TIMESTAMP(6) NULL, f TINYINT(1))`);
    const table = {
      name: 'ins',
      columns: cols([
        ['id', t.int64],
        ['s', t.string],
        ['b', t.binary],
        ['tz', t.timestamptz],
        ['f', t.bool],
      ]),
    };
    const input: Row[] = [
      [1n, "back\\slash 'q' \0 😀", new Uint8Array([0, 92, 39]), '2021-03-28T01:00:00.5Z', true],
      [2n, null, null, null, false],
    ];
    async function* once(): AsyncIterable<Row[]> {
      yield input;
    }
    // the INSERT path is private: reached directly because this server has local_infile on
    const insertRows = (
      conn as unknown as {
        insertRows: (c: unknown, target: string, tb: unknown, rows: AsyncIterable<Row[]>) => Promise<number>;
      }
    ).insertRows.bind(conn);
    const acquire = (conn as unknown as { acquire: () => Promise<{ release(): void }> }).acquire.bind(conn);
    const c = await acquire();
    try {
      expect(await insertRows(c, '`ins`', table, once())).toBe(2);
    } finally {
      c.release();
    }
    const r = await collect(
      conn.stream({ sql: 'SELECT id, s, b, tz, f FROM ins ORDER BY id', params: [], columns: table.columns }),
    );
    expect(r.rows).toEqual(input);
  });

  it('breaking out early stops the statement and releases the connection', async () => {
    const sql = `SELECT a.id FROM big a CROSS JOIN big b`;
    for (let i = 0; i < 5; i++) {
      for await (const b of conn.stream({ sql, params: [], columns: cols([['id', t.int64]]) }, { batchSize: 100 })) {
        expect(b.rows.length).toBe(100);
        break;
      }
    }
    await eventually('no statement SELECT a.id FROM big a CROSS JOIN big b% runs', async () => (await running('SELECT a.id FROM big a CROSS JOIN big b%')) === 0);
    const r = await conn.execute(`SELECT count(*) FROM big`);
    expect(r.rows).toEqual([[100000n]]);
  });

  it('a connection killed mid-stream fails the query as external, and the pool replaces it', async () => {
    const sql = `SELECT a.id FROM big a CROSS JOIN big b`;
    let err: unknown;
    try {
      for await (const b of conn.stream({ sql, params: [], columns: cols([['id', t.int64]]) }, { batchSize: 100 })) {
        if (b.rows.length > 0 && err === undefined) {
          err = null;
          // the statement shows in PROCESSLIST once the server has parsed it
          let ids: number[] = [];
          for (let i = 0; i < 100 && ids.length === 0; i++) {
            const [rows] = await admin.query(`SELECT id FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT a.id FROM big a CROSS JOIN big b%'`);
            ids = (rows as { id: number }[]).map((r) => r.id);
            if (ids.length === 0) await new Promise((r) => setTimeout(r, 20));
          }
          expect(ids).toHaveLength(1);
          await admin.query(`KILL CONNECTION ${ids[0]}`);
        }
      }
    } catch (e) {
      err = e;
    }
    expect(isJunctionError(err) && [err.kind, err.code]).toEqual(['external', 'source_error']);
    await eventually('no statement SELECT a.id FROM big a CROSS JOIN big b% runs', async () => (await running('SELECT a.id FROM big a CROSS JOIN big b%')) === 0);
    const answers = await Promise.all([1, 2, 3].map((i) => conn.execute(`SELECT ${i}`)));
    expect(answers.map((a) => a.rows[0][0])).toEqual([1, 2, 3]);
  });

  it('cancels SLEEP(30) on the server and keeps the pool healthy', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const started = Date.now();
    const err = await caught(
      collect(conn.stream({ sql: `SELECT SLEEP(30)`, params: [], columns: [] }, { signal: ac.signal })),
    );
    expect(err.kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(10_000);
    await eventually('no statement SELECT SLEEP(30)% runs', async () => (await running('SELECT SLEEP(30)%')) === 0);
    const answers = await Promise.all([1, 2, 3].map((i) => conn.execute(`SELECT ?, SLEEP(0.2)`, [i])));
    expect(answers.map((a) => a.rows[0][0])).toEqual([1, 2, 3]);
  });

  it('a timeout stops the statement with kind timeout', async () => {
    const err = await caught(
      collect(conn.stream({ sql: `SELECT SLEEP(30)`, params: [], columns: [] }, { timeoutMs: 300 })),
    );
    expect(err.kind).toBe('timeout');
    await eventually('no statement SELECT SLEEP(30)% runs', async () => (await running('SELECT SLEEP(30)%')) === 0);
  });

  it('reports a failing statement as external naming the source', async () => {
    const err = await caught(conn.execute(`SELECT * FROM no_such_table`));
    expect(err.kind).toBe('external');
    expect(err.message).toBe(`Source "mysrc" failed the statement: Table '${db}.no_such_table' doesn't exist`);
  });

  it('reports an out-of-range value as a user error with Junction\'s code', async () => {
    const err = await caught(conn.execute(`SELECT CAST(9223372036854775807 AS SIGNED) + 1`));
    expect([err.kind, err.code]).toEqual(['user', 'numeric_value_out_of_range']);
    expect(err.message).toMatch(/^Source "mysrc" failed the statement: BIGINT value is out of range in /);
  });

  it('sends a fetch by two long key lists with MariaDB range limits and gets exactly its rows', async () => {
    const semantics = await conn.probe();
    await conn.execute(`CREATE TABLE rl_part (p_partkey INT PRIMARY KEY)`);
    await conn.execute(`CREATE TABLE rl_partsupp (ps_partkey INT, ps_suppkey INT, PRIMARY KEY (ps_partkey, ps_suppkey))`);
    await conn.execute(`INSERT INTO rl_part SELECT seq FROM seq_1_to_100`);
    await conn.execute(`INSERT INTO rl_partsupp SELECT p.seq, s.seq FROM seq_1_to_100 p, seq_1_to_4 s`);
    const keys = (xs: number[]) => xs.map((x) => lit(x, t.int32));
    const int = (a: string, c: string) => col(a, c, t.int32);
    const query: RemoteQuery = {
      select: [
        { expr: int('ps', 'ps_partkey'), alias: 'p' },
        { expr: int('ps', 'ps_suppkey'), alias: 's' },
      ],
      from: { kind: 'join', type: 'inner', left: table('rl_part', 'p'), right: table('rl_partsupp', 'ps'), on: call('eq', [int('p', 'p_partkey'), int('ps', 'ps_partkey')]) },
      where: call('and', [
        { kind: 'in', expr: int('p', 'p_partkey'), list: keys(Array.from({ length: 20 }, (_, i) => 5 * i + 1)), negated: false, type: t.bool },
        { kind: 'in', expr: int('ps', 'ps_suppkey'), list: keys([2, 4, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]), negated: false, type: t.bool },
      ]),
      orderBy: [{ expr: int('ps', 'ps_partkey'), desc: false, nullsFirst: true }, { expr: int('ps', 'ps_suppkey'), desc: false, nullsFirst: true }],
    };
    const rendered = conn.render(query);
    if (/mariadb/i.test(semantics.serverVersion)) expect(rendered.sql).toMatch(/^SET STATEMENT eq_range_index_dive_limit=16, optimizer_max_sel_arg_weight=20 FOR SELECT /);
    const expected = Array.from({ length: 20 }, (_, i) => [[5 * i + 1, 2], [5 * i + 1, 4]]).flat();
    expect((await collect(conn.stream(rendered))).rows).toEqual(expected);
  });
});

describe('mysql connection diagnosis', () => {
  it('answers ok with the server version', async () => {
    const d = await conn.test();
    expect(d.ok).toBe(true);
  });

  it('TLS asked of a server without TLS says so', async () => {
    const c = createConnector({ ...cfg, options: { ...cfg.options, tls: { enabled: true } } });
    const d = await c.test();
    await c.close();
    expect(d).toEqual({
      ok: false,
      code: 'unknown',
      message: 'The server of source "mysrc" does not accept TLS connections.',
      hint: 'Turn TLS off in the source settings, or enable SSL on the server.',
    });
  });

  it('a wrong password is auth_failed and never echoed', async () => {
    const secret = 'Wr0ng-S3cret-pw!';
    const c = createConnector({ ...cfg, password: secret });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'auth_failed' });
    if (!d.ok) expect(d.message + d.hint).not.toContain(secret);
  });

  it('an access denial under another auth plugin (root via unix_socket, errno 1698) is auth_failed too', async () => {
    const c = createConnector({ ...cfg, user: 'root', password: 'not-roots-password' });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'auth_failed', message: expect.stringContaining('"root"') });
  });

  it('a closed port is port_closed', async () => {
    const c = createConnector({ ...cfg, port: await closedPort() });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'port_closed' });
  });

  it('an unresolvable host is host_unreachable', async () => {
    const c = createConnector({ ...cfg, host: 'no-such-host.invalid' });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'host_unreachable' });
  });

  it('a missing database is database_missing', async () => {
    const c = createConnector({ ...cfg, database: 'jt_does_not_exist' });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'database_missing' });
  });
});
