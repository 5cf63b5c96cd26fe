import type { ResolvedTable, ResolveTable } from './from-sql.js';

/** A few demo tables (TPC-H, as the demo federation spreads them over four sources). */
export const DEMO_TABLES: readonly ResolvedTable[] = [
  {
    path: ['dbA', 'orders'],
    kind: 'table',
    engine: 'postgresql',
    columns: [
      { name: 'o_orderkey', type: 'int32' },
      { name: 'o_custkey', type: 'int32' },
      { name: 'o_orderstatus', type: 'char(1)' },
      { name: 'o_totalprice', type: 'decimal(15,2)' },
      { name: 'o_orderdate', type: 'date' },
    ],
    primaryKey: ['o_orderkey'],
  },
  {
    path: ['dbB', 'customer'],
    kind: 'table',
    engine: 'postgresql',
    columns: [
      { name: 'c_custkey', type: 'int32' },
      { name: 'c_name', type: 'varchar(25)' },
      { name: 'c_nationkey', type: 'int32' },
      { name: 'c_mktsegment', type: 'char(10)' },
    ],
    primaryKey: ['c_custkey'],
  },
  {
    path: ['dbD', 'nation'],
    kind: 'table',
    engine: 'sqlite',
    columns: [
      { name: 'n_nationkey', type: 'int64' },
      { name: 'n_name', type: 'text' },
      { name: 'n_regionkey', type: 'int64' },
    ],
    primaryKey: ['n_nationkey'],
  },
  {
    path: ['sales', 'cust_nation'],
    kind: 'view',
    engine: 'virtual',
    columns: [
      { name: 'customer', type: 'varchar(25)' },
      { name: 'nation', type: 'text' },
    ],
  },
];

/** Resolves `source.table` case-insensitively, as the engine does unquoted names. */
export const resolveDemo: ResolveTable = (path) =>
  DEMO_TABLES.find(
    (t) => t.path.length === path.length && t.path.every((p, i) => p.toLowerCase() === path[i]!.toLowerCase()),
  );

export function demoTable(name: string): ResolvedTable {
  const t = DEMO_TABLES.find((x) => x.path[x.path.length - 1] === name);
  if (!t) throw new Error(`no demo table ${name}`);
  return t;
}
