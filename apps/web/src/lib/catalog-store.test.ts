import { describe, expect, it } from 'vitest';
import type { CatalogColumn, CatalogSource } from './catalog.js';
import { CatalogStore } from './catalog-store.js';

const sources: CatalogSource[] = [
  {
    name: 'dbA',
    defaultSchema: 'public',
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
];

function store() {
  const calls: string[] = [];
  const cols: Record<string, CatalogColumn[]> = {
    orders: [{ name: 'o_orderkey', type: 'int32' }],
    lineitem: [{ name: 'l_orderkey', type: 'int32' }],
  };
  const s = new CatalogStore({
    catalog: async () => sources,
    columns: async (source, schema, table) => {
      calls.push(`${source}.${schema}.${table}`);
      return cols[table];
    },
  });
  return { s, calls };
}

describe('CatalogStore', () => {
  it('loads tables first and each table’s columns once, even when asked twice at the same time', async () => {
    const { s, calls } = store();
    await s.load();
    expect(s.getSnapshot().sources[0].schemas[0].tables[0].columns).toBeUndefined();
    const t = { source: 'dbA', schema: 'public', table: 'orders' };
    await Promise.all([s.ensureColumns([t]), s.ensureColumns([t])]);
    await s.ensureColumns([t]);
    expect(calls).toEqual(['dbA.public.orders']);
    expect(s.getSnapshot().sources[0].schemas[0].tables.map((x) => [x.name, x.columns?.map((c) => c.name)])).toEqual([
      ['orders', ['o_orderkey']],
      ['lineitem', undefined],
    ]);
    expect(s.hasColumns('dbA', 'public', 'orders')).toBe(true);
  });

  it('notifies subscribers and keeps the last snapshot on a failed reload', async () => {
    const { s } = store();
    let n = 0;
    s.subscribe(() => n++);
    await s.load();
    expect(n).toBe(2);
    const failing = new CatalogStore({
      catalog: async () => {
        throw new Error('down');
      },
      columns: async () => [],
    });
    await failing.load();
    expect(failing.getSnapshot().error?.message).toBe('down');
    expect(failing.getSnapshot().loading).toBe(false);
  });
});
