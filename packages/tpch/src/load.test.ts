import { randomBytes } from 'node:crypto';
import { createConnector, type Connector, type EngineName } from '@junction/connectors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATOR_VERSION, expectedRowCount, generateTable } from './generate.js';
import { loadTpch, type LoadEvent } from './load.js';
import { TABLES, TABLE_NAMES, type TableName } from './schema.js';
import { sourceFromUrl } from './source-url.js';

const SF = 0.001;
const servers: { engine: EngineName; url: string; create: (db: string) => string; drop: (db: string) => string }[] = [
  {
    engine: 'postgresql',
    url: process.env.TEST_PG_URL as string,
    create: (db) => `create database "${db}"`,
    drop: (db) => `drop database if exists "${db}" with (force)`,
  },
  {
    engine: 'mysql',
    url: process.env.TEST_MYSQL_URL as string,
    create: (db) => `create database \`${db}\``,
    drop: (db) => `drop database if exists \`${db}\``,
  },
];

/** Index names per table, from the engine's catalog. */
const indexQuery: Record<string, (table: string) => string> = {
  postgresql: (t) => `select indexname from pg_indexes where schemaname = 'public' and tablename = '${t}' order by 1`,
  mysql: (t) =>
    `select distinct index_name from information_schema.statistics where table_schema = database() and table_name = '${t}' order by 1`,
};

function firstRows(table: TableName, n: number) {
  return (generateTable(table, { sf: SF }).next().value ?? []).slice(0, n);
}

