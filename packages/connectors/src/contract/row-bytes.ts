import type { Value } from './types.js';

/**
 * What V8 (64-bit, without pointer compression, as Node builds it) holds for a row, measured
 * with heap snapshots and heapUsed after GC (row-bytes.test.ts checks it): the array object
 * (32 bytes) and its elements store (16 bytes and 8 a slot, as `new Array(n)` sizes it; the
 * connectors and operators build rows so); a number outside the small-integer range is a
 * 16-byte heap number; a string has a 16-byte header and one byte a character, or two when
 * it holds any character past U+00FF, which is counted throughout rather than scanned for
 * (an upper bound on ASCII text); a bigint 16 bytes and 8 a 64-bit digit; a byte array about
 * 200 bytes of objects beside its bytes. Booleans and null are in the slot.
 */
export const ROW = 48;
export const SLOT = 8;
export const STRING = 16;
const HEAP_NUMBER = 16;
const BYTE_ARRAY = 200;

/**
 * Heap bytes a row holds, cheap enough to call per row. Query-core's budget counts rows with
 * it, and connectors end their batches by it (StreamOptions.batchBytes), so a batch and a
 * reservation agree on what a row weighs.
 */
export function rowBytes(row: readonly Value[]): number {
  let n = ROW + row.length * SLOT;
  for (const v of row) {
    if (typeof v === 'string') n += STRING + v.length * 2;
    else if (typeof v === 'number') {
      if ((v | 0) !== v) n += HEAP_NUMBER;
    } else if (typeof v === 'bigint') n += bigintBytes(v);
    else if (v instanceof Uint8Array) n += BYTE_ARRAY + v.byteLength;
  }
  return n;
}

const WORD = 2n ** 64n;

function bigintBytes(v: bigint): number {
  if (v < WORD && v > -WORD) return 24;
  return 16 + 8 * Math.ceil((v < 0n ? -v : v).toString(16).length / 16);
}

/**
 * rowBytes of a row a driver hands over as undecoded text cells (mysql2's raw Buffers,
 * PostgreSQL's text), counted as the strings they become: a batch is cut before decoding,
 * by what its rows will weigh after. A cell that decodes to a number weighs less as one.
 */
export function textRowBytes(row: readonly (Uint8Array | string | null)[]): number {
  let n = ROW + row.length * SLOT;
  for (const v of row) {
    if (typeof v === 'string') n += STRING + v.length * 2;
    else if (v !== null) n += STRING + v.byteLength * 2;
  }
  return n;
}
