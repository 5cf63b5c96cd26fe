import { probeNumericTable, type NumericTable } from './numeric-table.js';

export interface ProbeTask {
  readonly table: NumericTable;
  readonly probe: Float64Array;
  readonly probeNulls: Uint8Array;
}

/**
 * Worker task: probes one chunk of keys against the shared build table. Only typed
 * arrays cross the thread boundary: the table is shared memory, the probe keys and the
 * matched index pairs are transferred.
 */
export function probe(task: ProbeTask): { probeIdx: Int32Array; buildIdx: Int32Array } {
  return probeNumericTable(task.table, task.probe, task.probeNulls);
}
