/**
 * A small, fast PRNG seeded per row: every row's values depend only on (seed, table, row
 * ordinal), so any slice of a table can be generated on its own and the same seed always
 * gives the same rows, however the output is batched or partitioned.
 */
export class Rng {
  private state: number;

  constructor(seed: number, salt: number, ordinal: number) {
    this.state = rowSeed(seed, salt, ordinal);
  }

  /**
   * splitmix32 with a full-avalanche finalizer: uniform uint32. (mulberry32 was tried first;
   * its first outputs for neighbouring row seeds were visibly correlated.)
   */
  next(): number {
    let z = (this.state = (this.state + 0x9e3779b9) | 0);
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return (z ^ (z >>> 15)) >>> 0;
  }

  /** uniform integer in [lo, hi] */
  int(lo: number, hi: number): number {
    return lo + Math.floor((this.next() / 4294967296) * (hi - lo + 1));
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor((this.next() / 4294967296) * list.length)];
  }
}

/** murmur3's 32-bit finalizer over the three inputs */
function rowSeed(seed: number, salt: number, ordinal: number): number {
  let h = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b);
  h = fmix(h ^ Math.imul(salt, 0xcc9e2d51));
  h = fmix(h ^ Math.imul(ordinal | 0, 0x1b873593) ^ Math.floor(ordinal / 4294967296));
  return h;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Cumulative table for weighted picks. */
export class WeightedList {
  private readonly words: readonly string[];
  private readonly cumulative: Uint32Array;
  private readonly total: number;

  constructor(entries: readonly (readonly [string, number])[]) {
    this.words = entries.map((e) => e[0]);
    this.cumulative = new Uint32Array(entries.length);
    let sum = 0;
    entries.forEach(([, w], i) => {
      sum += w;
      this.cumulative[i] = sum;
    });
    this.total = sum;
  }

  pick(rng: Rng): string {
    const r = rng.int(1, this.total);
    let i = 0;
    while (this.cumulative[i] < r) i++;
    return this.words[i];
  }
}

/**
 * mulberry32: one seeded stream of uniform numbers in [0, 1), the same sequence on every
 * machine, for reproducible runs (the benchmark lab's parameters, the differential tests'
 * generated queries). Table data uses Rng, seeded per row.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
