import { describe, expect, it } from 'vitest';
import { nativeType, renderMarkerInsert, renderMarkerSelect, renderMetaCreate, renderTableDdl, engineStatisticsSql } from './ddl.js';
import { TABLES, TABLE_NAMES } from './schema.js';

// The rendered text runs against real PostgreSQL and MariaDB in load.test.ts and against
// SQLite in demo.test.ts; SQL Server's is checked as text only (no server here).
describe('renderTableDdl', () => {
  it('PostgreSQL: reference types, primary key and indexes after the load', () => {
    expect(renderTableDdl('postgresql', TABLES.orders)).toEqual({
      drop: ['drop table if exists "orders"'],
      create: [
        'create table "orders" ("o_orderkey" integer not null, "o_custkey" integer not null, "o_orderstatus" char(1) not null, ' +
          '"o_totalprice" decimal(15,2) not null, "o_orderdate" date not null, "o_orderpriority" char(15) not null, ' +
          '"o_clerk" char(15) not null, "o_shippriority" integer not null, "o_comment" varchar(79) not null)',
      ],
      afterLoad: [
        'alter table "orders" add constraint "orders_pkey" primary key ("o_orderkey")',
        'create index "orders_o_custkey_idx" on "orders" ("o_custkey")',
      ],
      analyze: ['analyze "orders"'],
    });
  });

  it('MySQL: clustered primary key in CREATE TABLE, indexes after the load', () => {
    expect(renderTableDdl('mysql', TABLES.partsupp)).toEqual({
      drop: ['drop table if exists `partsupp`'],
      create: [
        'create table `partsupp` (`ps_partkey` integer not null, `ps_suppkey` integer not null, `ps_availqty` integer not null, ' +
          '`ps_supplycost` decimal(15,2) not null, `ps_comment` varchar(199) not null, ' +
          'constraint `partsupp_pkey` primary key (`ps_partkey`, `ps_suppkey`))',
      ],
      afterLoad: [
        'alter table `partsupp` add index `partsupp_ps_partkey_idx`(`ps_partkey`)',
        'alter table `partsupp` add index `partsupp_ps_suppkey_idx`(`ps_suppkey`)',
      ],
      analyze: ['analyze table `partsupp`'],
    });
  });

  it('SQL Server: varchar (not nvarchar), bracket quoting, UPDATE STATISTICS', () => {
    expect(renderTableDdl('sqlserver', TABLES.nation)).toEqual({
      drop: ["if object_id('[nation]', 'U') is not null DROP TABLE [nation]"],
      create: [
        'CREATE TABLE [nation] ([n_nationkey] integer not null, [n_name] char(25) not null, [n_regionkey] integer not null, ' +
          '[n_comment] varchar(152) null, CONSTRAINT [nation_pkey] PRIMARY KEY ([n_nationkey]))',
      ],
      afterLoad: ['CREATE INDEX [nation_n_regionkey_idx] ON [nation] ([n_regionkey])'],
      analyze: ['update statistics [nation]'],
    });
  });

  it('SQLite: decimal(15,2) stays decimal (Knex would say float), key in CREATE TABLE', () => {
    expect(renderTableDdl('sqlite', TABLES.lineitem).create).toEqual([
      'create table `lineitem` (`l_orderkey` integer not null, `l_partkey` integer not null, `l_suppkey` integer not null, ' +
        '`l_linenumber` integer not null, `l_quantity` decimal(15,2) not null, `l_extendedprice` decimal(15,2) not null, ' +
        '`l_discount` decimal(15,2) not null, `l_tax` decimal(15,2) not null, `l_returnflag` char(1) not null, ' +
        '`l_linestatus` char(1) not null, `l_shipdate` date not null, `l_commitdate` date not null, ' +
        '`l_receiptdate` date not null, `l_shipinstruct` char(25) not null, `l_shipmode` char(10) not null, ' +
        '`l_comment` varchar(44) not null, constraint `lineitem_pkey` primary key (`l_orderkey`, `l_linenumber`))',
    ]);
    expect(renderTableDdl('sqlite', TABLES.lineitem).afterLoad).toEqual([
      'create index `lineitem_l_orderkey_idx` on `lineitem` (`l_orderkey`)',
      'create index `lineitem_l_partkey_idx` on `lineitem` (`l_partkey`)',
      'create index `lineitem_l_suppkey_idx` on `lineitem` (`l_suppkey`)',
    ]);
  });

  it('creates exactly the layout.json indexes', () => {
    const indexed = TABLE_NAMES.flatMap((t) => TABLES[t].indexes.flatMap((i) => i.columns));
    expect(indexed.sort()).toEqual(
      [
        'o_custkey',
        'l_orderkey',
        'l_partkey',
        'l_suppkey',
        'ps_partkey',
        'ps_suppkey',
        'c_nationkey',
        's_nationkey',
        'n_regionkey',
      ].sort(),
    );
  });

  it('spells every column type as dbgen does', () => {
    const types = new Set(
      TABLE_NAMES.flatMap((t) => TABLES[t].columns.map((c) => nativeType(c.type).replace(/\(\d+\)/, '(n)'))),
    );
    expect([...types].sort()).toEqual(['char(n)', 'date', 'decimal(15,2)', 'integer', 'varchar(n)']);
  });
});

describe('load marker', () => {
  it('renders the marker table and its row per engine', () => {
    expect(renderMetaCreate('postgresql')).toEqual([
      'create table "_junction_tpch_load" ("target" varchar(64) not null, "sf" varchar(16) not null, "seed" integer not null, ' +
        '"tables" varchar(255) not null, "generator" varchar(16) not null, "loaded_at" varchar(32) not null, constraint "_junction_tpch_load_pkey" primary key ("target"))',
    ]);
    expect(
      renderMarkerInsert(
        'mysql',
        { target: 'dbC', sf: '0.1', seed: 7, tables: 'part,partsupp,supplier', generator: '1' },
        '2026-01-01T00:00:00.000Z',
      ),
    ).toBe(
      "insert into `_junction_tpch_load` (`generator`, `loaded_at`, `seed`, `sf`, `tables`, `target`) values ('1', '2026-01-01T00:00:00.000Z', 7, '0.1', 'part,partsupp,supplier', 'dbC')",
    );
    expect(renderMarkerSelect('sqlserver')).toBe(
      'select [target], [sf], [seed], [tables], [generator] from [_junction_tpch_load]',
    );
  });
});

describe('engine statistics', () => {
  it("asks MariaDB for its engine-independent column statistics, and no other engine", () => {
    expect(engineStatisticsSql('mysql', 'part')).toBe('analyze table `part` persistent for all');
    for (const e of ['postgresql', 'sqlserver', 'sqlite'] as const) expect(engineStatisticsSql(e, 'part')).toBeUndefined();
  });
});
