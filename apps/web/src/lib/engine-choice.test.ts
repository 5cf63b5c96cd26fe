import { describe, expect, it } from 'vitest';
import {
  ENGINE_KEY,
  engineShown,
  engineToSend,
  engineTooltip,
  loadEngineChoice,
  ranOnText,
  saveEngineChoice,
  type EnginesInfo,
} from './engine-choice.js';

const trino = (available: boolean, def: 'local' | 'auto' = 'local'): EnginesInfo => ({
  default: def,
  trino: { available, message: available ? null : 'Trino did not answer', autoRowsThreshold: 1_000_000, sources: [] },
});

function memory() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    m,
  };
}

describe('the Run-on choice', () => {
  it('is remembered per browser, and anything else stored reads as no choice', () => {
    const s = memory();
    expect(loadEngineChoice(s)).toBeUndefined();
    saveEngineChoice(s, 'trino');
    expect([s.m.get(ENGINE_KEY), loadEngineChoice(s)]).toEqual(['trino', 'trino']);
    s.setItem(ENGINE_KEY, 'presto');
    expect(loadEngineChoice(s)).toBeUndefined();
  });

  it('sends the pick only with a Trino to choose, and not Trino while it cannot run queries', () => {
    expect(engineToSend({ default: 'local', trino: null }, 'trino')).toBeUndefined();
    expect(engineToSend(undefined, 'auto')).toBeUndefined();
    expect(engineToSend(trino(true), undefined)).toBeUndefined();
    expect(engineToSend(trino(true), 'trino')).toBe('trino');
    expect(engineToSend(trino(true), 'local')).toBe('local');
    expect(engineToSend(trino(false), 'trino')).toBeUndefined();
    expect(engineToSend(trino(false), 'auto')).toBe('auto');
  });

  it("shows the server's default until a pick is sent", () => {
    expect(engineShown(trino(true, 'auto'), undefined)).toBe('auto');
    expect(engineShown(trino(false, 'local'), 'trino')).toBe('local');
    expect(engineShown(trino(true, 'local'), 'trino')).toBe('trino');
  });

  it('tells in its tooltip that a pick wins over a hint, and what decides before one', () => {
    expect(engineTooltip(trino(true), 'trino')).toBe(
      `Where the query runs: Junction itself, the Trino backend, or Auto (Trino when Junction would fetch more than 1,000,000 rows from the sources and hold more than the query's memory budget). The choice is sent with each Run, Explain and Export and wins over a /*+ engine(…) */ hint in the SQL.`,
    );
    expect(engineTooltip(trino(true, 'auto'), undefined)).toContain(
      "Nothing is picked yet: a leading /*+ engine(…) */ hint in the SQL decides, else the server's default (Auto).",
    );
  });

  it('says where a run ran, with why', () => {
    expect(ranOnText({ engine: 'trino', engineReason: 'asked for by the engine option' })).toBe(
      'Ran on Trino · asked for by the engine option',
    );
    expect(ranOnText({ engine: 'local' })).toBe('Ran on Junction');
    expect(ranOnText({})).toBeNull();
    expect(ranOnText(undefined)).toBeNull();
  });
});