describe.each(servers)('loadTpch into $engine', ({ engine, url, create, drop }) => {
  const db = `jt_tpch_${randomBytes(4).toString('hex')}`;
  let admin: Connector;
  let target: Connector;

  beforeAll(async () => {
    admin = createConnector(sourceFromUrl('admin', url));
    await admin.execute(create(db));
    target = createConnector(sourceFromUrl('direct', url, db));
  });

  afterAll(async () => {
    await target?.close();
    await admin?.execute(drop(db));
    await admin?.close();
  });

  it('creates, loads, indexes and analyzes all eight tables, then skips a second load', async () => {
    const events: LoadEvent[] = [];
    const [result] = await loadTpch([{ name: 'direct', connector: target, tables: TABLE_NAMES }], {
      sf: SF,
      onProgress: (e) => events.push(e),
    });
    const expected = Object.fromEntries(TABLE_NAMES.map((t) => [t, expectedRowCount(t, SF)]));
    expect(result.skipped).toBe(false);
    expect(result.rows).toEqual(expected);
    expect(expected.lineitem).toBeGreaterThan(5000);

    const counts: Record<string, number> = {};
    for (const t of TABLE_NAMES) counts[t] = Number((await target.execute(`select count(*) from ${t}`)).rows[0][0]);
    expect(counts).toEqual(expected);

    // values come back exactly as generated (decimals, dates, blank-padded char(n))
    expect((await target.execute('select * from lineitem order by l_orderkey, l_linenumber limit 3')).rows).toEqual(
      firstRows('lineitem', 3),
    );
    expect((await target.execute('select * from supplier order by s_suppkey limit 2')).rows).toEqual(
      firstRows('supplier', 2),
    );

    for (const t of TABLE_NAMES) {
      const names = (await target.execute(indexQuery[engine](t))).rows.map((r) => String(r[0]));
      const want = [engine === 'mysql' ? 'PRIMARY' : `${t}_pkey`, ...TABLES[t].indexes.map((i) => i.name)].sort();
      expect(names.sort()).toEqual(want);
    }

    const marker = await target.execute('select target, sf, seed, tables from _junction_tpch_load');
    expect(marker.rows).toEqual([
      ['direct', '0.001', 19920101, 'customer,lineitem,nation,orders,part,partsupp,region,supplier'],
    ]);
    // the marker is bookkeeping: the source's catalog lists only the loaded tables
    expect((await target.introspect()).tables.map((t) => t.name).sort()).toEqual([...TABLE_NAMES].sort());
    expect(events.filter((e) => e.kind === 'phase').map((e) => (e.kind === 'phase' ? e.phase : ''))).toEqual([
      'create',
      'index',
      'analyze',
      'done',
    ]);

    const again: LoadEvent[] = [];
    const [second] = await loadTpch([{ name: 'direct', connector: target, tables: TABLE_NAMES }], {
      sf: SF,
      onProgress: (e) => again.push(e),
    });
    expect(second).toEqual({ target: 'direct', skipped: true, rows: {}, seconds: 0 });
    expect(again.map((e) => e.kind)).toEqual(['skip']);
  });

  it('reloads when the scale factor changes, replacing the old rows', async () => {
    const [result] = await loadTpch([{ name: 'direct', connector: target, tables: ['customer', 'nation'] }], {
      sf: 0.002,
    });
    expect(result.rows).toEqual({ customer: 300, nation: 25 });
    expect((await target.execute('select count(*) from customer')).rows[0][0]).toBe(300n);
    const markers = await target.execute('select target, sf from _junction_tpch_load');
    expect(markers.rows).toEqual([['direct', '0.002']]);
  });

  it('reloads over a marker table of an older shape (an earlier generator)', async () => {
    await target.execute('drop table _junction_tpch_load');
    await target.execute(
      'create table _junction_tpch_load (target varchar(64), sf varchar(16), seed integer, tables varchar(255))',
    );
    await target.execute(`insert into _junction_tpch_load values ('direct', '0.002', 19920101, 'customer,nation')`);
    await target.execute('delete from customer where c_custkey > 10');
    const [result] = await loadTpch([{ name: 'direct', connector: target, tables: ['customer', 'nation'] }], {
      sf: 0.002,
    });
    expect(result.skipped).toBe(false);
    expect((await target.execute('select count(*) from customer')).rows[0][0]).toBe(300n);
    expect((await target.execute('select generator from _junction_tpch_load')).rows).toEqual([[GENERATOR_VERSION]]);
  });

  it("adopts an earlier version's marker (junction_tpch_meta): the data stays, the marker leaves the catalog", async () => {
    await target.execute('alter table _junction_tpch_load rename to junction_tpch_meta');
    const [result] = await loadTpch([{ name: 'direct', connector: target, tables: ['customer', 'nation'] }], {
      sf: 0.002,
    });
    expect(result).toEqual({ target: 'direct', skipped: true, rows: {}, seconds: 0 });
    expect((await target.execute('select target, sf from _junction_tpch_load')).rows).toEqual([['direct', '0.002']]);
    // the tables an earlier test loaded, and no marker
    expect((await target.introspect()).tables.map((t) => t.name).sort()).toEqual([...TABLE_NAMES].sort());
  });

  it('a target without tables still gets its marker and is skipped the second time', async () => {
    const [first] = await loadTpch([{ name: 'empty', connector: target, tables: [] }], { sf: SF });
    expect({ skipped: first.skipped, rows: first.rows }).toEqual({ skipped: false, rows: {} });
    const [second] = await loadTpch([{ name: 'empty', connector: target, tables: [] }], { sf: SF });
    expect(second.skipped).toBe(true);
    await target.execute(`delete from _junction_tpch_load where target = 'empty'`);
  });

  it('statistics are fresh after the load', async () => {
    const sql =
      engine === 'postgresql'
        ? `select reltuples::int from pg_class where relname = 'customer'`
        : `select table_rows from information_schema.tables where table_schema = database() and table_name = 'customer'`;
    const [[estimate]] = (await target.execute(sql)).rows;
    // PostgreSQL's ANALYZE counts a small table exactly; InnoDB's estimate is within a page's worth
    if (engine === 'postgresql') expect(Number(estimate)).toBe(300);
    else expect(Math.abs(Number(estimate) - 300)).toBeLessThan(60);
  });
});
