import type { EngineName } from '@junction/connectors';
import type { TableName } from './schema.js';
import { jdvWorkload } from './workload.js';

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
export const LAYOUTS: Readonly<Record<LayoutName, readonly LayoutTarget[]>> = (() => {
  const w = jdvWorkload();
  return { jdv: w.sources, single: [w.direct] };
})();

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
