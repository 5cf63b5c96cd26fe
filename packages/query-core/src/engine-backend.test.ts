import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type JunctionError, type Row } from '@junction/connectors';
import { createMysqlDatabase, createPgDatabase, registered, type TestDatabase } from '../test/support/databases.js';
import { recordingBackend, tablesOf, type Recorded } from '../test/support/backend.js';
import { Engine } from './engine.js';
import type { AccessPolicy, ExecutionBackend, QueryOptions, QueryResult } from './api.js';

/**
 * Queries run on a backend engine, end to end on real databases: a PostgreSQL database plays the
 * backend (it holds a copy of the MariaDB source's table and names tables catalog.schema.table as
 * Trino does), the sources are PostgreSQL, MariaDB and SQLite, the last out of the backend's reach.
 */
let pgDb: TestDatabase;
let myDb: TestDatabase;
let lite: Connector;
let warehouseConnector: Connector;
let engine: Engine;
let recorded: Recorded;

function backendOn(connector: Connector): ExecutionBackend {
  return {
    name: 'warehouse',
    connector,
    tableOf: (source) =>
      source === 'pg'
        ? { catalog: pgDb.name }
        : source === 'my'
          ? { catalog: pgDb.name, schema: 'my_copy' }
          : { local: true, reason: 'a SQLite file is not reachable from the warehouse' },
    autoRowsThreshold: 100,
  };
}

async function drain(r: QueryResult): Promise<Row[]> {
  const out: Row[] = [];
  for await (const b of r.rows) out.push(...b);
  return out;
}

async function rows(sql: string, options: QueryOptions = {}): Promise<{ rows: Row[]; result: QueryResult }> {
  const result = await engine.query(sql, options);
  return { rows: await drain(result), result };
}

beforeAll(async () => {
  pgDb = await createPgDatabase('backend');
  myDb = await createMysqlDatabase('backend');
  await pgDb.exec(`CREATE TABLE customer (c_id integer PRIMARY KEY, c_name varchar(20) NOT NULL, c_nation integer)`);
  await pgDb.exec(
    `INSERT INTO customer VALUES (1, 'ann', 1), (2, 'bob', 2), (3, 'cy', NULL), (4, 'dee', 1), (5, 'eve', 3)`,
  );
  await pgDb.exec(`CREATE TABLE orders (o_id integer PRIMARY KEY, o_cust integer, o_total numeric(10,2))`);
  await pgDb.exec(`INSERT INTO orders SELECT g, 1 + (g % 5), (g * 1.25)::numeric(10,2) FROM generate_series(1, 400) g`);
  await pgDb.exec(`ANALYZE`);
  await myDb.exec(`CREATE TABLE nation (n_id int PRIMARY KEY, n_name varchar(20) NOT NULL, n_region int NOT NULL)`);
  await myDb.exec(`INSERT INTO nation VALUES (1, 'FRANCE', 1), (2, 'PERU', 2), (3, 'CHAD', 3)`);
  await myDb.exec(`ANALYZE TABLE nation`);
  // the warehouse's copy of MariaDB's nation, in the catalog the backend maps source "my" to
  await pgDb.exec(`CREATE SCHEMA my_copy`);
  await pgDb.exec(
    `CREATE TABLE my_copy.nation (n_id int PRIMARY KEY, n_name varchar(20) NOT NULL, n_region int NOT NULL)`,
  );
  await pgDb.exec(`INSERT INTO my_copy.nation VALUES (1, 'FRANCE', 1), (2, 'PERU', 2), (3, 'CHAD', 3)`);
  lite = createConnector({ name: 'lite', engine: 'sqlite', file: ':memory:' });
  await lite.execute('CREATE TABLE region (r_id INTEGER PRIMARY KEY, r_name TEXT NOT NULL)');
  await lite.execute(`INSERT INTO region VALUES (1, 'EUROPE'), (2, 'AMERICA'), (3, 'AFRICA')`);
  warehouseConnector = await pgDb.connector('warehouse-conn');
  const backend = recordingBackend('warehouse', warehouseConnector);
  recorded = backend.recorded;
  engine = new Engine({ workers: 1, backend: backendOn(backend.connector) });
  engine.addSource(await registered(pgDb, 'pg'));
  engine.addSource(await registered(myDb, 'my'));
  engine.addSource({ name: 'lite', connector: lite, catalog: await lite.introspect(), semantics: await lite.probe() });
});

