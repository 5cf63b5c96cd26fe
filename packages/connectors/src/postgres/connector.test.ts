import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, SourceConfig } from '../contract/connector.js';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import { t, type ColumnMeta, type Row } from '../contract/types.js';
import { createConnector } from '../create-connector.js';
import { closedPort, collect, eventually, sourceFromUrl, uniqueName } from '../../test/support/sources.js';

const url = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const db = uniqueName('pg');
const base = sourceFromUrl(url, 'pgsrc');
const cfg: SourceConfig = { ...base, database: db, options: { pool: { max: 3 }, connectTimeoutMs: 5000 } };
let admin: pg.Client;
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

/** Statements of this test database whose text starts as `like` says, running now. */
async function countActive(like: string): Promise<number> {
  const r = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2`, [db, like]);
  return r.rows[0].n as number;
}

/** What the statement matching `like` waits for now ('none' while it computes, 'gone' when it is no longer running). */
async function waitEventOf(like: string): Promise<string> {
  const r = await admin.query(`SELECT wait_event FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2`, [db, like]);
  return r.rows.length === 0 ? 'gone' : ((r.rows[0].wait_event as string | null) ?? 'none');
}

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${db}`);
  // a non-UTC session time zone for every connection to this database: values must not shift
  await admin.query(`ALTER DATABASE ${db} SET timezone = 'Europe/Berlin'`);
  conn = createConnector(cfg);
});

afterAll(async () => {
  // close() waits for every pooled connection: a leaked one hangs here
  await conn?.close();
  await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await admin.end();
});

