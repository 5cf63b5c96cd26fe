import type { EngineName } from '@junction/connectors';
import { TABLE_NAMES, type TableName } from './schema.js';

export type LayoutName = 'jdv' | 'single';

export interface LayoutTarget {
  /** the source name queries use: dbA…dbD, or direct */
  readonly name: string;
  /** the engine of the study's setup (the CLI may place a target elsewhere) */
  readonly engine: EngineName;
  readonly tables: readonly TableName[];
}

/**
 * "jdv" is workload/jdv/layout.json: the published JBoss Data Virtualization study's
 * federation, with MariaDB standing in for its SQL Server where none is available.
 * "single" is the same data in one database, the reference for correctness and speed.
 */
export const LAYOUTS: Readonly<Record<LayoutName, readonly LayoutTarget[]>> = {
  jdv: [
    { name: 'dbA', engine: 'postgresql', tables: ['orders', 'lineitem'] },
    { name: 'dbB', engine: 'postgresql', tables: ['customer'] },
    { name: 'dbC', engine: 'mysql', tables: ['part', 'supplier', 'partsupp'] },
    { name: 'dbD', engine: 'mysql', tables: ['nation', 'region', 'customer'] },
  ],
  single: [{ name: 'direct', engine: 'postgresql', tables: TABLE_NAMES }],
};

/** Databases the CLI creates for each target. */
export const TARGET_DATABASES: Readonly<Record<string, string>> = {
  dbA: 'jdv_a',
  dbB: 'jdv_b',
  dbC: 'jdv_c',
  dbD: 'jdv_d',
  direct: 'tpch_direct',
};

export function isLayoutName(name: string): name is LayoutName {
  return name === 'jdv' || name === 'single';
}
