import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type Row } from '@junction/connectors';
import { createMysqlDatabase, createPgDatabase, registered, type TestDatabase } from '../test/support/databases.js';
import { Engine } from './engine.js';
import { collect } from './exec/operator.js';

let pgDb: TestDatabase;
let myDb: TestDatabase;
let engine: Engine;

async function rows(sql: string): Promise<Row[]> {
  return collect((await engine.query(sql)).rows);
}

beforeAll(async () => {
  pgDb = await createPgDatabase('keys');
  myDb = await createMysqlDatabase('keys');
  await pgDb.exec(`CREATE TABLE t (id int PRIMARY KEY, k int NOT NULL, active boolean NOT NULL, nid int NOT NULL, v int NOT NULL)`);
  await pgDb.exec(`CREATE UNIQUE INDEX t_k_active ON t (k) WHERE active`);
  await pgDb.exec(`INSERT INTO t VALUES (1, 10, true, 1, 5), (2, 10, false, 1, 7), (3, 10, false, 1, 9)`);
  await pgDb.exec(`CREATE TABLE parent (k int PRIMARY KEY, nid int NOT NULL, v int NOT NULL)`);
  await pgDb.exec(`CREATE TABLE child () INHERITS (parent)`);
  await pgDb.exec(`INSERT INTO parent VALUES (10, 1, 5)`);
  await pgDb.exec(`INSERT INTO child VALUES (10, 1, 7)`);
  await myDb.exec(`CREATE TABLE nation (n_id int PRIMARY KEY, n_name varchar(20) NOT NULL)`);
  await myDb.exec(`INSERT INTO nation VALUES (1, 'FRANCE'), (2, 'PERU')`);
  engine = new Engine({ workers: 1 });
  engine.addSource(await registered(pgDb, 'pg'));
  engine.addSource(await registered(myDb, 'my'));
  const lite = createConnector({ name: 'lite', engine: 'sqlite', file: ':memory:' });
  await lite.execute(`CREATE TABLE s (k TEXT PRIMARY KEY, nid INTEGER NOT NULL, v INTEGER NOT NULL)`);
  await lite.execute(`INSERT INTO s VALUES (NULL, 1, 5), (NULL, 1, 7)`);
  engine.addSource({ name: 'lite', connector: lite, catalog: await lite.introspect(), semantics: await lite.probe() });
});

afterAll(async () => {
  await engine?.close();
  await pgDb?.drop();
  await myDb?.drop();
});

/**
 * A source's key is trusted only where it holds for every row Junction reads: a grouping over
 * rows keyed so is dropped (drop-aggregate-over-unique-rows) or grouped by the key alone
 * (group-by-unique-key), so a key that does not hold would split a group in two.
 */
describe('keys a source does not enforce over every row it returns', () => {
  it('a PostgreSQL partial unique index: the rows outside its WHERE are grouped', async () => {
    const sql = 'SELECT t.k, sum(t.v) AS s, max(t.v) AS m FROM pg.t JOIN my.nation n ON n.n_id = t.nid GROUP BY t.k';
    expect((await engine.explain(sql)).text).toMatch(/\n {2}HashAggregate group by k; sum := sum\(partial_sum\), max := max\(partial_max\)\n/);
    expect(await rows(sql)).toEqual([[10, 21n, 9]]);
  });

  it("a PostgreSQL table's primary key, whose inheritance children's rows a scan reads too", async () => {
    expect(await rows('SELECT p.k, sum(p.v) AS s FROM pg.parent p JOIN my.nation n ON n.n_id = p.nid GROUP BY p.k')).toEqual([[10, 12n]]);
  });

  it('a SQLite primary key on a TEXT column, which holds NULL in two rows', async () => {
    expect(await rows('SELECT s.k, sum(s.v) AS s FROM lite.s s JOIN my.nation n ON n.n_id = s.nid GROUP BY s.k')).toEqual([[null, '12']]);
  });
});