afterAll(async () => {
  await engine?.close();
  await lite?.close();
  await pgDb?.drop();
  await myDb?.drop();
});

const JOIN = `SELECT c_name, n_name FROM pg.customer JOIN my.nation ON c_nation = n_id ORDER BY c_name`;
const JOINED = [
  ['ann', 'FRANCE'],
  ['bob', 'PERU'],
  ['dee', 'FRANCE'],
  ['eve', 'CHAD'],
];

describe('a query on a backend engine', () => {
  it('sends a join across two sources to the backend as one statement, tables named by its catalogs', async () => {
    const before = recorded.queries.length;
    const { rows: got, result } = await rows(`/*+ engine(warehouse) */ ${JOIN}`);
    expect(got).toEqual(JOINED);
    const stats = result.stats();
    expect(stats.engine).toBe('warehouse');
    expect(stats.engineReason).toBe('asked for by the hint engine(warehouse)');
    expect(stats.sourceStatements.map((s) => s.source)).toEqual(['warehouse']);
    expect(recorded.queries.slice(before).map((q) => tablesOf(q))).toEqual([
      [`${pgDb.name}.public.customer`, `${pgDb.name}.my_copy.nation`],
    ]);
    expect(stats.sourceStatements[0].sql).toContain(
      `FROM "${pgDb.name}"."public"."customer" "customer" INNER JOIN "${pgDb.name}"."my_copy"."nation" "nation"`,
    );
  });

  it('answers as the local plan does, which reads each source itself', async () => {
    const { rows: got, result } = await rows(JOIN, { engine: 'local' });
    expect(got).toEqual(JOINED);
    expect(result.stats().engine).toBe('local');
    expect(
      result
        .stats()
        .sourceStatements.map((s) => s.source)
        .sort(),
    ).toEqual(['my', 'pg']);
  });

  it('keeps a source the backend cannot read local, joining it in Junction', async () => {
    const sql = `SELECT r_name, count(*) AS customers FROM pg.customer JOIN my.nation ON c_nation = n_id JOIN lite.region ON n_region = r_id GROUP BY r_name ORDER BY r_name`;
    const expected = [
      ['AFRICA', 1n],
      ['AMERICA', 1n],
      ['EUROPE', 2n],
    ];
    const { rows: got, result } = await rows(sql, { engine: 'warehouse' });
    expect(got).toEqual(expected);
    expect(result.stats().engine).toBe('warehouse');
    expect(result.stats().engineReason).toBe(
      'asked for by the engine option; kept local: sqlite source lite is not readable by warehouse: a SQLite file is not reachable from the warehouse',
    );
    expect(
      result
        .stats()
        .sourceStatements.map((s) => s.source)
        .sort(),
    ).toEqual(['lite', 'warehouse']);
    expect((await rows(sql, { engine: 'local' })).rows).toEqual(expected);
  });

  it('in auto, runs locally unless the local plan would both fetch past the threshold and exceed its memory budget', async () => {
    const small = await rows(
      `SELECT c_name, n_name FROM pg.customer JOIN my.nation ON c_nation = n_id WHERE c_id = 2`,
      { engine: 'auto' },
    );
    expect(small.rows).toEqual([['bob', 'PERU']]);
    expect(small.result.stats().engine).toBe('local');
    expect(small.result.stats().engineReason).toMatch(
      /^auto: about \d+ rows would be fetched from sources to run it locally, within warehouse's threshold of 100; about [\d,]+ (bytes|KB) held in memory, within half the budget of 256 MB$/,
    );
    const BIG = `/*+ engine(auto) */ SELECT o_id, n_name FROM pg.orders JOIN pg.customer ON o_cust = c_id JOIN my.nation ON c_nation = n_id WHERE o_total > 0`;
    // many rows, but the local plan holds little: it stays in Junction
    const fits = await rows(BIG);
    expect(fits.rows.length).toBe(320);
    expect(fits.result.stats().engine).toBe('local');
    expect(fits.result.stats().engineReason).toMatch(/^auto: about \d+ rows .*, over warehouse's threshold of 100; about [\d,]+ (bytes|KB) held in memory, within half the budget of 256 MB$/);
    // the same rows past a budget the local plan would spill over: the backend runs it
    const spills = await rows(BIG, { memoryBudgetBytes: 100 });
    expect(spills.rows.length).toBe(320);
    expect(spills.result.stats().engine).toBe('warehouse');
    expect(spills.result.stats().engineReason).toMatch(/^auto: about \d+ rows .*, over warehouse's threshold of 100; about [\d,]+ bytes held in memory, over half the budget of 100 bytes$/);
  });

  it("EXPLAIN ANALYZE shows the engine and the backend's statement with its rows", async () => {
    const out = await engine.explain(`/*+ engine(warehouse) */ ${JOIN}`, { analyze: true });
    expect(out.engine).toEqual({ engine: 'warehouse', reason: 'asked for by the hint engine(warehouse)' });
    const lines = out.text.split('\n');
    expect(lines[0]).toBe('Engine: warehouse (asked for by the hint engine(warehouse))');
    expect(lines[1]).toMatch(/^RemoteQuery \[warehouse\] \(actual rows=4 batches=1 time=\d+\.\d{3}ms statements=1\)$/);
  });

  it("hands the backend the statement's authority: the sources binding admitted, and the backend itself", async () => {
    const policy = (denied: string): AccessPolicy => ({ canReadSource: (s) => s !== denied, canReadView: () => true });
    const before = recorded.streams.length;
    await rows(`/*+ engine(warehouse) */ ${JOIN}`, { access: policy('lite') });
    const access = recorded.streams[before].options?.access;
    expect([
      access?.canReadSource('warehouse'),
      access?.canReadSource('pg'),
      access?.canReadSource('my'),
      access?.canReadSource('lite'),
    ]).toEqual([true, true, true, false]);
    // grants are checked before the backend hears of the query
    await expect(rows(`/*+ engine(warehouse) */ ${JOIN}`, { access: policy('my') })).rejects.toMatchObject({
      kind: 'forbidden',
    });
    expect(recorded.streams.length).toBe(before + 1);
  });

  it('keeps cached results apart per engine, and says which engine a cached answer came from', async () => {
    const sql = `/*+ cache(ttl=60) engine(warehouse) */ SELECT c_name FROM pg.customer WHERE c_id = 4`;
    const first = await rows(sql);
    expect([first.rows, first.result.stats().cache, first.result.stats().engine]).toEqual([
      [['dee']],
      'miss',
      'warehouse',
    ]);
    const again = await rows(sql);
    expect([again.rows, again.result.stats().cache, again.result.stats().engine]).toEqual([
      [['dee']],
      'hit',
      'warehouse',
    ]);
    const local = await rows(sql, { engine: 'local' });
    expect([local.rows, local.result.stats().cache, local.result.stats().engine]).toEqual([[['dee']], 'miss', 'local']);
  });
});

describe('the fragment cache and a backend engine', () => {
  it("is bypassed for the backend's statements, which read several sources' tables at once", async () => {
    const backend = recordingBackend('warehouse', warehouseConnector);
    const cached = new Engine({ workers: 1, backend: backendOn(backend.connector) });
    try {
      cached.addSource({ ...(await registered(pgDb, 'pg')), fragmentCache: { ttlSeconds: 60 } });
      const sql = 'SELECT c_name FROM pg.customer WHERE c_id = 1';
      for (let i = 0; i < 2; i++)
        expect(await drain(await cached.query(sql, { engine: 'warehouse' }))).toEqual([['ann']]);
      expect(backend.recorded.streams.length).toBe(2);
      expect(cached.cacheStats().fragments).toMatchObject({ entries: 0 });
      // the same statement run locally is cached as the source's fragment
      for (let i = 0; i < 2; i++) expect(await drain(await cached.query(sql))).toEqual([['ann']]);
      expect(cached.cacheStats().fragments).toMatchObject({ entries: 1, hits: 1 });
    } finally {
      await cached.close();
    }
  });
});

describe('stopping a query on a backend engine', () => {
  let held: Engine;
  let heldRecorded: Recorded;
  beforeAll(async () => {
    const backend = recordingBackend('warehouse', warehouseConnector, { hold: true });
    heldRecorded = backend.recorded;
    held = new Engine({ workers: 1, backend: backendOn(backend.connector) });
    held.addSource(await registered(pgDb, 'pg'));
    held.addSource(await registered(myDb, 'my'));
  });
  afterAll(() => held?.close());

  it("a timeout aborts the backend's statement", async () => {
    const r = await held.query(`/*+ engine(warehouse) */ ${JOIN}`, { timeoutMs: 50 });
    await expect(drain(r)).rejects.toMatchObject({ code: 'query_timeout', kind: 'timeout' });
    const signal = heldRecorded.streams.at(-1)?.options?.signal;
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ code: 'query_timeout' });
  });

  it("a cancel aborts the backend's statement", async () => {
    const r = await held.query(JOIN, { engine: 'warehouse' });
    const reading = drain(r);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const signal = heldRecorded.streams.at(-1)?.options?.signal;
    expect(signal?.aborted).toBe(false);
    r.cancel('enough');
    await expect(reading).rejects.toMatchObject({ kind: 'cancelled', message: 'The query was cancelled: enough' });
    expect(signal?.aborted).toBe(true);
  });
});

