import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, SourceConfig } from '../contract/connector.js';
import type { RemoteQuery } from '../contract/remote-query.js';
import { t, type ColumnMeta, type Row } from '../contract/types.js';
import { createConnector } from '../create-connector.js';
import { call, col, lit, table } from '../sql/ir-builders.js';
import { closedPort, collect, sourceFromUrl, uniqueName } from '../../test/support/sources.js';

const url = process.env.TEST_MSSQL_URL;
const base: SourceConfig = {
  name: 'mssrc',
  engine: 'sqlserver',
  host: '127.0.0.1',
  port: 1433,
  database: 'junction',
  user: 'sa',
  password: 'S3cret-mssql!',
  options: { connectTimeoutMs: 3000 },
};

describe('sql server connector without a server', () => {
  it('renders DECIMAL and temporal select items as server-side text and keeps the declared types', () => {
    const c = createConnector(base);
    const q: RemoteQuery = {
      select: [
        { expr: col('o', 'id', t.int64), alias: 'id' },
        { expr: col('o', 'price', t.decimal(38, 10)), alias: 'price' },
        { expr: col('o', 'at', t.timestamp), alias: 'at' },
      ],
      from: table('orders', 'o', 'dbo'),
      where: call('ge', [col('o', 'price', t.decimal(38, 10)), lit('1.5', t.decimal(38, 10))]),
      orderBy: [{ expr: col('o', 'price', t.decimal(38, 10)), desc: false, nullsFirst: false }],
    };
    const r = c.render(q);
    expect(r.sql).toBe(
      'SELECT [o].[id] AS [id], CAST(CAST([o].[price] AS DECIMAL(38,10)) AS NVARCHAR(80)) AS [price], CAST(CAST([o].[at] AS DATETIME2(7)) AS NVARCHAR(80)) AS [at] ' +
        'FROM [dbo].[orders] [o] WHERE ([o].[price] >= CAST(@p1 AS DECIMAL(2,1))) ORDER BY CASE WHEN [o].[price] IS NULL THEN 1 ELSE 0 END, [o].[price] ASC',
    );
    expect(r.params).toEqual(['1.5']);
    expect(r.columns.map((x) => x.type)).toEqual([t.int64, t.decimal(38, 10), t.timestamp]);
  });

  it('readOnly refuses a batch that is not a single query before it connects', async () => {
    // nothing listens on this port: a refusal that tried to connect would be source_unavailable
    const c = createConnector({ ...base, port: await closedPort() });
    try {
      for (const sql of [`SELECT 1 DELETE FROM dbo.orders`, `TRUNCATE TABLE dbo.orders`, `SELECT 1; SELECT 2`]) {
        let code: string | undefined;
        await c.execute(sql, [], { readOnly: true }).catch((e: { code?: string }) => (code = e.code));
        expect(code).toBe(sql.includes(';') ? 'multiple_statements' : 'native_not_read_only');
      }
    } finally {
      await c.close();
    }
  });

  it('a closed port is port_closed, a bad host host_unreachable, and the password is never echoed', async () => {
    const closed = createConnector({ ...base, port: await closedPort() });
    const d1 = await closed.test();
    await closed.close();
    expect(d1).toMatchObject({ ok: false, code: 'port_closed' });
    if (!d1.ok) expect(d1.message + d1.hint).not.toContain('S3cret-mssql!');
    const nohost = createConnector({ ...base, host: 'no-such-host.invalid' });
    const d2 = await nohost.test();
    await nohost.close();
    expect(d2).toMatchObject({ ok: false, code: 'host_unreachable' });
  });
});

if (!url) {
  // the one allowed skip: no SQL Server can run on this machine
  process.stdout.write('NOTICE: TEST_MSSQL_URL is unset: SQL Server live connector tests are skipped.\n');
}

