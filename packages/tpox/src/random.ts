/**
 * The TPC-H generator's per-row PRNG (packages/tpch/src/random.ts), kept here so this package
 * does not reach into another's sources: every document depends only on (seed, collection,
 * ordinal), so any document can be generated on its own and the same seed always gives the
 * same bytes, however the output is split into files.
 */
export class Rng {
  private state: number;

  constructor(seed: number, salt: number, ordinal: number) {
    this.state = rowSeed(seed, salt, ordinal);
  }

  /** splitmix32 with a full-avalanche finalizer: uniform uint32 */
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
