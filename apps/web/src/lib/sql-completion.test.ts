import { describe, expect, it } from 'vitest';
import { toCatalog, type CatalogSource } from './catalog.js';
import { suggest, tableReferences, tablesNeeded } from './sql-completion.js';

const catalog: CatalogSource[] = [
  {
    name: 'dbA',
    engine: 'postgresql',
    schemas: [
      {
        name: 'public',
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
    ],
  },
  {
    name: 'dbB',
    engine: 'postgresql',
    schemas: [
      {
        name: 'public',
        tables: [
          {
            name: 'customer',
            kind: 'table',
            columns: [
              { name: 'c_custkey', type: 'int32' },
              { name: 'c_name', type: 'varchar' },
            ],
          },
        ],
      },
    ],
  },
];

const labels = (s: { label: string }[]) => s.map((x) => x.label);

describe('suggest', () => {
  it('offers the tables of a source after "source."', () => {
    expect(labels(suggest(catalog, 'SELECT * FROM dbA.', 'SELECT * FROM dbA.'))).toEqual(['orders', 'lineitem']);
    expect(suggest(catalog, 'SELECT * FROM dbb.cu', '')[0]).toEqual({
      label: 'customer',
      kind: 'table',
      detail: 'table · dbB.public',
    });
  });

  it('offers tables after "source.schema." and columns after "source.table."', () => {
    expect(labels(suggest(catalog, 'FROM dbA.public.', ''))).toEqual(['orders', 'lineitem']);
    expect(labels(suggest(catalog, 'SELECT dbB.customer.', ''))).toEqual(['c_custkey', 'c_name']);
  });

  it('resolves an alias declared after the cursor', () => {
    const all = 'SELECT c. FROM dbA.orders o JOIN dbB.customer AS c ON c_custkey = o_custkey';
    expect(labels(suggest(catalog, 'SELECT c.', all))).toEqual(['c_custkey', 'c_name']);
    expect(labels(suggest(catalog, 'SELECT o.', all))).toEqual(['o_orderkey', 'o_custkey']);
  });

  it('offers sources, columns of the referenced tables and keywords elsewhere', () => {
    const all = 'SELECT  FROM dbB.customer WHERE x';
    const s = suggest(catalog, 'SELECT ', all);
    expect(labels(s.filter((x) => x.kind !== 'keyword'))).toEqual(['dbA', 'dbB', 'c_custkey', 'c_name']);
    expect(s.find((x) => x.label === 'c_name')?.detail).toBe('varchar · dbB.customer');
    expect(s.some((x) => x.kind === 'keyword' && x.label === 'GROUP BY')).toBe(true);
  });

  it('offers nothing after an unknown qualifier', () => {
    expect(suggest(catalog, 'SELECT zz.', 'SELECT zz.')).toEqual([]);
  });
});

describe('tableReferences', () => {
  it('does not take a keyword for an alias', () => {
    const refs = tableReferences(catalog, 'SELECT * FROM dbA.orders WHERE o_custkey = 1');
    expect([...refs.keys()]).toEqual(['orders']);
  });
});

describe('tablesNeeded', () => {
  const lazy: CatalogSource[] = [
    {
      name: 'dbA',
      schemas: [
        {
          name: 'public',
          tables: [
            { name: 'orders', kind: 'table' },
            { name: 'lineitem', kind: 'table' },
          ],
        },
      ],
    },
    {
      name: 'dbB',
      schemas: [
        {
          name: 'public',
          tables: [{ name: 'customer', kind: 'table', columns: [{ name: 'c_custkey', type: 'int32' }] }],
        },
      ],
    },
  ];
  it('lists referenced tables whose columns are not loaded, once each', () => {
    const all = 'SELECT dbA.lineitem. FROM dbA.orders o JOIN dbB.customer c ON 1=1 JOIN dbA.orders x ON 1=1';
    expect(tablesNeeded(lazy, 'SELECT dbA.lineitem.', all)).toEqual([
      { source: 'dbA', schema: 'public', table: 'orders' },
      { source: 'dbA', schema: 'public', table: 'lineitem' },
    ]);
  });
  it('offers no columns for a table whose columns are not loaded yet', () => {
    expect(suggest(lazy, 'SELECT o.', 'SELECT o. FROM dbA.orders o')).toEqual([]);
  });
});

describe('views of virtual schemas', () => {
  // GET /catalog lists a virtual schema as an entry of engine "virtual", its views with their columns
  const withViews = [
    ...toCatalog([
      {
        source: 'sales',
        engine: 'virtual',
        status: 'online',
        defaultSchema: 'sales',
        schemas: [
          {
            name: 'sales',
            tables: [
              {
                schema: 'sales',
                name: 'cust_nation',
                kind: 'view',
                rowCount: null,
                columns: [{ name: 'customer', type: 'varchar(25)', nullable: true }],
              },
            ],
          },
        ],
      },
    ]),
    ...catalog,
  ];

  it('offers the virtual schema, its views after the dot and their columns', () => {
    expect(suggest(withViews, 'SELECT * FROM sal', 'SELECT * FROM sal')[0]).toEqual({
      label: 'sales',
      kind: 'source',
      detail: 'virtual schema',
    });
    // a virtual schema has one schema of its own name: "sales.sales" would say it twice
    expect(suggest(withViews, 'SELECT * FROM sales.', 'SELECT * FROM sales.')).toEqual([
      { label: 'cust_nation', kind: 'table', detail: 'view in sales' },
    ]);
    const sql = 'SELECT v. FROM sales.cust_nation v';
    expect(suggest(withViews, 'SELECT v.', sql)).toEqual([
      { label: 'customer', kind: 'column', detail: 'varchar(25) · sales.cust_nation' },
    ]);
    // the columns came with the catalog: nothing to fetch
    expect(tablesNeeded(withViews, 'SELECT v.', sql)).toEqual([]);
  });
});