describe.runIf(Boolean(url))('sql server connector against TEST_MSSQL_URL', () => {
  const db = uniqueName('ms');
  let admin: Connector;
  let conn: Connector;
  beforeAll(async () => {
    admin = createConnector({ ...sourceFromUrl(url!, 'admin'), engine: 'sqlserver' });
    await admin.execute(`CREATE DATABASE ${db}`);
    conn = createConnector({
      ...sourceFromUrl(url!, 'mssrc'),
      engine: 'sqlserver',
      database: db,
      options: { pool: { max: 3 } },
    });
  });
  afterAll(async () => {
    await conn?.close();
    await admin?.execute(`ALTER DATABASE ${db} SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE ${db}`);
    await admin?.close();
  });

  it('round-trips edge values through bulk load and the exact transport', async () => {
    await conn.execute(
      `CREATE TABLE rt (id INT PRIMARY KEY, i8 BIGINT, d DECIMAL(38,10), c NCHAR(5), v NVARCHAR(20), dt DATE, ts DATETIME2(7), tz DATETIMEOFFSET(7), b VARBINARY(10), u UNIQUEIDENTIFIER)`,
    );
    const columns: ColumnMeta[] = [
      ['id', t.int32],
      ['i8', t.int64],
      ['d', t.decimal(38, 10)],
      ['c', t.char(5)],
      ['v', t.varchar(20)],
      ['dt', t.date],
      ['ts', { kind: 'timestamp', precision: 7 }],
      ['tz', { kind: 'timestamptz', precision: 7 }],
      ['b', t.binary],
      ['u', t.uuid],
    ].map(([name, type]) => ({ name: name as string, type: type as ColumnMeta['type'], nullable: true }));
    const rows: Row[] = [
      [
        1,
        9223372036854775807n,
        '123456789012.1234567891',
        'ab',
        'emoji 😀',
        '2024-02-29',
        '2021-03-28T02:30:00.1234567',
        '2021-03-28T01:00:00.5Z',
        new Uint8Array([0, 255]),
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ],
      [2, null, null, null, null, null, null, null, null, null],
    ];
    async function* once(): AsyncIterable<Row[]> {
      yield rows;
    }
    expect(await conn.bulkLoad({ name: 'rt', columns }, once())).toBe(2);
    const q: RemoteQuery = {
      select: columns.map((c) => ({ expr: col('r', c.name, c.type), alias: c.name })),
      from: table('rt', 'r'),
      orderBy: [{ expr: col('r', 'id', t.int32), desc: false, nullsFirst: false }],
    };
    const r = await collect(conn.stream(conn.render(q)));
    expect(r.rows).toEqual([
      [
        1,
        9223372036854775807n,
        '123456789012.1234567891',
        'ab   ',
        'emoji 😀',
        '2024-02-29',
        '2021-03-28T02:30:00.1234567',
        '2021-03-28T01:00:00.5Z',
        new Uint8Array([0, 255]),
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ],
      rows[1],
    ]);
  });

  it('cancels WAITFOR DELAY and the pool still works', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    await expect(
      collect(
        conn.stream({ sql: `WAITFOR DELAY '00:00:30'; SELECT 1`, params: [], columns: [] }, { signal: ac.signal }),
      ),
    ).rejects.toMatchObject({ kind: 'cancelled' });
    expect((await conn.execute('SELECT 1')).rows).toEqual([[1]]);
  });

  it("reads each column's distinct count, NULL fraction and min/max from the histograms after UPDATE STATISTICS", async () => {
    // indexes made on the empty table describe no rows until the statistics are updated
    await conn.execute(`CREATE TABLE st (id INT PRIMARY KEY, g INT NULL, d DATE NOT NULL, c NCHAR(5) NULL);
      CREATE INDEX st_g ON st (g); CREATE INDEX st_d ON st (d); CREATE STATISTICS st_c ON st (c) WHERE c IS NOT NULL;
      INSERT INTO st SELECT n, CASE WHEN n % 5 = 0 THEN NULL ELSE n % 4 END, DATEADD(day, n - 1, '2020-01-01'), N'ab'
        FROM (SELECT TOP (100) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n FROM sys.all_columns) x;
      UPDATE STATISTICS st WITH FULLSCAN;`);
    const snap = await conn.introspect();
    const st = snap.tables.find((x) => x.name === 'st')!;
    expect(st.rowCount).toBe(100);
    expect(st.columns.map((c) => [c.name, c.stats])).toEqual([
      ['id', { distinct: 100, nullFraction: 0, min: '1', max: '100' }],
      ['g', { distinct: 4, nullFraction: 0.2, min: '0', max: '3' }],
      ['d', { distinct: 100, nullFraction: 0, min: '2020-01-01', max: '2020-04-09' }],
      // filtered statistics see some rows only
      ['c', undefined],
    ]);
  });

  it('diagnoses a wrong password', async () => {
    const c = createConnector({ ...sourceFromUrl(url!, 'mssrc'), engine: 'sqlserver', password: 'Wr0ng-S3cret-pw!' });
    const d = await c.test();
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'auth_failed' });
  });
});
