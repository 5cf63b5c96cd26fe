/**
 * Proves the client harness (clients.ts) against the real PostgreSQL of TEST_PG_URL: every
 * client reads a scratch database's typed table and the test asserts exact rows, so when a test
 * points the same functions at Junction's listener, a difference is Junction's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensurePgJdbcJar,
  nodePgPrepared,
  nodePgStream,
  runJdbc,
  runPgbench,
  runPsql,
  runPsycopg,
  targetFromUrl,
  writePgbenchScript,
  type PgTarget,
} from './clients.js';

const TEST_PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const DB = 'junction_pgclients';
const admin = targetFromUrl(TEST_PG_URL);
const target: PgTarget = { ...admin, database: DB };
const HERE = path.dirname(fileURLToPath(import.meta.url));

/** one call's wall-clock ms per client, printed at the end */
const timings: Record<string, number[]> = {};
const timed = (client: string, ms: number) => (timings[client] ??= []).push(ms);

const SETUP = String.raw`
CREATE TABLE pgc_types (
  id int4 PRIMARY KEY,
  b bool,
  i2 int2,
  i4 int4,
  i8 int8,
  n numeric(12, 4),
  f4 float4,
  f8 float8,
  t text,
  vc varchar(20),
  bc char(5),
  d date,
  tm time,
  ts timestamp,
  tstz timestamptz,
  iv interval,
  by bytea,
  u uuid,
  j json,
  jb jsonb
);
INSERT INTO pgc_types VALUES
  (1, true, 32767, 2147483647, 9223372036854775807, 12345678.1234, 1.5, 3.141592653589793,
   'hello', 'varchar ✓', 'ab', '2024-02-29', '13:45:30.123456', '2024-02-29 13:45:30.123456',
   '2024-02-29 13:45:30.123456+00', '1 year 2 mons 3 days 04:05:06.789', '\x00ff10',
   'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1, "a": [1, 2]}', '{"b": 1, "a": [1, 2]}'),
  (2, false, -32768, -2147483648, -9223372036854775808, -0.0001, -0.1, 1e-300,
   'żółw 🐢 "q"', '', 'abcde', '1999-12-31', '00:00:00', '1999-12-31 23:59:59',
   '1999-12-31 23:59:59+05', '-1 days', '\x', '00000000-0000-0000-0000-000000000000', '[]', 'null'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL);
`;

const COLUMNS = [
  'id',
  'b',
  'i2',
  'i4',
  'i8',
  'n',
  'f4',
  'f8',
  't',
  'vc',
  'bc',
  'd',
  'tm',
  'ts',
  'tstz',
  'iv',
  'by',
  'u',
  'j',
  'jb',
];

/** the server's text of every value (session TimeZone UTC, DateStyle ISO, IntervalStyle postgres) */
const TEXT_ROWS: (string | null)[][] = [
  [
    '1',
    't',
    '32767',
    '2147483647',
    '9223372036854775807',
    '12345678.1234',
    '1.5',
    '3.141592653589793',
    'hello',
    'varchar ✓',
    'ab   ',
    '2024-02-29',
    '13:45:30.123456',
    '2024-02-29 13:45:30.123456',
    '2024-02-29 13:45:30.123456+00',
    '1 year 2 mons 3 days 04:05:06.789',
    '\\x00ff10',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    '{"b": 1, "a": [1, 2]}',
    '{"a": [1, 2], "b": 1}',
  ],
  [
    '2',
    'f',
    '-32768',
    '-2147483648',
    '-9223372036854775808',
    '-0.0001',
    '-0.1',
    '1e-300',
    'żółw 🐢 "q"',
    '',
    'abcde',
    '1999-12-31',
    '00:00:00',
    '1999-12-31 23:59:59',
    '1999-12-31 18:59:59+00',
    '-1 days',
    '\\x',
    '00000000-0000-0000-0000-000000000000',
    '[]',
    'null',
  ],
  ['3', ...Array<null>(19).fill(null)],
];

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_PG_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  await adminQuery(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${DB} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  // every client's session sees the same zone and styles, whatever the server's defaults
  await adminQuery(`ALTER DATABASE ${DB} SET timezone TO 'UTC'`);
  await adminQuery(`ALTER DATABASE ${DB} SET datestyle TO 'ISO, MDY'`);
  await adminQuery(`ALTER DATABASE ${DB} SET intervalstyle TO 'postgres'`);
  const c = new pg.Client({ ...targetFromUrl(TEST_PG_URL), database: DB });
  await c.connect();
  try {
    await c.query(SETUP);
  } finally {
    await c.end();
  }
});

