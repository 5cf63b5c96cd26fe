import { createHash } from 'node:crypto';
import type { Value } from '@junction/connectors';

/**
 * The same digest as the bench CLI's (packages/query-core/bench/answer.ts): row count and an
 * order-independent checksum (sum of per-row SHA-1 prefixes mod 2^64), plus a bounded multiset of
 * row texts so that answers which differ can show a sample of the rows that differ.
 */
export interface AnswerDigest {
  readonly rows: number;
  readonly checksum: string;
}

export interface AnswerCheck {
  /** over every parameter set checked */
  readonly direct: AnswerDigest | null;
  readonly federated: AnswerDigest | null;
  /** true: same rows; false: they differ (a failure whatever the timings); null: nothing to compare */
  readonly equivalent: boolean | null;
  /** up to a few rows only one side has (as text), when they differ */
  readonly sample?: { readonly onlyDirect: string[]; readonly onlyFederated: string[] };
  readonly error?: string;
  /** the parameter values both sides ran with (of the first check that differed, else the first) */
  readonly params?: readonly (string | number)[];
  /** each parameter set compared: one for a query without parameters, several with */
  readonly checks?: readonly ParamCheck[];
  /** rows both sides returned over every check (0: the check compared nothing, and says so) */
  readonly rowsCompared?: number;
  readonly note?: string;
  /** the federated SQL on the Trino backend against the same direct rows (when a phase runs it there) */
  readonly trino?: EngineCheck;
}

/** One more engine's answers against the direct ones, over the same parameter sets. */
export interface EngineCheck {
  readonly digest: AnswerDigest | null;
  /** true: the direct rows; false: they differ (a failure); null: it could not run (error says why) */
  readonly equivalent: boolean | null;
  /** up to a few rows only one side has, of the first parameter set that differed */
  readonly sample?: { readonly onlyDirect: string[]; readonly onlyEngine: string[] };
  readonly params?: readonly (string | number)[];
  readonly checks?: readonly { readonly params: readonly (string | number)[]; readonly rows: number; readonly equivalent: boolean }[];
  readonly error?: string;
}

export interface ParamCheck {
  readonly params: readonly (string | number)[];
  readonly directRows: number;
  readonly federatedRows: number;
  readonly equivalent: boolean;
}

const KEEP_ROWS = 20_000;
const SAMPLE = 5;

/** One value as text; integers, decimals and dates compare by their text whichever side produced them. */
function valueText(v: Value): string {
  if (v === null || v === undefined) return '∅';
  if (v instanceof Uint8Array) return '0x' + Buffer.from(v).toString('hex');
  return String(v);
}

export function rowText(row: readonly Value[]): string {
  return row.map(valueText).join(' | ');
}

export class Digester {
  #rows = 0;
  #sum = 0n;
  /** row text → count, while small enough to diff */
  #kept: Map<string, number> | null = new Map();

  add(row: readonly Value[]): void {
    this.#rows++;
    const text = rowText(row);
    this.#sum = (this.#sum + createHash('sha1').update(text).digest().readBigUInt64BE(0)) & 0xffff_ffff_ffff_ffffn;
    if (this.#kept) {
      this.#kept.set(text, (this.#kept.get(text) ?? 0) + 1);
      if (this.#rows > KEEP_ROWS) this.#kept = null;
    }
  }

  /** adds another digester's rows (the checksum is a sum: the union's is the sum of both) */
  merge(other: Digester): void {
    this.#rows += other.#rows;
    this.#sum = (this.#sum + other.#sum) & 0xffff_ffff_ffff_ffffn;
    const theirs = other.#kept;
    if (!this.#kept || !theirs || this.#rows > KEEP_ROWS) this.#kept = null;
    else for (const [text, n] of theirs) this.#kept.set(text, (this.#kept.get(text) ?? 0) + n);
  }

  digest(): AnswerDigest {
    return { rows: this.#rows, checksum: this.#sum.toString(16).padStart(16, '0') };
  }

  kept(): ReadonlyMap<string, number> | null {
    return this.#kept;
  }
}

/** Compares two digesters: equal row count and checksum, else a sample of the differing rows. */
export function compareAnswers(direct: Digester, federated: Digester): AnswerCheck {
  const d = direct.digest();
  const f = federated.digest();
  if (d.rows === f.rows && d.checksum === f.checksum) return { direct: d, federated: f, equivalent: true };
  const a = direct.kept();
  const b = federated.kept();
  const sample = { onlyDirect: [] as string[], onlyFederated: [] as string[] };
  if (a && b) {
    for (const [text, n] of a)
      if ((b.get(text) ?? 0) < n && sample.onlyDirect.length < SAMPLE) sample.onlyDirect.push(text);
    for (const [text, n] of b)
      if ((a.get(text) ?? 0) < n && sample.onlyFederated.length < SAMPLE) sample.onlyFederated.push(text);
  }
  return { direct: d, federated: f, equivalent: false, sample };
}
