import { seededRandom } from '@junction/tpch';
import type { BenchQuery, ParamGen } from './definition.js';

/** Fresh parameter values per execution for each query: uniform, list or sequence. */
export class ParamSource {
  readonly #counters = new Map<string, number>();
  constructor(readonly random: () => number) {}

  next(q: BenchQuery): (string | number)[] {
    return (q.params ?? []).map((g, i) => this.#one(`${q.id}#${i}`, g));
  }

  #one(key: string, g: ParamGen): string | number {
    switch (g.kind) {
      case 'uniform':
        return g.min + Math.floor(this.random() * (g.max - g.min + 1));
      case 'list':
        return g.values[Math.floor(this.random() * g.values.length)];
      case 'sequence': {
        const n = this.#counters.get(key) ?? 0;
        this.#counters.set(key, n + 1);
        return g.start + n * (g.step ?? 1);
      }
    }
  }
}

/** Picks a query by weight (weights default to 1). */
export function weighted<T extends { weight?: number }>(items: readonly T[], random: () => number): T {
  const total = items.reduce((s, q) => s + (q.weight ?? 1), 0);
  let x = random() * total;
  for (const q of items) {
    x -= q.weight ?? 1;
    if (x < 0) return q;
  }
  return items[items.length - 1];
}

/** A permutation of the items for stream `n` (each user its own order, reproducibly). */
export function streamOrder<T>(items: readonly T[], n: number, seed: number): T[] {
  const out = [...items];
  if (n === 0) return out;
  const r = seededRandom(seed + n * 7919);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
