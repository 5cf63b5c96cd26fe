import { describe, expect, it } from 'vitest';
import { markCutShort } from './runner.js';

describe('markCutShort (what recover() keeps of a run the server stopped)', () => {
  const stored = JSON.stringify({
    queries: [
      { query: 'A', phaseIndex: 0, federated: { executions: 20 } },
      { query: 'A', phaseIndex: 1, federated: { executions: 7 } },
      { query: 'B', phaseIndex: 1, federated: null, partial: true },
    ],
    steps: [
      { query: '*', phaseIndex: 0, users: 1 },
      { query: '*', phaseIndex: 1, users: 2 },
    ],
    intervals: [{ phaseIndex: 1, executions: 3 }],
  });

  it('marks the entries of the phase in progress partial, and only those', () => {
    const out = JSON.parse(markCutShort(stored, 1)!);
    expect(out.queries.map((e: { partial?: boolean }) => e.partial)).toEqual([undefined, true, true]);
    expect(out.steps.map((e: { partial?: boolean }) => e.partial)).toEqual([undefined, true]);
    // intervals are complete as written: each was closed before it was flushed
    expect(out.intervals).toEqual([{ phaseIndex: 1, executions: 3 }]);
  });

  it('leaves the results alone when nothing of that phase was flushed, or no phase had started', () => {
    expect(markCutShort(stored, 2)).toBeUndefined();
    expect(markCutShort(stored, undefined)).toBeUndefined();
    expect(markCutShort('{}', 0)).toBeUndefined();
    expect(markCutShort('not json', 0)).toBeUndefined();
  });
});