describe('a source the backend cannot read when a statement fails', () => {
  let broken: Engine;
  const checked: string[] = [];
  beforeAll(async () => {
    const backend = recordingBackend('warehouse', warehouseConnector);
    broken = new Engine({
      workers: 1,
      backend: {
        ...backendOn(backend.connector),
        // "my" is read through a catalog the warehouse does not have: its database is gone
        tableOf: (source) => (source === 'pg' ? { catalog: pgDb.name } : { catalog: 'gone_catalog', schema: 'my_copy' }),
        checkCatalog: async (catalog) => {
          checked.push(catalog);
          if (catalog === 'gone_catalog') throw new Error('no such catalog');
        },
      },
    });
    broken.addSource(await registered(pgDb, 'pg'));
    broken.addSource(await registered(myDb, 'my'));
  });
  afterAll(() => broken?.close());

  it("names that source and its catalog, keeping the backend's own error as the cause", async () => {
    const err = await drain(await broken.query(JOIN, { engine: 'warehouse' })).then(
      () => undefined,
      (e: unknown) => e as JunctionError,
    );
    expect(err).toMatchObject({
      code: 'backend_source_unavailable',
      kind: 'external',
      details: { source: 'my', catalog: 'gone_catalog', engine: 'warehouse' },
    });
    expect(err?.message).toMatch(/^warehouse cannot read source "my" through its catalog "gone_catalog": .*gone_catalog/);
    expect(err?.cause).toMatchObject({ code: 'source_error', details: { source: 'warehouse-conn' } });
    // the catalogs of the statement, in order, until one fails
    expect(checked).toEqual([pgDb.name, 'gone_catalog']);
    // a statement reading only what the backend can read still runs
    expect(await drain(await broken.query('SELECT c_name FROM pg.customer WHERE c_id = 1', { engine: 'warehouse' }))).toEqual([['ann']]);
  });

  it('leaves errors of the data and stops alone', async () => {
    checked.length = 0;
    const r = await broken.query('SELECT c_id / (c_id - c_id) AS x FROM pg.customer', { engine: 'warehouse' });
    await expect(drain(r)).rejects.toMatchObject({ code: 'division_by_zero' });
    // the division ran on the backend, whose error is the data's: no catalog is suspected
    expect(r.stats().sourceStatements.map((s) => [s.source, s.sql.includes(' / ')])).toEqual([['warehouse', true]]);
    expect(checked).toEqual([]);
  });
});