describe('postgres connector', () => {
  it('reports as unique only keys that hold for every row a scan of the table reads', async () => {
    await conn.execute(`CREATE SCHEMA keys`);
    await conn.execute(`CREATE TABLE keys.t (id int PRIMARY KEY, k int NOT NULL, active boolean NOT NULL, e text NOT NULL)`);
    await conn.execute(`CREATE UNIQUE INDEX t_k_active ON keys.t (k) WHERE active`);
    await conn.execute(`CREATE UNIQUE INDEX t_lower_e ON keys.t (lower(e))`);
    await conn.execute(`CREATE UNIQUE INDEX t_k_e ON keys.t (k, e)`);
    // a parent's keys do not cover its inheritance children's rows, which a scan of it reads
    await conn.execute(`CREATE TABLE keys.parent (k int PRIMARY KEY, v int NOT NULL UNIQUE)`);
    await conn.execute(`CREATE TABLE keys.child () INHERITS (keys.parent)`);
    // a partitioned table's keys do cover its partitions
    await conn.execute(`CREATE TABLE keys.part (k int PRIMARY KEY, v int NOT NULL) PARTITION BY RANGE (k)`);
    await conn.execute(`CREATE TABLE keys.part_1 PARTITION OF keys.part FOR VALUES FROM (0) TO (100)`);

    const tables = (await conn.introspect()).tables.filter((x) => x.schema === 'keys');
    const keys = (name: string) => {
      const x = tables.find((t) => t.name === name)!;
      return { primaryKey: x.primaryKey, unique: x.indexes.map((i) => `${i.name}:${i.unique}`) };
    };
    expect(keys('t')).toEqual({ primaryKey: ['id'], unique: ['t_k_active:false', 't_k_e:true', 't_lower_e:false', 't_pkey:true'] });
    expect(keys('parent')).toEqual({ primaryKey: undefined, unique: ['parent_pkey:false', 'parent_v_key:false'] });
    expect(keys('child')).toEqual({ primaryKey: undefined, unique: [] });
    expect(keys('part')).toEqual({ primaryKey: ['k'], unique: ['part_pkey:true'] });
  });

  it('introspects a known schema exactly', async () => {
    await conn.execute(`CREATE SCHEMA shop`);
    await conn.execute(
      `CREATE TABLE shop.region (r_id integer PRIMARY KEY, r_name char(25) NOT NULL, r_comment varchar(152))`,
    );
    await conn.execute(`CREATE TABLE shop.nation (
      n_id bigint NOT NULL, n_code smallint NOT NULL DEFAULT 7, n_region integer REFERENCES shop.region (r_id),
      n_price numeric(15,2), n_ts timestamp(3), n_tz timestamptz, n_data bytea, n_doc jsonb, n_uid uuid, n_pos point,
      PRIMARY KEY (n_id, n_code))`);
    await conn.execute(`CREATE INDEX nation_region_idx ON shop.nation (n_region)`);
    await conn.execute(`CREATE UNIQUE INDEX nation_uid_idx ON shop.nation (n_uid, n_price)`);
    await conn.execute(`CREATE VIEW shop.v_region AS SELECT r_id, r_name FROM shop.region`);
    await conn.execute(`INSERT INTO shop.region SELECT g, 'r' || g, NULL FROM generate_series(1, 5) g`);
    await conn.execute(`ANALYZE shop.region`);

    const snap = await conn.introspect();
    expect(snap.defaultSchema).toBe('public');
    const shop = snap.tables.filter((x) => x.schema === 'shop');
    expect(shop.map((x) => `${x.name}:${x.kind}`)).toEqual(['nation:table', 'region:table', 'v_region:view']);
    const region = shop[1];
    expect(region).toEqual({
      schema: 'shop',
      name: 'region',
      kind: 'table',
      // ANALYZE's statistics: every value distinct (n_distinct -1), char(n) padding trimmed, r_comment all NULL
      columns: [
        { name: 'r_id', type: t.int32, nativeType: 'integer', nullable: false, default: null, stats: { distinct: 5, nullFraction: 0, min: '1', max: '5' } },
        {
          name: 'r_name',
          type: t.char(25),
          nativeType: 'character(25)',
          nullable: false,
          default: null,
          stats: { distinct: 5, nullFraction: 0, min: 'r1', max: 'r5' },
        },
        {
          name: 'r_comment',
          type: t.varchar(152),
          nativeType: 'character varying(152)',
          nullable: true,
          default: null,
          stats: { nullFraction: 1 },
        },
      ],
      primaryKey: ['r_id'],
      foreignKeys: [],
      indexes: [{ name: 'region_pkey', columns: ['r_id'], unique: true }],
      rowCount: 5,
    });
    const nation = shop[0];
    expect(nation.columns).toEqual([
      { name: 'n_id', type: t.int64, nativeType: 'bigint', nullable: false, default: null },
      { name: 'n_code', type: t.int16, nativeType: 'smallint', nullable: false, default: '7' },
      { name: 'n_region', type: t.int32, nativeType: 'integer', nullable: true, default: null },
      { name: 'n_price', type: t.decimal(15, 2), nativeType: 'numeric(15,2)', nullable: true, default: null },
      {
        name: 'n_ts',
        type: { kind: 'timestamp', precision: 3 },
        nativeType: 'timestamp(3) without time zone',
        nullable: true,
        default: null,
      },
      { name: 'n_tz', type: t.timestamptz, nativeType: 'timestamp with time zone', nullable: true, default: null },
      { name: 'n_data', type: t.binary, nativeType: 'bytea', nullable: true, default: null },
      { name: 'n_doc', type: t.json, nativeType: 'jsonb', nullable: true, default: null },
      { name: 'n_uid', type: t.uuid, nativeType: 'uuid', nullable: true, default: null },
      { name: 'n_pos', type: t.unknown, nativeType: 'point', nullable: true, default: null },
    ]);
    expect(nation.primaryKey).toEqual(['n_id', 'n_code']);
    expect(nation.foreignKeys).toEqual([
      {
        name: 'nation_n_region_fkey',
        columns: ['n_region'],
        refSchema: 'shop',
        refTable: 'region',
        refColumns: ['r_id'],
      },
    ]);
    expect(nation.indexes).toEqual([
      { name: 'nation_pkey', columns: ['n_id', 'n_code'], unique: true },
      { name: 'nation_region_idx', columns: ['n_region'], unique: false },
      { name: 'nation_uid_idx', columns: ['n_uid', 'n_price'], unique: true },
    ]);
    // never analyzed and small: counted exactly
    expect(nation.rowCount).toBe(0);
    expect(shop[2].columns.map((c) => c.name)).toEqual(['r_id', 'r_name']);
    expect(shop[2].rowCount).toBeUndefined();
    expect(snap.warnings).toEqual(['shop.nation.n_pos: type "point" is read as text: it has no Junction equivalent']);
  });

  it("reads each column's distinct count, NULL fraction, min/max and most common values from pg_stats", async () => {
    await conn.execute(`CREATE TABLE public.skew (k integer, c char(4), d date, n numeric(6,2))`);
    await conn.execute(
      `INSERT INTO public.skew SELECT g, CASE WHEN g <= 900 THEN 'hot' ELSE 'c' || (g % 10) END, date '2020-01-01' + (g % 100),
              CASE WHEN g % 4 = 0 THEN NULL ELSE g / 10.0 END FROM generate_series(1, 1000) g`,
    );
    await conn.execute(`ANALYZE public.skew`);
    const skew = (await conn.introspect()).tables.find((x) => x.schema === 'public' && x.name === 'skew')!;
    const stats = Object.fromEntries(skew.columns.map((c) => [c.name, c.stats]));
    expect(stats.k).toEqual({ distinct: 1000, nullFraction: 0, min: '1', max: '1000' });
    // 'hot' holds 90% of the rows; the ten others share the rest
    expect(stats.c?.distinct).toBe(11);
    expect(stats.c?.mostCommon?.[0]).toEqual({ value: 'hot', frequency: 0.9 });
    expect(stats.d).toMatchObject({ distinct: 100, nullFraction: 0, min: '2020-01-01', max: '2020-04-09' });
    expect(stats.n).toMatchObject({ nullFraction: 0.25, min: '0.10', max: '99.90' });
  });

  it('probes the semantics by running real comparisons', async () => {
    const s = await conn.probe();
    expect(s.serverVersion).toMatch(/^15\./);
    expect(s.defaultCollation).toBe('C.UTF-8');
    expect(s.caseSensitive).toBe(true);
    expect(s.accentSensitive).toBe(true);
    expect(s.padSpace).toBe(false);
    expect(s.timeZone).toBe('Europe/Berlin');
    expect(s.maxBindParams).toBe(65535);
    expect(s.maxIdentifierLength).toBe(63);
  });

  it('round-trips edge values of every type exactly', async () => {
    await conn.execute(`CREATE TABLE types_rt (id int, i8 bigint, i4 integer, i2 smallint, d numeric(38,10), f8 double precision, f4 real,
      b boolean, c char(5), vc varchar(20), tx text, dt date, tm time, ts timestamp, tz timestamptz, bin bytea, js json, jb jsonb, u uuid, iv interval)`);
    const rows: Row[] = [
      [
        1,
        9223372036854775807n,
        2147483647,
        32767,
        '9999999999999999999999999999.9999999999',
        1.7976931348623157e308,
        3.5,
        true,
        'ab',
        '',
        'emoji 😀 ü 中',
        '2024-02-29',
        '23:59:59.999999',
        '2021-03-28T02:30:00',
        '2021-03-28T00:59:59.123456Z',
        new Uint8Array([0, 1, 92, 255]),
        '{"a": [1, 2]}',
        '{"a": [1, 2]}',
        'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
        'P1Y2M3DT4H5M6S',
      ],
      [
        2,
        -9223372036854775808n,
        -2147483648,
        -32768,
        '-9999999999999999999999999999.9999999999',
        -0.5,
        -1.25,
        false,
        'abcde',
        'trail  ',
        'x\ty\nz\\',
        '0001-01-01',
        '00:00:00',
        '2021-10-31T02:30:00.5',
        '2021-03-28T01:00:00Z',
        new Uint8Array([]),
        'null',
        '[]',
        '00000000-0000-0000-0000-000000000000',
        'PT0S',
      ],
      [
        3,
        9007199254740993n,
        0,
        0,
        '0.0000000001',
        0,
        0,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        '2021-10-31T00:30:00Z',
        null,
        null,
        null,
        null,
        null,
      ],
      [
        4,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        '2021-10-31T01:30:00Z',
        null,
        null,
        null,
        null,
        null,
      ],
    ];
    for (const r of rows) {
      await conn.execute(`INSERT INTO types_rt VALUES (${r.map((_, i) => `$${i + 1}`).join(', ')})`, r);
    }
    const columns: ColumnMeta[] = [
      ['id', t.int32],
      ['i8', t.int64],
      ['i4', t.int32],
      ['i2', t.int16],
      ['d', t.decimal(38, 10)],
      ['f8', t.float64],
      ['f4', t.float32],
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
      ['jb', t.json],
      ['u', t.uuid],
      ['iv', t.interval],
    ].map(([name, type]) => ({ name: name as string, type: type as ColumnMeta['type'], nullable: true }));
    const expected: Row[] = [
      [
        1,
        9223372036854775807n,
        2147483647,
        32767,
        '9999999999999999999999999999.9999999999',
        1.7976931348623157e308,
        3.5,
        true,
        'ab   ',
        '',
        'emoji 😀 ü 中',
        '2024-02-29',
        '23:59:59.999999',
        '2021-03-28T02:30:00',
        '2021-03-28T00:59:59.123456Z',
        new Uint8Array([0, 1, 92, 255]),
        '{"a": [1, 2]}',
        '{"a": [1, 2]}',
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        'P1Y2M3DT4H5M6S',
      ],
      [
        2,
        -9223372036854775808n,
        -2147483648,
        -32768,
        '-9999999999999999999999999999.9999999999',
        -0.5,
        -1.25,
        false,
        'abcde',
        'trail  ',
        'x\ty\nz\\',
        '0001-01-01',
        '00:00:00',
        '2021-10-31T02:30:00.5',
        '2021-03-28T01:00:00Z',
        new Uint8Array([]),
        'null',
        '[]',
        '00000000-0000-0000-0000-000000000000',
        'PT0S',
      ],
      [
        3,
        9007199254740993n,
        0,
        0,
        '0.0000000001',
        0,
        0,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        '2021-10-31T00:30:00Z',
        null,
        null,
        null,
        null,
        null,
      ],
      [
        4,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        '2021-10-31T01:30:00Z',
        null,
        null,
        null,
        null,
        null,
      ],
    ];
    const sql = `SELECT ${columns.map((c) => c.name).join(', ')} FROM types_rt ORDER BY id`;
    const streamed = await collect(conn.stream({ sql, params: [], columns }));
    expect(streamed.rows).toEqual(expected);
    const executed = await conn.execute(sql);
    expect(executed.rows).toEqual(expected);
    expect(executed.columns.map((c) => c.type)).toEqual([
      t.int32,
      t.int64,
      t.int32,
      t.int16,
      t.decimal(38, 10),
      t.float64,
      t.float32,
      t.bool,
      t.char(5),
      t.varchar(20),
      t.string,
      t.date,
      t.time,
      t.timestamp,
      t.timestamptz,
      t.binary,
      t.json,
      t.json,
      t.uuid,
      t.interval,
    ]);
    // the server itself sees the Berlin-local wall time, proving the value was bound in UTC
    const local = await conn.execute(`SELECT tz::text FROM types_rt WHERE id = 1`);
    expect(local.rows).toEqual([['2021-03-28 01:59:59.123456+01']]);
    // parameters bind exactly: a bigint past 2^53 and a decimal with 10 fraction digits find their rows
    const found = await conn.execute(`SELECT id FROM types_rt WHERE i8 = $1 OR d = $2 ORDER BY id`, [
      9007199254740993n,
      '-9999999999999999999999999999.9999999999',
    ]);
    expect(found.rows).toEqual([[2], [3]]);
  });

  it('coerces to the column types the query expects', async () => {
    const columns: ColumnMeta[] = [
      { name: 'a', type: t.int64, nullable: false },
      { name: 'b', type: t.decimal(10, 2), nullable: false },
      { name: 'c', type: t.char(4), nullable: false },
    ];
    const r = await collect(
      conn.stream({ sql: `SELECT 42::int4 AS a, 5::int4 AS b, 'x'::text AS c`, params: [], columns }),
    );
    expect(r.rows).toEqual([[42n, '5.00', 'x   ']]);
  });

  it('reads an unmapped type as text and records a warning', async () => {
    const r = await conn.execute(`SELECT point(1, 2) AS p`);
    expect(r.rows).toEqual([['(1,2)']]);
    expect(r.columns).toEqual([{ name: 'p', type: t.unknown, nullable: true }]);
    expect((conn as unknown as { warnings: string[] }).warnings).toContain(
      'pgsrc: column "p": type oid 600 is read as text: it has no Junction equivalent',
    );
  });

  it('streams 100k rows in many batches', async () => {
    const columns: ColumnMeta[] = [{ name: 'g', type: t.int64, nullable: false }];
    let rows = 0;
    let batches = 0;
    let sum = 0n;
    for await (const b of conn.stream(
      { sql: `SELECT g::int8 FROM generate_series(1, 100000) g`, params: [], columns },
      { batchSize: 1000 },
    )) {
      batches++;
      rows += b.rows.length;
      for (const r of b.rows) sum += r[0] as bigint;
      expect(b.rows.length).toBeLessThanOrEqual(1000);
    }
    expect(rows).toBe(100000);
    expect(batches).toBe(100);
    expect(sum).toBe(5000050000n);
  });

  it('ends a batch of wide rows at batchBytes before batchSize', async () => {
    const columns: ColumnMeta[] = [{ name: 's', type: t.string, nullable: false }];
    const sizes: number[] = [];
    // 25 rows of 1000 characters weigh 16 + 8 + 16 + 2000 = 2040 bytes each: three reach 6120
    for await (const b of conn.stream({ sql: `SELECT repeat('x', 1000) AS s FROM generate_series(1, 25)`, params: [], columns }, { batchSize: 10, batchBytes: 3 * 2040 })) {
      sizes.push(b.rows.length);
      expect(b.rows[0]).toEqual(['x'.repeat(1000)]);
    }
    expect(sizes).toEqual([3, 3, 3, 3, 3, 3, 3, 3, 1]);
    sizes.length = 0;
    for await (const b of conn.stream({ sql: `SELECT repeat('x', 1000) AS s FROM generate_series(1, 25)`, params: [], columns }, { batchSize: 10, batchBytes: 100 * 2040 })) sizes.push(b.rows.length);
    expect(sizes).toEqual([10, 10, 5]);
  });

  it('back-to-back statements share one connection, whatever way each ends', async () => {
    const own = createConnector({ ...cfg, name: 'pgseq', options: { pool: { max: 5 } } });
    const pool = (own as unknown as { pool: { totalCount: number } }).pool;
    const columns: ColumnMeta[] = [{ name: 'g', type: t.int32, nullable: false }];
    try {
      for (let i = 0; i < 20; i++) {
        // a whole small result, an empty one, a failing one, then one read in three batches
        expect(await collect(own.stream({ sql: `SELECT g FROM generate_series(1, $1::int) g`, params: [3n], columns }))).toEqual({ rows: [[1], [2], [3]], batches: 1 });
        expect(await collect(own.stream({ sql: `SELECT 1 WHERE false`, params: [], columns: [] }))).toEqual({ rows: [], batches: 0 });
        const err = await caught(collect(own.stream({ sql: `SELECT 1 / (g - 2) FROM generate_series(1, 3) g`, params: [], columns: [] })));
        expect(err.code).toBe('division_by_zero');
        let batches = 0;
        for await (const b of own.stream({ sql: `SELECT g FROM generate_series(1, 25) g`, params: [], columns }, { batchSize: 10 })) {
          expect(b.rows[0]).toEqual([batches * 10 + 1]);
          batches++;
        }
        expect(batches).toBe(3);
      }
      expect(pool.totalCount).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('a statement run again on a connection keeps its plan as a named statement, prepared again when its table changes, unnamed once the server lost one', async () => {
    const own = createConnector({ ...cfg, name: 'pgprep', options: { pool: { max: 1 } } });
    const int = (name: string): ColumnMeta => ({ name, type: t.int32, nullable: true });
    const run = (sql: string, params: (number | bigint)[], columns: ColumnMeta[]) => collect(own.stream({ sql, params, columns }));
    // the texts of this connection's named statements (all named junction_<n>), oldest first
    const held = async () => {
      const rows = (await run(`SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time`, [], [])).rows;
      expect(rows.every(([name]) => /^junction_\d+$/.test(String(name)))).toBe(true);
      return rows.map(([, text]) => text).filter((text) => !String(text).includes('pg_prepared_statements'));
    };
    try {
      await own.execute(`CREATE TABLE prep_t (a integer)`);
      await own.execute(`INSERT INTO prep_t VALUES (1), (2), (3)`);
      const sql = `SELECT a FROM prep_t WHERE a >= $1::integer ORDER BY a`;
      // the first use is unnamed; from the second one on the statement is named and kept
      expect((await run(sql, [2], [int('a')])).rows).toEqual([[2], [3]]);
      expect(await held()).toEqual([]);
      expect((await run(sql, [3], [int('a')])).rows).toEqual([[3]]);
      expect((await run(sql, [1], [int('a')])).rows).toEqual([[1], [2], [3]]);
      expect(await held()).toEqual([sql]);

      // its result type changes: PostgreSQL refuses the kept plan, the connector prepares it again
      await own.execute(`ALTER TABLE prep_t ALTER COLUMN a TYPE bigint`);
      const big: ColumnMeta = { name: 'a', type: t.int64, nullable: true };
      expect((await run(sql, [2], [big])).rows).toEqual([[2n], [3n]]);
      expect((await run(sql, [2], [big])).rows).toEqual([[2n], [3n]]);
      expect(await held()).toEqual([sql]);

      // a failing use closes the name (its Parse may have failed); the statement starts over
      const one = `SELECT (SELECT a FROM prep_t WHERE a >= $1::integer) AS x`;
      expect((await run(one, [3], [big])).rows).toEqual([[3n]]);
      expect((await run(one, [3], [big])).rows).toEqual([[3n]]);
      expect(await held()).toEqual([sql, one]);
      const err = await caught(run(one, [1], [big]));
      expect([err.code, err.message]).toEqual(['source_error', 'Source "pgprep" failed the query: more than one row returned by a subquery used as an expression']);
      expect((await run(one, [3], [big])).rows).toEqual([[3n]]);
      expect(await held()).toEqual([sql]);
      expect((await run(one, [3], [big])).rows).toEqual([[3n]]);
      expect(await held()).toEqual([sql, one]);

      // the session lost its statements (as behind PgBouncer in transaction mode): the statement
      // runs again unnamed, and the connector names none from then on
      await own.execute(`DEALLOCATE ALL`);
      expect((await run(sql, [3], [big])).rows).toEqual([[3n]]);
      for (let i = 0; i < 3; i++) expect((await run(one, [3], [big])).rows).toEqual([[3n]]);
      expect(await held()).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('a slow consumer holds the server back instead of buffering the result', async () => {
    const columns: ColumnMeta[] = [{ name: 'g', type: t.int32, nullable: false }];
    let seen = 0;
    for await (const b of conn.stream({ sql: `SELECT g FROM generate_series(1, 3000000) g`, params: [], columns }, { batchSize: 1000 })) {
      seen += b.rows.length;
      if (seen === 1000) {
        // the statement stays running, blocked writing to Junction's paused socket
        await expect
          .poll(
            async () =>
              (
                await admin.query(
                  `SELECT state, wait_event FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT g FROM generate_series(1, 3000000)%'`,
                  [db],
                )
              ).rows,
            { timeout: 10_000, interval: 50 },
          )
          .toEqual([{ state: 'active', wait_event: 'ClientWrite' }]);
      }
    }
    expect(seen).toBe(3000000);
  });

  it('a connection killed mid-stream fails the query as external, and the pool replaces it', async () => {
    const columns: ColumnMeta[] = [{ name: 'g', type: t.int32, nullable: false }];
    const err = await caught(
      (async () => {
        for await (const b of conn.stream({ sql: `SELECT g FROM generate_series(1, 3000000) g`, params: [], columns }, { batchSize: 1000 })) {
          if (b.rows[0][0] === 1) {
            await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT g FROM generate_series(1, 3000000)%'`, [db]);
          }
        }
      })(),
    );
    expect([err.kind, err.code]).toEqual(['external', 'source_error']);
    expect(err.message).toMatch(
      /^Source "pgsrc" failed the query: the connection to its server broke \((terminating connection due to administrator command|Connection terminated unexpectedly)\); the network or the server dropped it\. Run the query again; if this keeps happening, check the network path to the server\.$/,
    );
    const answers = await Promise.all([1, 2, 3].map((i) => conn.execute(`SELECT $1::int`, [i])));
    expect(answers.map((a) => a.rows[0][0])).toEqual([1, 2, 3]);
  });

  it('breaking out early closes the cursor and releases the connection', async () => {
    const columns: ColumnMeta[] = [{ name: 'g', type: t.int32, nullable: false }];
    // more early exits than the pool (max 3) has connections: each must come back
    for (let i = 0; i < 6; i++) {
      for await (const b of conn.stream(
        { sql: `SELECT g FROM generate_series(1, 1000000) g`, params: [], columns },
        { batchSize: 100 },
      )) {
        expect(b.rows[0]).toEqual([1]);
        break;
      }
    }
    await eventually('no statement runs', async () => {
      const r = await conn.execute(
        `SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()`,
      );
      return r.rows[0][0] === 0;
    });
  });

  it('a stream its consumer left behind does not hold close() forever: its connection is cut and reported', async () => {
    const columns: ColumnMeta[] = [{ name: 'g', type: t.int32, nullable: false }];
    const own = createConnector({ ...cfg, name: 'pgleak', options: { ...cfg.options, cancelGraceMs: 100 } });
    const it = own.stream({ sql: `SELECT g FROM generate_series(1, 1000000) g`, params: [], columns }, { batchSize: 100 })[Symbol.asyncIterator]();
    expect((await it.next()).value?.rows[0]).toEqual([1]);
    // neither next() nor return() again: the generator stays suspended holding its connection
    const e = await caught(own.close());
    expect(e.code).toBe('connections_leaked');
    expect(e.message).toBe('Source "pgleak": 1 connection(s) were still in use 5000 ms after the source was closed; they were cut.');
    await eventually('the cut connection is gone on the server', async () => (await countActive('SELECT g FROM generate_series%')) === 0);
  }, 20_000);

  it('cancels a running statement on the server and keeps the pool healthy', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const started = Date.now();
    const err = await caught(
      collect(conn.stream({ sql: `SELECT pg_sleep(30)`, params: [], columns: [] }, { signal: ac.signal })),
    );
    expect(err.kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(10_000);
    await eventually('pg_sleep(30) is no longer active', async () => {
      const active = await conn.execute(
        `SELECT count(*)::int FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%' AND state = 'active'`,
      );
      return active.rows[0][0] === 0;
    });
    // every pooled connection still answers (a stale cancel would kill one of these)
    const answers = await Promise.all([1, 2, 3].map((i) => conn.execute(`SELECT $1::int, pg_sleep(0.2)`, [i])));
    expect(answers.map((a) => a.rows[0][0])).toEqual([1, 2, 3]);
  });

  it('a cancel or an error arriving while the consumer is busy still ends cleanly', async () => {
    const columns: ColumnMeta[] = [{ name: 'g', type: t.int32, nullable: false }];
    const ac = new AbortController();
    const cancelled = await caught(
      (async () => {
        const sql = `SELECT g FROM generate_series(1, 5000) g WHERE g < 1500 OR pg_sleep(CASE WHEN g = 2000 THEN 30 ELSE 0 END) IS NOT NULL`;
        for await (const b of conn.stream({ sql, params: [], columns }, { signal: ac.signal, batchSize: 1000 })) {
          expect(b.rows.length).toBe(1000);
          // this consumer is still busy with its batch when the server reaches the sleeping row
          await expect.poll(() => waitEventOf('SELECT g FROM generate_series(1, 5000) g WHERE g < 1500%'), { timeout: 10_000, interval: 20 }).toBe('PgSleep');
          ac.abort();
        }
      })(),
    );
    expect(cancelled.kind).toBe('cancelled');
    const failed = await caught(
      (async () => {
        for await (const b of conn.stream(
          { sql: `SELECT 1 / (g - 1500) FROM generate_series(1, 5000) g`, params: [], columns: [] },
          { batchSize: 1000 },
        )) {
          expect(b.rows.length).toBe(1000);
          // busy until the server has failed the statement
          await expect.poll(() => waitEventOf('SELECT 1 / (g - 1500)%'), { timeout: 10_000, interval: 20 }).toBe('gone');
        }
      })(),
    );
    expect(failed.message).toBe('Source "pgsrc" failed the query: division by zero');
    const answers = await Promise.all([1, 2, 3].map((i) => conn.execute(`SELECT $1::int`, [i])));
    expect(answers.map((a) => a.rows[0][0])).toEqual([1, 2, 3]);
  });

  it('a statement queued behind a full pool is cancelled while it waits', async () => {
    let busyDone = false;
    const busy = Promise.all([1, 2, 3].map(() => conn.execute(`SELECT pg_sleep(1.5)`))).then(() => (busyDone = true));
    await expect.poll(() => countActive('SELECT pg_sleep(1.5)%'), { timeout: 10_000, interval: 20 }).toBe(3);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await caught(collect(conn.stream({ sql: `SELECT 1`, params: [], columns: [] }, { signal: ac.signal })));
    expect(err.kind).toBe('cancelled');
    // it did not wait for a connection to come free
    expect(busyDone).toBe(false);
    await busy;
    expect((await conn.execute(`SELECT 2`)).rows).toEqual([[2]]);
  });

  it('a timeout stops the statement with kind timeout', async () => {
    const err = await caught(
      collect(conn.stream({ sql: `SELECT pg_sleep(30)`, params: [], columns: [] }, { timeoutMs: 300 })),
    );
    expect(err.kind).toBe('timeout');
    await eventually('pg_sleep(30) is no longer active', async () => {
      const active = await conn.execute(
        `SELECT count(*)::int FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%' AND state = 'active'`,
      );
      return active.rows[0][0] === 0;
    });
  });

  it('an aborted signal before the start throws cancelled without taking a connection', async () => {
    const ac = new AbortController();
    ac.abort();
    const pool = (conn as unknown as { pool: { totalCount: number; idleCount: number } }).pool;
    const before = pool.totalCount - pool.idleCount;
    const err = await caught(collect(conn.stream({ sql: `SELECT 1`, params: [], columns: [] }, { signal: ac.signal })));
    expect(err.kind).toBe('cancelled');
    await new Promise((r) => setImmediate(r));
    expect(pool.totalCount - pool.idleCount).toBe(before);
  });

  it('reports a failing statement as external, naming the source', async () => {
    const err = await caught(conn.execute(`SELECT * FROM no_such_table`));
    expect(err.kind).toBe('external');
    expect(err.message).toBe('Source "pgsrc" failed the statement: relation "no_such_table" does not exist');
    expect(err.details).toEqual({ source: 'pgsrc', driverCode: '42P01' });
  });

  it('reports a data exception (SQLSTATE class 22) as a user error with Junction\'s code', async () => {
    const cases: [string, string, string, string][] = [
      ['SELECT 1 / 0', 'division_by_zero', 'division by zero', '22012'],
      [`SELECT 'x'::integer`, 'invalid_text_representation', 'invalid input syntax for type integer: "x"', '22P02'],
      ['SELECT 2147483647::integer + 1', 'numeric_value_out_of_range', 'integer out of range', '22003'],
      [`SELECT substr('abc', 1, -1)`, 'data_exception', 'negative substring length not allowed', '22011'],
    ];
    for (const [sql, code, message, state] of cases) {
      const err = await caught(conn.execute(sql));
      expect([err.kind, err.code, err.message, err.details]).toEqual(['user', code, `Source "pgsrc" failed the statement: ${message}`, { source: 'pgsrc', driverCode: state }]);
    }
  });

  it('bulk loads through COPY with exact escaping', async () => {
    await conn.execute(`CREATE TABLE bulk (id bigint, s text, d numeric(12,2), b bytea, f boolean, ts timestamp)`);
    const tricky = ['tab\there', 'new\nline', 'back\\slash', '\\N', 'cr\rx', '', 'emoji 😀', 'quote \' "'];
    async function* gen(): AsyncIterable<Row[]> {
      for (let b = 0; b < 10; b++) {
        const batch: Row[] = [];
        for (let i = 0; i < 1000; i++) {
          const id = b * 1000 + i;
          batch.push([
            BigInt(id),
            id % 100 === 0 ? null : tricky[id % tricky.length],
            `${id}.25`,
            new Uint8Array([id % 256, 92, 9]),
            id % 2 === 0,
            '2020-01-01T00:00:00.25',
          ]);
        }
        yield batch;
      }
    }
    const table = {
      name: 'bulk',
      columns: [
        { name: 'id', type: t.int64, nullable: false },
        { name: 's', type: t.string, nullable: true },
        { name: 'd', type: t.decimal(12, 2), nullable: true },
        { name: 'b', type: t.binary, nullable: true },
        { name: 'f', type: t.bool, nullable: true },
        { name: 'ts', type: t.timestamp, nullable: true },
      ],
    };
    expect(await conn.bulkLoad(table, gen())).toBe(10000);
    const r = await conn.execute(
      `SELECT id, s, d, b, f, ts FROM bulk WHERE id IN (0, 1, 2, 3, 4, 5, 6, 7, 8, 9999) ORDER BY id`,
    );
    expect(r.rows).toEqual([
      [0n, null, '0.25', new Uint8Array([0, 92, 9]), true, '2020-01-01T00:00:00.25'],
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((id) => [
        BigInt(id),
        tricky[id % tricky.length],
        `${id}.25`,
        new Uint8Array([id, 92, 9]),
        id % 2 === 0,
        '2020-01-01T00:00:00.25',
      ]),
      [
        9999n,
        tricky[9999 % tricky.length],
        '9999.25',
        new Uint8Array([9999 % 256, 92, 9]),
        false,
        '2020-01-01T00:00:00.25',
      ],
    ]);
  });
});

describe('postgres connection diagnosis', () => {
  it('answers ok with the server version', async () => {
    const d = await conn.test();
    expect(d.ok).toBe(true);
    if (d.ok) expect(d.serverVersion).toMatch(/^15\./);
  });

  it('TLS: a self-signed server certificate is reported, and accepted when verification is off', async () => {
    const strict = createConnector({ ...cfg, options: { ...cfg.options, tls: { enabled: true } } });
    const d = await strict.test();
    await strict.close();
    expect(d).toMatchObject({ ok: false, code: 'unknown' });
    if (!d.ok)
      expect(d.message).toMatch(
        /^The TLS certificate of the server of source "pgsrc" is not trusted: self[- ]signed certificate/,
      );
    const lax = createConnector({
      ...cfg,
      options: { ...cfg.options, tls: { enabled: true, rejectUnauthorized: false } },
    });
    const ok = await lax.test();
    const ssl = await lax.execute(`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`);
    await lax.close();
    expect(ok.ok).toBe(true);
    expect(ssl.rows).toEqual([[true]]);
  });

  it('a wrong password is auth_failed and never echoed', async () => {
    const secret = 'Wr0ng-S3cret-pw!';
    const c = createConnector({ ...cfg, password: secret });
    const d = await c.test();
    await c.close();
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.code).toBe('auth_failed');
    expect(d.message + d.hint).not.toContain(secret);
    expect(d.message).toBe('The server of source "pgsrc" rejected the user name or password for user "junction".');
  });

  it('a closed port is port_closed', async () => {
    const port = await closedPort();
    const c = createConnector({ ...cfg, host: '127.0.0.1', port, password: 'S3cret-pw-closed' });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'port_closed' });
    if (!d.ok) expect(d.message + d.hint).not.toContain('S3cret-pw-closed');
  });

  it('an unresolvable host is host_unreachable', async () => {
    const c = createConnector({ ...cfg, host: 'no-such-host.invalid' });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'host_unreachable' });
    if (!d.ok) expect(d.message).toBe('The host name "no-such-host.invalid" of source "pgsrc" could not be resolved.');
  });

  it('a missing database is database_missing', async () => {
    const c = createConnector({ ...cfg, database: 'jt_does_not_exist' });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'database_missing' });
  });

  it('a query on an unreachable source fails as external with the diagnosis', async () => {
    const port = await closedPort();
    const c = createConnector({ ...cfg, port, password: 'S3cret-pw-q' });
    const err = await caught(c.execute('SELECT 1'));
    await c.close();
    expect(err.kind).toBe('external');
    expect(err.details).toMatchObject({ source: 'pgsrc', diagnosis: 'port_closed' });
    expect(err.message).not.toContain('S3cret-pw-q');
  });
});