afterAll(async () => {
  await adminQuery(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  const summary = Object.entries(timings)
    .map(([k, v]) => `${k}: ${v.map((ms) => Math.round(ms)).join(', ')} ms`)
    .join('\n  ');
  console.log(`pg-clients: wall-clock ms per call\n  ${summary}`);
});

describe('psql', () => {
  it('returns every type as exact text, unaligned with a TAB separator', async () => {
    const r = await runPsql(target, `SELECT * FROM pgc_types WHERE id <= 2 ORDER BY id;`);
    timed('psql', r.ms);
    // psql prints NULL as an empty field: compare rows 1 and 2, whose values are all non-null
    expect(r.rows).toEqual(TEXT_ROWS.slice(0, 2));
    expect(r.stderr).toBe('');
  });

  it('prints NULL as the \\pset null string and takes psql variables', async () => {
    const r = await runPsql(target, `\\pset null '<null>'\nSELECT id, b, t FROM pgc_types WHERE id = :id;`, {
      vars: { id: '3' },
    });
    expect(r.stdout).toBe('3\t<null>\t<null>\n');
  });

  it('runs \\d TABLE', async () => {
    const r = await runPsql(target, `\\d pgc_types`, { format: 'aligned' });
    expect(r.lines).toEqual([
      '                       Table "public.pgc_types"',
      ' Column |            Type             | Collation | Nullable | Default ',
      '--------+-----------------------------+-----------+----------+---------',
      ' id     | integer                     |           | not null | ',
      ' b      | boolean                     |           |          | ',
      ' i2     | smallint                    |           |          | ',
      ' i4     | integer                     |           |          | ',
      ' i8     | bigint                      |           |          | ',
      ' n      | numeric(12,4)               |           |          | ',
      ' f4     | real                        |           |          | ',
      ' f8     | double precision            |           |          | ',
      ' t      | text                        |           |          | ',
      ' vc     | character varying(20)       |           |          | ',
      ' bc     | character(5)                |           |          | ',
      ' d      | date                        |           |          | ',
      ' tm     | time without time zone      |           |          | ',
      ' ts     | timestamp without time zone |           |          | ',
      ' tstz   | timestamp with time zone    |           |          | ',
      ' iv     | interval                    |           |          | ',
      ' by     | bytea                       |           |          | ',
      ' u      | uuid                        |           |          | ',
      ' j      | json                        |           |          | ',
      ' jb     | jsonb                       |           |          | ',
      'Indexes:',
      '    "pgc_types_pkey" PRIMARY KEY, btree (id)',
      '',
    ]);
  });

  it('runs \\dt and \\x, and an argument list of its own', async () => {
    const dt = await runPsql(target, `\\dt`);
    expect(dt.rows).toEqual([['public', 'pgc_types', 'table', admin.user]]);

    const x = await runPsql(target, `\\x\nSELECT id, t, n FROM pgc_types WHERE id <= 2 ORDER BY id;`);
    expect(x.lines).toEqual(['id\t1', 't\thello', 'n\t12345678.1234', '', 'id\t2', 't\tżółw 🐢 "q"', 'n\t-0.0001']);

    const own = await runPsql(target, ['-A', '-t', '-c', 'SELECT count(*), sum(i2) FROM pgc_types']);
    expect(own.stdout).toBe('3|-1\n');
  });

  it("runs \\copy (query) to 'file' into its working directory", async () => {
    const r = await runPsql(
      target,
      `\\copy (SELECT id, t, n, d, by FROM pgc_types ORDER BY id) to 'pgc_types.csv' with (format csv, header)`,
    );
    expect(readFileSync(path.join(r.cwd, 'pgc_types.csv'), 'utf8')).toBe(
      'id,t,n,d,by\n1,hello,12345678.1234,2024-02-29,\\x00ff10\n2,"żółw 🐢 ""q""",-0.0001,1999-12-31,\\x\n3,,,,\n',
    );
  });

  it('reports an error on stderr with exit code 3 under ON_ERROR_STOP', async () => {
    const r = await runPsql(target, `SELECT 1;\nSELECT nope FROM pgc_types;\nSELECT 2;`, { allowError: true });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('1\n');
    expect(r.stderr).toBe(
      'psql:<stdin>:2: ERROR:  column "nope" does not exist\nLINE 1: SELECT nope FROM pgc_types;\n               ^\n',
    );
    await expect(runPsql(target, 'SELECT nope')).rejects.toThrow(/column "nope" does not exist/);
  });
});

describe('psycopg 3', () => {
  it('runs a query with parameters and returns the exact text of every type', async () => {
    const all = await runPsycopg(target, 'query', { sql: 'SELECT * FROM pgc_types ORDER BY id' });
    timed('psycopg', all.wallMs);
    expect(all.columns.map((c) => c.name)).toEqual(COLUMNS);
    expect(all.columns.map((c) => c.typeOid)).toEqual([
      23, 16, 21, 23, 20, 1700, 700, 701, 25, 1043, 1042, 1082, 1083, 1114, 1184, 1186, 17, 2950, 114, 3802,
    ]);
    expect(all.columns.every((c) => c.format === 0)).toBe(true);
    expect(all.rows).toEqual(TEXT_ROWS);
    expect(all.status).toBe('SELECT 3');
    expect(all.parameters.TimeZone).toBe('UTC');
    expect(all.psycopg.version).toMatch(/^3\./);

    const p = await runPsycopg(target, 'query', {
      sql: 'SELECT id, n + %s AS n2, d + %s AS d2, %s::text AS s FROM pgc_types WHERE id = ANY(%s) ORDER BY id',
      params: [{ type: 'numeric', value: '0.00005' }, 1, "it's", [1, 2]],
    });
    expect(p.rows).toEqual([
      ['1', '12345678.12345', '2024-03-01', "it's"],
      ['2', '-0.00005', '2000-01-01', "it's"],
    ]);
  });

  it('executes a server-side prepared statement (prepare=True) in a loop', async () => {
    const r = await runPsycopg(target, 'prepare', {
      sql: 'SELECT id, t, %s::int4 * 10 AS k FROM pgc_types WHERE id = %s',
      paramSets: [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ],
      repeat: 3,
      checkPrepared: true,
    });
    timed('psycopg', r.wallMs);
    expect(r.executions).toBe(12);
    const once = [[['1', 'hello', '10']], [['2', 'żółw 🐢 "q"', '20']], [['3', null, '30']], []];
    expect(r.results).toEqual([...once, ...once, ...once]);
    // one statement, prepared once under psycopg's name
    expect(r.preparedStatements).toEqual([['_pg3_0', 'SELECT id, t, $1::int4 * 10 AS k FROM pgc_types WHERE id = $2']]);
  });

  it('loads every type from a binary=True cursor', async () => {
    const r = await runPsycopg(target, 'binary', { sql: 'SELECT * FROM pgc_types ORDER BY id' });
    timed('psycopg', r.wallMs);
    expect(r.columns.every((c) => c.format === 1)).toBe(true);
    expect(r.rows).toEqual([
      [
        '1',
        'true',
        '32767',
        '2147483647',
        '9223372036854775807',
        '12345678.1234',
        '1.5',
        '3.141592653589793',
        'hello',
        'varchar ✓',
        'ab   ',
        '2024-02-29',
        '13:45:30.123456',
        '2024-02-29T13:45:30.123456',
        '2024-02-29T13:45:30.123456+00:00',
        '428d 14706s 789000us', // psycopg's timedelta: 1 year = 365 days, 1 month = 30 days
        '\\x00ff10',
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        '{"a":[1,2],"b":1}',
        '{"a":[1,2],"b":1}',
      ],
      [
        '2',
        'false',
        '-32768',
        '-2147483648',
        '-9223372036854775808',
        '-0.0001',
        '-0.10000000149011612', // the float4 nearest to -0.1, as a Python float
        '1e-300',
        'żółw 🐢 "q"',
        '',
        'abcde',
        '1999-12-31',
        '00:00:00',
        '1999-12-31T23:59:59',
        '1999-12-31T18:59:59+00:00',
        '-1d 0s 0us',
        '\\x',
        '00000000-0000-0000-0000-000000000000',
        '[]',
        null, // jsonb 'null' loads as None
      ],
      ['3', ...Array<null>(19).fill(null)],
    ]);
    expect(r.pyTypes[0]).toEqual([
      'int',
      'bool',
      'int',
      'int',
      'int',
      'Decimal',
      'float',
      'float',
      'str',
      'str',
      'str',
      'date',
      'time',
      'datetime',
      'datetime',
      'timedelta',
      'bytes',
      'UUID',
      'dict',
      'dict',
    ]);
  });

  it('cancels a running query with conn.cancel() (57014) and keeps the session', async () => {
    const r = await runPsycopg(target, 'cancel', { sql: 'SELECT pg_sleep(30)', afterMs: 300 }, { timeoutMs: 20_000 });
    timed('psycopg', r.wallMs);
    expect(r).toMatchObject({
      sqlstate: '57014',
      completed: false,
      class: 'QueryCanceled',
      message: 'canceling statement due to user request',
      usableAfter: true,
    });
    expect(r.elapsedMs).toBeGreaterThanOrEqual(250);
    expect(r.elapsedMs).toBeLessThan(10_000);
  }, 30_000);

  it('reports sqlstate, message and position of an error', async () => {
    const col = await runPsycopg(target, 'error', { sql: 'SELECT id, nope FROM pgc_types' });
    expect(col).toMatchObject({
      sqlstate: '42703',
      severity: 'ERROR',
      message: 'column "nope" does not exist',
      position: 12,
      completed: false,
      usableAfter: true,
    });
    const div = await runPsycopg(target, 'error', {
      sql: 'SELECT 1 / (id - id) FROM pgc_types WHERE id = %s',
      params: [1],
    });
    expect(div).toMatchObject({ sqlstate: '22012', message: 'division by zero', position: null, usableAfter: true });
    const ok = await runPsycopg(target, 'error', { sql: 'SELECT 1' });
    expect(ok).toMatchObject({ sqlstate: null, completed: true });
  });

  it('throws when a query fails outside error mode', async () => {
    await expect(runPsycopg(target, 'query', { sql: 'SELECT nope' })).rejects.toThrow(/42703/);
  });
});

describe('pgjdbc', () => {
  beforeAll(async () => {
    await ensurePgJdbcJar();
  }, 180_000);

  it('reads DatabaseMetaData: schemas, tables, columns, primary keys', async () => {
    const r = await runJdbc(target, 'metadata', ['public', 'pgc_types']);
    timed('jdbc', r.wallMs);
    expect(r.product).toBe('PostgreSQL');
    expect(r.driverVersion).toMatch(/^42\.7\./);
    expect(r.schemas.map((s) => s.TABLE_SCHEM)).toEqual(['information_schema', 'pg_catalog', 'public']);
    expect(r.schemas.every((s) => s.TABLE_CATALOG === DB)).toBe(true);
    expect(r.tables.map((t) => [t.TABLE_CAT, t.TABLE_SCHEM, t.TABLE_NAME, t.TABLE_TYPE])).toEqual([
      [DB, 'public', 'pgc_types', 'TABLE'],
    ]);
    expect(
      r.columns.map((c) => [c.COLUMN_NAME, c.DATA_TYPE, c.TYPE_NAME, c.COLUMN_SIZE, c.DECIMAL_DIGITS, c.IS_NULLABLE]),
    ).toEqual([
      ['id', '4', 'int4', '10', '0', 'NO'],
      ['b', '-7', 'bool', '1', '0', 'YES'],
      ['i2', '5', 'int2', '5', '0', 'YES'],
      ['i4', '4', 'int4', '10', '0', 'YES'],
      ['i8', '-5', 'int8', '19', '0', 'YES'],
      ['n', '2', 'numeric', '12', '4', 'YES'],
      ['f4', '7', 'float4', '8', '8', 'YES'],
      ['f8', '8', 'float8', '17', '17', 'YES'],
      ['t', '12', 'text', '2147483647', '0', 'YES'],
      ['vc', '12', 'varchar', '20', '0', 'YES'],
      ['bc', '1', 'bpchar', '5', '0', 'YES'],
      ['d', '91', 'date', '13', '0', 'YES'],
      ['tm', '92', 'time', '15', '6', 'YES'],
      ['ts', '93', 'timestamp', '29', '6', 'YES'],
      ['tstz', '93', 'timestamptz', '35', '6', 'YES'],
      ['iv', '1111', 'interval', '49', '6', 'YES'],
      ['by', '-2', 'bytea', '2147483647', '0', 'YES'],
      ['u', '1111', 'uuid', '2147483647', '0', 'YES'],
      ['j', '1111', 'json', '2147483647', '0', 'YES'],
      ['jb', '1111', 'jsonb', '2147483647', '0', 'YES'],
    ]);
    expect(r.columns.map((c) => c.ORDINAL_POSITION)).toEqual(COLUMNS.map((_, i) => String(i + 1)));
    expect(r.primaryKeys).toEqual([
      {
        TABLE_CAT: DB,
        TABLE_SCHEM: 'public',
        TABLE_NAME: 'pgc_types',
        COLUMN_NAME: 'id',
        KEY_SEQ: '1',
        PK_NAME: 'pgc_types_pkey',
      },
    ]);
  }, 60_000);

  it('returns rows by getString and the classes of getObject', async () => {
    const r = await runJdbc(target, 'query', ['SELECT * FROM pgc_types ORDER BY id']);
    timed('jdbc', r.wallMs);
    expect(r.columns!.map((c) => [c.name, c.typeName, c.type])).toEqual([
      ['id', 'int4', 4],
      ['b', 'bool', -7],
      ['i2', 'int2', 5],
      ['i4', 'int4', 4],
      ['i8', 'int8', -5],
      ['n', 'numeric', 2],
      ['f4', 'float4', 7],
      ['f8', 'float8', 8],
      ['t', 'text', 12],
      ['vc', 'varchar', 12],
      ['bc', 'bpchar', 1],
      ['d', 'date', 91],
      ['tm', 'time', 92],
      ['ts', 'timestamp', 93],
      ['tstz', 'timestamptz', 93],
      ['iv', 'interval', 1111],
      ['by', 'bytea', -2],
      ['u', 'uuid', 1111],
      ['j', 'json', 1111],
      ['jb', 'jsonb', 1111],
    ]);
    expect(r.rows).toEqual(TEXT_ROWS);
    const classes = [
      'java.lang.Integer',
      'java.lang.Boolean',
      'java.lang.Integer',
      'java.lang.Integer',
      'java.lang.Long',
      'java.math.BigDecimal',
      'java.lang.Float',
      'java.lang.Double',
      'java.lang.String',
      'java.lang.String',
      'java.lang.String',
      'java.sql.Date',
      'java.sql.Time',
      'java.sql.Timestamp',
      'java.sql.Timestamp',
      'org.postgresql.util.PGInterval',
      '[B',
      'java.util.UUID',
      'org.postgresql.util.PGobject',
      'org.postgresql.util.PGobject',
    ];
    expect(r.classes).toEqual([classes, classes, ['java.lang.Integer', ...Array<null>(19).fill(null)]]);
  }, 60_000);

  it('loops a PreparedStatement until pgjdbc prepares it on the server', async () => {
    const n = 8;
    const r = await runJdbc(target, 'prepared', [
      'SELECT id, t, n, ? AS k FROM pgc_types WHERE id <= ? ORDER BY id',
      String(n),
      'int:{i}',
      'int:2',
    ]);
    timed('jdbc', r.wallMs);
    expect(r.executions).toBe(n);
    expect(r.results).toEqual(
      Array.from({ length: n }, (_, i) => [
        ['1', 'hello', '12345678.1234', String(i)],
        ['2', 'żółw 🐢 "q"', '-0.0001', String(i)],
      ]),
    );
    // the default prepareThreshold (5) moves the statement to a named server-side one
    expect(r.serverPrepared).toBe(true);
    expect(r.columns.map((c) => c.typeName)).toEqual(['int4', 'text', 'numeric', 'int4']);
  }, 60_000);

  it('binds typed parameters, and prepares from the first use with prepareThreshold=1', async () => {
    const r = await runJdbc(
      target,
      'prepared',
      [
        'SELECT ?::numeric + n, ? + d, ?::text, ?::int8 + i8, ?::bool, ?::timestamp FROM pgc_types WHERE id = 1',
        '2',
        'numeric:0.0001',
        'int:{i}',
        'text:x{i}',
        'long:-1',
        'bool:true',
        'timestamp:2024-01-02T03:04:05.678',
      ],
      { props: { prepareThreshold: '1' } },
    );
    expect(r.results).toEqual([
      [['12345678.1235', '2024-02-29', 'x0', '9223372036854775806', 't', '2024-01-02 03:04:05.678']],
      [['12345678.1235', '2024-03-01', 'x1', '9223372036854775806', 't', '2024-01-02 03:04:05.678']],
    ]);
    expect(r.serverPrepared).toBe(true);
  }, 60_000);

  it('cancels a running statement with Statement.cancel() (57014)', async () => {
    const r = await runJdbc(target, 'cancel', ['SELECT pg_sleep(30)', '300']);
    timed('jdbc', r.wallMs);
    expect(r).toMatchObject({ completed: false, sqlState: '57014', usableAfter: true });
    expect(r.error!.message).toBe('ERROR: canceling statement due to user request');
    expect(r.error!.elapsedMs).toBeGreaterThanOrEqual(250);
    expect(r.error!.elapsedMs).toBeLessThan(10_000);
  }, 60_000);

  it('stops a statement at setQueryTimeout (57014)', async () => {
    const r = await runJdbc(target, 'timeout', ['SELECT pg_sleep(30)', '1']);
    timed('jdbc', r.wallMs);
    expect(r).toMatchObject({ completed: false, sqlState: '57014', usableAfter: true });
    expect(r.error!.elapsedMs).toBeGreaterThanOrEqual(950);
    expect(r.error!.elapsedMs).toBeLessThan(10_000);
  }, 60_000);
});

describe('sslmode', () => {
  const SSL_SQL = 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()';

  it('reaches the server with TLS or without, as the target asks', async () => {
    for (const [sslmode, want] of [
      ['require', 't'],
      ['disable', 'f'],
    ] as const) {
      const t = { ...target, sslmode };
      expect((await runPsql(t, `${SSL_SQL};`)).stdout).toBe(`${want}\n`);
      expect((await runPsycopg(t, 'query', { sql: SSL_SQL })).rows).toEqual([[want]]);
      expect((await nodePgPrepared(t, SSL_SQL, [], 1)).results).toEqual([[[want]]]);
      expect((await runJdbc(t, 'query', [SSL_SQL])).rows).toEqual([[want]]);
    }
  }, 60_000);
});

describe('pgbench', () => {
  const script = path.join(HERE, 'pgbench_point.sql');

  it('runs a custom script with -M prepared for a fixed number of transactions', async () => {
    const r = await runPgbench(target, script, { clients: 2, transactions: 200 });
    timed('pgbench', r.ms);
    expect(r.exitCode).toBe(0);
    expect(r).toMatchObject({ queryMode: 'prepared', clients: 2, threads: 1, processed: 400, failed: 0, aborted: 0 });
    expect(r.tps).toBeGreaterThan(0);
  }, 60_000);

  it('runs for a number of seconds', async () => {
    const r = await runPgbench(target, script, { clients: 2, seconds: 2 });
    timed('pgbench', r.ms);
    expect(r.exitCode).toBe(0);
    expect(r.failed).toBe(0);
    expect(r.aborted).toBe(0);
    // a loose floor: a loaded 2-core CI machine still does far more than this in 2 s
    expect(r.processed).toBeGreaterThan(20);
    expect(r.tps).toBeGreaterThan(10);
  }, 60_000);

  it('reports clients aborted by a wrong answer', async () => {
    const bad = writePgbenchScript(
      readFileSync(script, 'utf8').replace('\\if :got_id != :id', '\\if :got_id != :id + 1'),
    );
    const r = await runPgbench(target, bad, { clients: 2, transactions: 50 });
    expect(r.exitCode).toBe(2);
    expect(r.aborted).toBe(2);
    expect(r.processed).toBe(0);
    expect(r.stderr).toMatch(/client 0 script 0 aborted in command \d+ query 0: ERROR: {2}division by zero/);
  }, 60_000);
});

describe('node-postgres', () => {
  it('runs a named prepared statement n times', async () => {
    const r = await nodePgPrepared(
      target,
      'SELECT id, t, tstz, $1::int4 AS k FROM pgc_types WHERE id = $2',
      (i) => [i, (i % 3) + 1],
      9,
    );
    timed('node-pg prepared (9 calls)', r.ms);
    expect(r.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
      ['id', 23],
      ['t', 25],
      ['tstz', 1184],
      ['k', 23],
    ]);
    const row = (i: number) =>
      [
        ['1', 'hello', '2024-02-29 13:45:30.123456+00', String(i)],
        ['2', 'żółw 🐢 "q"', '1999-12-31 18:59:59+00', String(i)],
        ['3', null, null, String(i)],
      ][i % 3];
    expect(r.results).toEqual(Array.from({ length: 9 }, (_, i) => [row(i)]));
    expect(r.rowCounts).toEqual(Array<number>(9).fill(1));
  });

  it("parses values with pg's type parsers when asked", async () => {
    const r = await nodePgPrepared(target, 'SELECT b, i4, i8, n, f8, d FROM pgc_types WHERE id = $1', [2], 1, {
      parsedTypes: true,
      name: 'parsed',
    });
    const [b, i4, i8, n, f8, d] = r.results[0][0];
    expect([b, i4, i8, n, f8]).toEqual([false, -2147483648, '-9223372036854775808', '-0.0001', 1e-300]);
    expect(d).toBeInstanceOf(Date);
  });

  it('streams a large result through pg-query-stream in bounded memory', async () => {
    const sql = "SELECT g, repeat('x', 100) AS pad FROM generate_series(1, 300000) g";
    const s = await nodePgStream(target, sql, { batchSize: 500, sumColumn: 0 });
    timed('node pg-query-stream (300k rows)', s.wallMs);
    expect(s.count).toBe(300_000);
    expect(s.sum).toBe('45000150000');
    expect(s.first).toEqual(['1', 'x'.repeat(100)]);
    expect(s.last).toEqual(['300000', 'x'.repeat(100)]);
    // the same rows held at once take several times the memory: the measure tells them apart
    const b = await nodePgStream(target, sql, { buffered: true, sumColumn: 0 });
    expect(b.count).toBe(300_000);
    expect(b.sum).toBe('45000150000');
    console.log(
      `pg-query-stream RSS growth ${(s.rssGrowthBytes / 2 ** 20).toFixed(1)} MiB, buffered ${(b.rssGrowthBytes / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(s.rssGrowthBytes).toBeLessThan(64 * 2 ** 20);
    expect(s.rssGrowthBytes * 2).toBeLessThan(b.rssGrowthBytes);
  }, 60_000);
});
