import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type Connector, type Value } from '@junction/connectors';
import { Engine } from '../../src/engine.js';
import { createMysqlDatabase, createPgDatabase, type TestDatabase } from '../support/databases.js';

/**
 * A small fixture for differential tests: four tables with NULLs, duplicate keys and one
 * empty table, split over two sources (a and b in PostgreSQL "p", c and e in MariaDB "m"),
 * plus one PostgreSQL database holding all four, the reference. Queries are written with
 * source prefixes (p.a, m.c); the reference runs them with the prefixes removed.
 */
export const TABLES = {
  a: { source: 'p', columns: ['id', 'k', 'v', 's'] },
  b: { source: 'p', columns: ['id', 'k', 'w'] },
  c: { source: 'm', columns: ['id', 'k', 'x'] },
  e: { source: 'm', columns: ['id', 'k'] },
} as const;

export type TableName = keyof typeof TABLES;

/** The integer columns of each table, which the generators compare and aggregate. */
export const NUMERIC: Record<TableName, readonly string[]> = { a: ['id', 'k', 'v'], b: ['id', 'k', 'w'], c: ['id', 'k', 'x'], e: ['id', 'k'] };
export const NAMES = Object.keys(TABLES) as TableName[];

/** the generators' seeded stream: the same queries for a seed on every machine */
export { seededRandom as rng } from '@junction/tpch';

const DDL: Record<TableName, string> = {
  a: 'CREATE TABLE a (id int NOT NULL PRIMARY KEY, k int, v int, s varchar(10))',
  b: 'CREATE TABLE b (id int NOT NULL PRIMARY KEY, k int, w int)',
  c: 'CREATE TABLE c (id int NOT NULL PRIMARY KEY, k int, x int)',
  e: 'CREATE TABLE e (id int NOT NULL PRIMARY KEY, k int)',
};

const ROWS: Record<TableName, Value[][]> = {
  a: [
    [1, 1, 10, 'x'],
    [2, 1, 20, 'y'],
    [3, 2, null, 'x'],
    [4, 3, 30, null],
    [5, null, 10, 'z'],
    [6, 4, 40, 'y'],
    [7, 2, 20, 'w'],
    [8, 5, null, 'x'],
  ],
  b: [
    [1, 1, 10],
    [2, 2, 20],
    [3, 2, 25],
    [4, null, 30],
    [5, 6, null],
    [6, 3, 10],
  ],
  c: [
    [1, 1, 10],
    [2, 1, 10],
    [3, 3, null],
    [4, null, 20],
    [5, 4, 40],
    [6, 7, 5],
  ],
  e: [],
};

export interface DifferentialFixture {
  readonly engine: Engine;
  /** runs SQL (prefixes removed) on the reference PostgreSQL database */
  reference(sql: string): Promise<Value[][]>;
  close(): Promise<void>;
}

/** The fixture of one test file: created before its tests, dropped after them. */
export function useFixture(): DifferentialFixture {
  let f: DifferentialFixture | undefined;
  beforeAll(async () => {
    f = await createFixture();
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });
  const current = (): DifferentialFixture => {
    if (!f) throw new Error('the differential fixture is used before its beforeAll ran');
    return f;
  };
  return {
    get engine() {
      return current().engine;
    },
    reference: (sql) => current().reference(sql),
    close: () => current().close(),
  };
}

/** A query generator's random choices over its seeded stream. */
export class Choices {
  constructor(protected readonly r: () => number) {}

  protected pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)];
  }

  protected chance(p: number): boolean {
    return this.r() < p;
  }
}

function insert(table: TableName): string | undefined {
  const rows = ROWS[table];
  if (rows.length === 0) return undefined;
  const lit = (v: Value) => (v === null ? 'NULL' : typeof v === 'string' ? `'${v}'` : String(v));
  return `INSERT INTO ${table} VALUES ${rows.map((r) => `(${r.map(lit).join(', ')})`).join(', ')}`;
}

async function createFixture(): Promise<DifferentialFixture> {
  const dbs: TestDatabase[] = [];
  try {
    const p = await createPgDatabase('diff');
    dbs.push(p);
    const m = await createMysqlDatabase('diff');
    dbs.push(m);
    const direct = await createPgDatabase('diff_ref');
    dbs.push(direct);
    for (const t of Object.keys(TABLES) as TableName[]) {
      const target = TABLES[t].source === 'p' ? p : m;
      for (const db of [target, direct]) {
        await db.exec(DDL[t]);
        const ins = insert(t);
        if (ins) await db.exec(ins);
      }
    }
    await p.exec('ANALYZE');
    await m.exec('ANALYZE TABLE c, e');
    const engine = new Engine({ workers: 1 });
    const connectors: Connector[] = [];
    for (const [name, db] of [
      ['p', p],
      ['m', m],
    ] as const) {
      const connector = await db.connector(name);
      connectors.push(connector);
      engine.addSource({ name, connector, catalog: await connector.introspect(), semantics: await connector.probe() });
    }
    const u = new URL(process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test');
    u.pathname = '/' + direct.name;
    const client = new pg.Client({ connectionString: u.toString() });
    await client.connect();
    // numbers as JavaScript values, as the comparison form below expects
    return {
      engine,
      async reference(sql) {
        const r = await client.query({ text: sql.replace(/\b[pm]\.(?=[abce]\b)/g, ''), rowMode: 'array' });
        return r.rows as Value[][];
      },
      async close() {
        await client.end().catch(() => undefined);
        await engine.close();
        for (const db of dbs) await db.drop();
      },
    };
  } catch (e) {
    for (const db of dbs) await db.drop().catch(() => undefined);
    throw e;
  }
}

/** Rows as comparable text: numbers of every width and numeric strings spelled alike. */
export function normalise(rows: readonly (readonly Value[])[]): string[] {
  return rows.map((r) => JSON.stringify(r.map(canon)));
}

function canon(v: Value): unknown {
  if (v === null) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (typeof v === 'number') return Number.isInteger(v) ? v : Number(v.toPrecision(12));
  return v;
}

export async function junctionRows(engine: Engine, sql: string, pushdown: boolean): Promise<Value[][]> {
  const result = await engine.query(sql, { pushdown });
  const rows: Value[][] = [];
  for await (const batch of result.rows) for (const r of batch) rows.push([...r]);
  return rows;
}
