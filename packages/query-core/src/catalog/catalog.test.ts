import { describe, expect, it } from 'vitest';
import type { JunctionError } from '@junction/connectors';
import type { AccessPolicy } from '../api.js';
import { jdvCatalog, jdvSources } from '../sql/test-fixture.js';
import { Catalog } from './catalog.js';
import type { ResolveOptions } from './catalog.js';
import type { NamePart } from './names.js';
import { suggest } from './names.js';

const u = (...names: string[]): NamePart[] => names.map((name) => ({ name, quoted: false }));
const q = (...names: string[]): NamePart[] => names.map((name) => ({ name, quoted: true }));

function describeResolved(cat: Catalog, parts: NamePart[], options?: ResolveOptions): string {
  const r = cat.resolve(parts, options);
  return r.kind === 'view'
    ? `view ${r.view.schema}.${r.view.name}`
    : `${r.ref.source}.${r.ref.catalog ?? '-'}.${r.ref.schema}.${r.ref.table}`;
}

function failure(f: () => unknown): JunctionError {
  try {
    f();
  } catch (e) {
    return e as JunctionError;
  }
  throw new Error('expected an error');
}

describe('Catalog name resolution', () => {
  const cat = jdvCatalog([
    { schema: 'sales', name: 'big_customers', sql: 'SELECT * FROM dbB.customer' },
    { schema: 'Sales2', name: 'Mixed', sql: 'SELECT 1' },
  ]);

  it('resolves source.table in the source default schema, case-insensitively for unquoted names', () => {
    expect(describeResolved(cat, u('dbA', 'orders'))).toBe('dbA.-.public.orders');
    expect(describeResolved(cat, u('DBA', 'ORDERS'))).toBe('dbA.-.public.orders');
    expect(describeResolved(cat, u('dbc', 'part'))).toBe('dbC.tpch.dbo.part');
  });

  it('resolves 3- and 4-part names (SQL Server catalog.schema.table)', () => {
    expect(describeResolved(cat, u('dbB', 'public', 'customer'))).toBe('dbB.-.public.customer');
    expect(describeResolved(cat, u('dbC', 'tpch', 'dbo', 'part'))).toBe('dbC.tpch.dbo.part');
    expect(describeResolved(cat, u('dbC', 'dbo', 'partsupp'))).toBe('dbC.tpch.dbo.partsupp');
    expect(failure(() => cat.resolve(u('dbC', 'other', 'dbo', 'part'))).code).toBe('unknown_table');
  });

  it('matches quoted names exactly', () => {
    expect(describeResolved(cat, q('dbA', 'orders'))).toBe('dbA.-.public.orders');
    expect(failure(() => cat.resolve(q('DBA', 'orders'))).code).toBe('unknown_table');
    expect(describeResolved(cat, [...q('Sales2'), ...q('Mixed')])).toBe('view Sales2.Mixed');
    expect(failure(() => cat.resolve([...q('sales2'), ...q('Mixed')])).code).toBe('unknown_table');
    expect(describeResolved(cat, u('sales2', 'mixed'))).toBe('view Sales2.Mixed');
  });

  it('resolves view_schema.view', () => {
    expect(describeResolved(cat, u('sales', 'big_customers'))).toBe('view sales.big_customers');
  });

  it('resolves unqualified names through the search path, or uniquely without one', () => {
    expect(describeResolved(cat, u('lineitem'))).toBe('dbA.-.public.lineitem');
    expect(describeResolved(cat, u('customer'), { searchPath: ['dbD'] })).toBe('dbD.-.jdv_d.customer');
    expect(describeResolved(cat, u('customer'), { searchPath: ['sales', 'dbB.public'] })).toBe('dbB.-.public.customer');
    expect(describeResolved(cat, u('big_customers'), { searchPath: ['sales'] })).toBe('view sales.big_customers');
    const amb = failure(() => cat.resolve(u('customer'), { position: { offset: 14, line: 1, column: 15, length: 8 } }));
    expect([amb.kind, amb.code, amb.message]).toEqual([
      'user',
      'ambiguous_table',
      'table name "customer" is ambiguous: it matches table dbB.public.customer, table dbD.jdv_d.customer; qualify it',
    ]);
    expect(amb.position).toEqual({ offset: 14, line: 1, column: 15, length: 8 });
  });

  it('suggests the closest name for unknown tables', () => {
    const e = failure(() => cat.resolve(u('dbA', 'order'), { position: { offset: 14, line: 1, column: 15 } }));
    expect([e.kind, e.code, e.message]).toEqual([
      'user',
      'unknown_table',
      'relation "dbA.order" does not exist; did you mean "dbA.orders"?',
    ]);
    expect(e.position).toEqual({ offset: 14, line: 1, column: 15 });
    expect(failure(() => cat.resolve(u('lineitme'))).message).toBe(
      'relation "lineitme" does not exist; did you mean "dbA.lineitem"?',
    );
    expect(failure(() => cat.resolve(u('zzz', 'qqq'))).message).toBe('relation "zzz.qqq" does not exist');
    expect(suggest('custmer', ['dbB.customer', 'dbA.orders'])).toBe('dbB.customer');
  });

  it('checks the access policy before anything else happens', () => {
    const access: AccessPolicy = { canReadSource: (s) => s !== 'dbA', canReadView: (schema) => schema !== 'sales' };
    const e = failure(() => cat.resolve(u('dba', 'orders'), { access }));
    expect([e.kind, e.code, e.message]).toEqual([
      'forbidden',
      'access_denied',
      'you may not read source "dbA"; ask an administrator for access',
    ]);
    expect(failure(() => cat.resolve(u('sales', 'big_customers'), { access })).kind).toBe('forbidden');
    expect(describeResolved(cat, u('dbB', 'customer'), { access })).toBe('dbB.-.public.customer');
    // suggestions never reveal what the caller may not read
    expect(failure(() => cat.resolve(u('dbA', 'order'), { access })).message).toBe(
      'relation "dbA.order" does not exist',
    );
  });

  it('refreshes a source snapshot and finds sources case-insensitively', () => {
    const c = new Catalog(jdvSources());
    expect(c.getSource('DBB')?.name).toBe('dbB');
    const snap = c.getSource('dbB')!.catalog;
    c.refreshSource('dbb', { ...snap, tables: [] });
    expect(failure(() => c.resolve(u('dbB', 'customer'))).code).toBe('unknown_table');
    expect(failure(() => c.registerSource({ ...c.getSource('dbA')!, name: 'DBA' })).code).toBe('duplicate_source');
    expect(failure(() => c.defineView({ schema: 'dbA', name: 'v', sql: 'SELECT 1' })).code).toBe('name_conflict');
  });
});
