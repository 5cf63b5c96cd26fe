import { describe, expect, it } from 'vitest';
import type { Phase } from './bench-api.js';
import { forTargets, shortened } from './bench-phases.js';

const jdv: Phase[] = [
  { type: 'single', queries: ['A', 'B'], warmups: 1, repetitions: 5, modes: ['direct', 'pushdown', 'federated'] },
  { type: 'concurrency', query: 'G', users: [1, 2, 5, 10, 20], stepSeconds: 10, modes: ['direct', 'federated'] },
  { type: 'concurrency', query: 'H', users: [8, 16], stepSeconds: 10 },
  { type: 'mix', users: 8, durationSeconds: 30, intervalSeconds: 2 },
  { type: 'streams', users: 6 },
  { type: 'coldwarm', warmPasses: 3 },
];

describe('benchmark phases in the form', () => {
  it('a short run keeps every phase and its queries, with short settings', () => {
    expect(shortened(jdv)).toEqual([
      { type: 'single', queries: ['A', 'B'], warmups: 0, repetitions: 2, modes: ['direct', 'pushdown', 'federated'] },
      { type: 'concurrency', query: 'G', users: [1, 2], stepSeconds: 2, modes: ['direct', 'federated'] },
      // no level of 4 users or fewer: the smallest one is kept
      { type: 'concurrency', query: 'H', users: [8], stepSeconds: 2 },
      { type: 'mix', users: 4, durationSeconds: 5, intervalSeconds: 2 },
      { type: 'streams', users: 4 },
      { type: 'coldwarm', warmPasses: 1 },
    ]);
  });

  it('without a direct target only the federated mode is asked for', () => {
    const out = forTargets(jdv, false);
    expect(out.map((p) => ('modes' in p ? p.modes : undefined))).toEqual([
      ['federated'],
      ['federated'],
      ['federated'],
      undefined,
      undefined,
      undefined,
    ]);
    expect(forTargets(jdv, true)).toEqual(jdv);
  });

  it('without a direct target a phase through Trino keeps it beside the federated mode', () => {
    const phases: Phase[] = [
      { type: 'single', warmups: 0, repetitions: 1, modes: ['direct', 'pushdown', 'federated', 'trino'] },
      { type: 'concurrency', query: 'G', users: [1], stepSeconds: 1, modes: ['direct', 'trino'] },
      { type: 'streams', users: 2, mode: 'trino' },
    ];
    expect(forTargets(phases, false)).toEqual([
      { type: 'single', warmups: 0, repetitions: 1, modes: ['federated', 'trino'] },
      { type: 'concurrency', query: 'G', users: [1], stepSeconds: 1, modes: ['trino'] },
      { type: 'streams', users: 2, mode: 'trino' },
    ]);
  });
});
