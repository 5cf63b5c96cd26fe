import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connector, SourceConfig, SourceEngineName } from '../../src/contract/connector.js';
import type { Value } from '../../src/contract/types.js';
import { createConnector } from '../../src/create-connector.js';
import { dialectFor } from '../../src/sql/dialects.js';

/** One engine under test: a connector on a fresh, private schema/database holding the fixture. */
export interface EngineUnderTest {
  readonly engine: SourceEngineName;
  readonly connector: Connector;
  /** the schema a RemoteFrom names (PostgreSQL schema; elsewhere the default) */
  readonly schema?: string;
  drop(): Promise<void>;
}

function fromUrl(engine: SourceEngineName, url: string, name: string): SourceConfig {
  const u = new URL(url);
  return {
    name,
    engine,
    host: u.hostname,
    port: u.port ? Number(u.port) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

const unique = () => `jt_conf_${randomBytes(4).toString('hex')}`;

export async function startPostgres(url: string): Promise<EngineUnderTest> {
  const schema = unique();
  const connector = createConnector({ ...fromUrl('postgresql', url, 'pg'), options: { schema, pool: { max: 2 } } });
  await connector.execute(`CREATE SCHEMA ${schema}`);
  return {
    engine: 'postgresql',
    connector,
    schema,
    async drop() {
      try {
        await connector.execute(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await connector.close();
      }
    },
  };
}

export async function startMysql(url: string): Promise<EngineUnderTest> {
  const database = unique();
  const base = fromUrl('mysql', url, 'my');
  const admin = createConnector({ ...base, options: { pool: { max: 1 } } });
  try {
    // the server's default collation (case-insensitive, PAD SPACE): the traps are real
    await admin.execute(`CREATE DATABASE ${database}`);
  } finally {
    await admin.close();
  }
  const connector = createConnector({ ...base, database, options: { pool: { max: 2 } } });
  return {
    engine: 'mysql',
    connector,
    async drop() {
      try {
        await connector.execute(`DROP DATABASE ${database}`);
      } finally {
        await connector.close();
      }
    },
  };
}

export async function startSqlite(): Promise<EngineUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'jt-conf-'));
  const connector = createConnector({ name: 'lite', engine: 'sqlite', file: join(dir, 'conformance.db') });
  return {
    engine: 'sqlite',
    connector,
    async drop() {
      try {
        await connector.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export async function startSqlServer(url: string): Promise<EngineUnderTest> {
  const schema = unique();
  const connector = createConnector({ ...fromUrl('sqlserver', url, 'ms'), options: { schema, pool: { max: 2 } } });
  await connector.execute(`CREATE SCHEMA ${schema}`);
  return {
    engine: 'sqlserver',
    connector,
    schema,
    async drop() {
      try {
        await connector.execute(`DROP TABLE IF EXISTS ${schema}.words; DROP TABLE IF EXISTS ${schema}.other; DROP TABLE IF EXISTS ${schema}.[${HOSTILE.table.replace(/]/g, ']]')}]; DROP SCHEMA ${schema}`);
      } finally {
        await connector.close();
      }
    },
  };
}

export async function startDuckdb(): Promise<EngineUnderTest> {
  // no files: the fixture lives in the source's in-memory scratch tables, read through the same paths as file views
  const connector = createConnector({ name: 'duck', engine: 'duckdb', options: {} });
  return {
    engine: 'duckdb',
    connector,
    async drop() {
      await connector.close();
    },
  };
}

/** Engines without SQL tables of their own (documents) have no fixture here. */
const DDL: Partial<Record<SourceEngineName, (q: (t: string) => string, id: (name: string) => string) => string[]>> = {
  postgresql: (q, id) => [
    `CREATE TABLE ${q('words')} (id integer PRIMARY KEY, v varchar(10), c char(5), n integer, d numeric(10,2), dt date, flag boolean)`,
    `CREATE TABLE ${q('other')} (id integer PRIMARY KEY, k integer, s varchar(10), ts timestamp)`,
    `CREATE TABLE ${q(HOSTILE.table)} (${id(HOSTILE.column)} integer)`,
  ],
  mysql: (q, id) => [
    `CREATE TABLE ${q('words')} (id int PRIMARY KEY, v varchar(10), c char(5), n int, d decimal(10,2), dt date, flag boolean)`,
    `CREATE TABLE ${q('other')} (id int PRIMARY KEY, k int, s varchar(10), ts datetime(6))`,
    `CREATE TABLE ${q(HOSTILE.table)} (${id(HOSTILE.column)} int)`,
  ],
  sqlite: (q, id) => [
    `CREATE TABLE ${q('words')} (id INTEGER PRIMARY KEY, v VARCHAR(10), c CHAR(5), n INTEGER, d DECIMAL(10,2), dt DATE, flag BOOLEAN)`,
    `CREATE TABLE ${q('other')} (id INTEGER PRIMARY KEY, k INTEGER, s VARCHAR(10), ts TIMESTAMP)`,
    `CREATE TABLE ${q(HOSTILE.table)} (${id(HOSTILE.column)} INTEGER)`,
  ],
  // DuckDB has no blank-padded char(n): c is VARCHAR, read through RTRIM as the IR's char(5) asks
  duckdb: (q, id) => [
    `CREATE TABLE ${q('words')} (id INTEGER PRIMARY KEY, v VARCHAR(10), c VARCHAR(5), n INTEGER, d DECIMAL(10,2), dt DATE, flag BOOLEAN)`,
    `CREATE TABLE ${q('other')} (id INTEGER PRIMARY KEY, k INTEGER, s VARCHAR(10), ts TIMESTAMP)`,
    `CREATE TABLE ${q(HOSTILE.table)} (${id(HOSTILE.column)} INTEGER)`,
  ],
  sqlserver: (q, id) => [
    `CREATE TABLE ${q('words')} (id int PRIMARY KEY, v nvarchar(10), c nchar(5), n int, d decimal(10,2), dt date, flag bit)`,
    `CREATE TABLE ${q('other')} (id int PRIMARY KEY, k int, s nvarchar(10), ts datetime2(6))`,
    `CREATE TABLE ${q(HOSTILE.table)} (${id(HOSTILE.column)} int)`,
  ],
};

/**
 * Mixed case, trailing blanks in varchar and char, an accent, NULLs in every column,
 * negative integers for division, dates around a boundary.
 */
export const WORDS: readonly Value[][] = [
  [1, 'abc', 'ab', 7, '1.10', '1995-02-28', true],
  [2, 'ABC', 'AB', -7, '2.25', '1995-03-01', false],
  [3, 'abc ', 'ab  ', 0, '-0.50', '1996-12-31', null],
  [4, 'Abc', 'b', null, '10.00', '1995-03-02', true],
  [5, 'b', 'B', 2, null, null, false],
  [6, null, null, -1, '0.05', '2000-02-29', null],
  [7, 'a', 'a b', 5, '3.33', '1995-03-01', true],
  [8, 'é', 'e', 3, '1.00', '1995-01-01', false],
  [9, 'e', 'E', 3, '1.01', '1994-12-31', true],
];

export const OTHER: readonly Value[][] = [
  [1, 7, 'x', '1995-03-01T10:00:00'],
  [2, 99, 'y', '1995-03-01T10:00:00.5'],
  [3, null, 'z', null],
  [4, 3, 'w', '2000-01-01T00:00:00'],
];

/** Names that break out of every engine's quoting if it is done wrong. */
export const HOSTILE = { table: 'we"ird`ta]ble[;--', column: 'c"o`l]; DROP TABLE words; --' } as const;

export async function loadFixture(e: EngineUnderTest): Promise<void> {
  const d = dialectFor(e.engine);
  const q = (t: string) => (e.schema ? `${d.quoteIdentifier(e.schema)}.${d.quoteIdentifier(t)}` : d.quoteIdentifier(t));
  const ddl = DDL[e.engine];
  if (!ddl) throw new Error(`no conformance fixture for engine ${e.engine}`);
  for (const stmt of ddl(q, (name) => d.quoteIdentifier(name))) await e.connector.execute(stmt);
  const insert = async (t: string, rows: readonly Value[][]) => {
    for (const row of rows) {
      const marks = row.map((_, i) => d.placeholder(i + 1)).join(', ');
      await e.connector.execute(`INSERT INTO ${q(t)} VALUES (${marks})`, row);
    }
  };
  await insert('words', WORDS);
  await insert('other', OTHER);
  await insert(HOSTILE.table, [[42]]);
}
