/**
 * Which spill partition a canonical hash key (hash-key.ts: number, string, boolean,
 * null, the NULL_KEY symbol) belongs to. Equal keys always land in the same partition, so
 * rows that can meet (join) or must combine (group) are in one partition together. Each
 * recursion level passes its own seed: a partition too big at level n is split again at
 * level n+1 by an independent hash, not the same one that put its rows together.
 */
export function partitionOf(key: unknown, seed: number, fanout: number): number {
  return hashKey(key, seed) & (fanout - 1);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function hashKey(key: unknown, seed: number): number {
  let h: number;
  switch (typeof key) {
    case 'number':
      if ((key | 0) === key) h = mix(key, seed);
      // every NaN is one key (PostgreSQL's float order)
      else if (key !== key) h = mix(0x7ff80000, seed);
      else {
        f64[0] = key;
        h = mix(u32[0] ^ Math.imul(u32[1], 0x85ebca6b), seed);
      }
      break;
    case 'string':
      h = seed ^ 0x811c9dc5;
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
      h = mix(h, seed);
      break;
    case 'boolean':
      h = mix(key ? 1 : 2, seed);
      break;
    default:
      // null (join keys: matches nothing) and the NULL group key: one fixed partition
      h = 0;
  }
  return h >>> 0;
}

/** murmur3's finaliser over the value and the seed: nearby integers spread over every partition. */
function mix(v: number, seed: number): number {
  let h = Math.imul(v ^ Math.imul(seed + 1, 0x9e3779b1), 0xcc9e2d51);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
