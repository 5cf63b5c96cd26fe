import type { Value } from './types.js';

/**
 * Rough heap size of a row: enough to keep a memory budget honest, cheap enough to call per
 * row. Query-core's budget counts rows with it, and connectors end their batches by it
 * (StreamOptions.batchBytes), so a batch and a reservation agree on what a row weighs.
 */
export function rowBytes(row: readonly Value[]): number {
  let n = 16 + row.length * 8;
  for (const v of row) {
    if (typeof v === 'string') n += 16 + v.length * 2;
    else if (typeof v === 'bigint') n += 16;
    else if (v instanceof Uint8Array) n += 64 + v.byteLength;
  }
  return n;
}

/**
 * rowBytes of a row a driver hands over as undecoded text cells (mysql2's raw Buffers), counted
 * as the strings they become: a batch is cut before decoding, by what its rows will weigh after.
 */
export function textRowBytes(row: readonly (Uint8Array | string | null)[]): number {
  let n = 16 + row.length * 8;
  for (const v of row) {
    if (typeof v === 'string') n += 16 + v.length * 2;
    else if (v !== null) n += 16 + v.byteLength * 2;
  }
  return n;
}
