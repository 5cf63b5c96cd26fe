/**
 * A hash table over numeric join keys in flat typed arrays, so it can live in
 * SharedArrayBuffers that every worker reads without a copy. Chained buckets:
 * `heads[h]` is 1 + the first build row of bucket h (0 = empty), `next[i]` is 1 + the
 * next row in the same bucket.
 */
export interface NumericTable {
  readonly keys: Float64Array;
  /** 1 where the build row's key is NULL */
  readonly nulls: Uint8Array;
  readonly heads: Int32Array;
  readonly next: Int32Array;
  readonly mask: number;
}

const f64 = new Float64Array(1);
const i32 = new Int32Array(f64.buffer);

export function hashNumber(k: number): number {
  if ((k | 0) === k) return Math.imul(k, 0x9e3779b1) ^ (k >>> 15);
  // NaNs differ in their bits but equal each other (PostgreSQL's float order)
  if (k !== k) return 0x7ff80000;
  f64[0] = k;
  return Math.imul(i32[0] ^ Math.imul(i32[1], 0x85ebca6b), 0x9e3779b1);
}

/** A row whose key is NULL (`nulls[i]` 1) is stored but never found; NaN keys find each other. */
export function buildNumericTable(keys: Float64Array, nulls: Uint8Array, shared: boolean): NumericTable {
  const n = keys.length;
  let cap = 16;
  while (cap < n * 2) cap *= 2;
  const alloc = (bytes: number): ArrayBuffer | SharedArrayBuffer => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  const heads = new Int32Array(alloc(cap * 4));
  const next = new Int32Array(alloc(n * 4));
  const k2 = new Float64Array(alloc(n * 8));
  k2.set(keys);
  const n2 = new Uint8Array(alloc(n));
  n2.set(nulls);
  const mask = cap - 1;
  for (let i = n - 1; i >= 0; i--) {
    if (nulls[i]) continue;
    const h = hashNumber(keys[i]) & mask;
    next[i] = heads[h];
    heads[h] = i + 1;
  }
  return { keys: k2, nulls: n2, heads, next, mask };
}

/** Every (probe row, build row) pair with equal keys, in probe order then build order; NULL probe keys (`probeNulls[i]` 1) match nothing. */
export function probeNumericTable(table: NumericTable, probe: Float64Array, probeNulls: Uint8Array): { probeIdx: Int32Array; buildIdx: Int32Array } {
  let p = new Int32Array(Math.max(16, probe.length));
  let b = new Int32Array(Math.max(16, probe.length));
  let n = 0;
  const { keys, heads, next, mask } = table;
  for (let i = 0; i < probe.length; i++) {
    if (probeNulls[i]) continue;
    const k = probe[i];
    const nan = k !== k;
    for (let j = heads[hashNumber(k) & mask]; j !== 0; j = next[j - 1]) {
      const other = keys[j - 1];
      if (other !== k && !(nan && other !== other)) continue;
      if (n === p.length) {
        const p2 = new Int32Array(n * 2);
        p2.set(p);
        p = p2;
        const b2 = new Int32Array(n * 2);
        b2.set(b);
        b = b2;
      }
      p[n] = i;
      b[n] = j - 1;
      n++;
    }
  }
  return { probeIdx: p.slice(0, n), buildIdx: b.slice(0, n) };
}
