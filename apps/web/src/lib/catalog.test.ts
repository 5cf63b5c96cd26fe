import { describe, expect, it } from 'vitest';
import { filterCatalog, toCatalog, withColumns, tableKey, type CatalogSource } from './catalog.js';

const flat = {
  sources: [
    {
      name: 'dbB',
      engine: 'postgresql',
      tables: [
        {
          schema: 'public',
          name: 'customer',
          kind: 'table',
          columns: [{ name: 'c_custkey', type: 'int32', nativeType: 'integer', nullable: false }],
        },
      ],
    },
    {
      name: 'dbA',
      engine: 'postgresql',
      catalog: {
        defaultSchema: 'public',
        tables: [
          {
            name: 'orders',
            kind: 'table',
            columns: [
              { name: 'o_orderkey', type: 'int32' },
              { name: 'o_custkey', type: 'int32' },
            ],
          },
          { name: 'lineitem', kind: 'table', columns: [{ name: 'l_orderkey', type: 'int32' }] },
        ],
      },
    },
  ],
};

describe('toCatalog', () => {
  it('groups flat table lists by schema and sorts sources by name', () => {
    const c = toCatalog(flat);
    expect(c.map((s) => s.name)).toEqual(['dbA', 'dbB']);
    expect(c[0].schemas.map((s) => [s.name, s.tables.map((t) => t.name)])).toEqual([
      ['public', ['orders', 'lineitem']],
    ]);
    expect(c[1].schemas[0].tables[0].columns?.[0]).toEqual({
      name: 'c_custkey',
      type: 'int32',
      nativeType: 'integer',
      nullable: false,
    });
  });

  it('accepts nested schemas and a bare array', () => {
    const c = toCatalog([
      { name: 'dbD', schemas: [{ name: 'tpch', tables: [{ name: 'nation', kind: 'view', columns: [] }] }] },
    ]);
    expect(c).toEqual([
      { name: 'dbD', schemas: [{ name: 'tpch', tables: [{ name: 'nation', kind: 'view', columns: [] }] }] },
    ]);
  });
});

describe('filterCatalog', () => {
  const c: CatalogSource[] = toCatalog(flat);

  it('keeps everything for an empty query', () => {
    expect(filterCatalog(c, '  ')).toEqual(c);
  });

  it('keeps a matching table with all its columns and drops the rest', () => {
    const f = filterCatalog(c, 'ORDERS');
    expect(f.map((s) => s.name)).toEqual(['dbA']);
    expect(f[0].schemas[0].tables.map((t) => [t.name, t.columns?.length])).toEqual([['orders', 2]]);
  });

  it('keeps only matching columns under their table when only a column matches', () => {
    const f = filterCatalog(c, 'custkey');
    expect(f.map((s) => [s.name, s.schemas[0].tables.map((t) => [t.name, t.columns?.map((x) => x.name)])])).toEqual([
      ['dbA', [['orders', ['o_custkey']]]],
      ['dbB', [['customer', ['c_custkey']]]],
    ]);
  });

  it('keeps a whole source when its name matches and nothing when no name does', () => {
    expect(filterCatalog(c, 'dbb')[0]).toBe(c[1]);
    expect(filterCatalog(c, 'zzz')).toEqual([]);
  });
});

describe('the API tree (GET /catalog) and column hits', () => {
  const tree = [
    {
      source: 'dbC',
      engine: 'mysql',
      status: 'online',
      defaultSchema: 'tpch',
      schemas: [
        {
          name: 'tpch',
          tables: [
            { schema: 'tpch', name: 'part', kind: 'table', rowCount: 200 },
            { schema: 'tpch', name: 'supplier', kind: 'table', rowCount: null },
          ],
        },
      ],
    },
  ];

  it('reads source, default schema and tables without columns', () => {
    expect(toCatalog(tree)).toEqual([
      {
        name: 'dbC',
        engine: 'mysql',
        status: 'online',
        defaultSchema: 'tpch',
        schemas: [
          {
            name: 'tpch',
            tables: [
              { name: 'part', kind: 'table', rowCount: 200 },
              { name: 'supplier', kind: 'table' },
            ],
          },
        ],
      },
    ]);
  });

  it('shows a table under a column search through the server hits while its columns are not loaded', () => {
    const c = toCatalog(tree);
    const f = filterCatalog(c, 'p_na', [
      { source: 'dbC', schema: 'tpch', table: 'part', column: 'p_name', type: 'varchar(55)' },
      { source: 'dbC', schema: 'tpch', table: 'part', column: 'p_partkey', type: 'int32' },
    ]);
    expect(f[0].schemas[0].tables).toEqual([
      { name: 'part', kind: 'table', rowCount: 200, columns: [{ name: 'p_name', type: 'varchar(55)' }] },
    ]);
  });

  it('fills loaded columns in', () => {
    const c = withColumns(
      toCatalog(tree),
      new Map([[tableKey('dbC', 'tpch', 'supplier'), [{ name: 's_suppkey', type: 'int32' }]]]),
    );
    expect(c[0].schemas[0].tables.map((t) => t.columns)).toEqual([undefined, [{ name: 's_suppkey', type: 'int32' }]]);
  });
});
