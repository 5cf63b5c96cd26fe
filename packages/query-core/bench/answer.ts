import { createHash } from 'node:crypto';
import type { Value } from '@junction/connectors';

/** What the benchmark compares between two answers: row count and an order-independent checksum. */
export interface AnswerDigest {
  readonly rows: number;
  readonly checksum: string;
}

/**
 * One row as text, whatever produced it: Junction's values (bigint, decimal and date text) and
 * the direct driver's (decoded as Junction decodes, see run.ts) give the same text for the same row.
 */
function rowText(row: readonly Value[]): string {
  return row
    .map((v) => (v === null ? '\u0000' : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : String(v)))
    .join('\u0001');
}

/** Accumulates rows in any order: the sum of per-row hashes, modulo 2^64, so duplicates count. */
export class Digester {
  #rows = 0;
  #sum = 0n;

  add(row: readonly Value[]): void {
    this.#rows++;
    this.#sum = (this.#sum + createHash('sha1').update(rowText(row)).digest().readBigUInt64BE(0)) & 0xffff_ffff_ffff_ffffn;
  }

  digest(): AnswerDigest {
    return { rows: this.#rows, checksum: this.#sum.toString(16).padStart(16, '0') };
  }
}

export function digestRows(rows: Iterable<readonly Value[]>): AnswerDigest {
  const d = new Digester();
  for (const r of rows) d.add(r);
  return d.digest();
}
