import { describe, expect, it } from 'vitest';
import { engineHint, leadingHints } from './hints.js';

describe('leadingHints', () => {
  it('reads every hint of the comments that open the statement, with where each stands', () => {
    const sql =
      ' -- note\n/*+ cache(ttl=60) ENGINE( trino ) */ /* plain */ /*+engine(trino)*/ SELECT /*+ engine(local) */ 1';
    expect(leadingHints(sql).map((h) => [h.name, h.args, sql.slice(h.offset, h.offset + h.text.length)])).toEqual([
      ['cache', 'ttl=60', 'cache(ttl=60)'],
      ['engine', ' trino ', 'ENGINE( trino )'],
      ['engine', 'trino', 'engine(trino)'],
    ]);
  });

  it('finds none in a plain comment, after the first token, or in an unclosed comment', () => {
    expect(leadingHints('/* engine(trino) */ SELECT 1')).toEqual([]);
    expect(leadingHints('SELECT /*+ engine(trino) */ 1')).toEqual([]);
    expect(leadingHints('/* outer /*+ engine(trino) */ still comment */ SELECT 1')).toEqual([]);
  });
});

describe('engineHint', () => {
  it('gives the name in lower case and the position of the name for the editor', () => {
    const sql = 'SELECT 1';
    expect(engineHint(sql)).toBeUndefined();
    expect(engineHint('/*+ engine(Trino) */\nSELECT 1')).toEqual({
      name: 'trino',
      position: { offset: 11, line: 1, column: 12, length: 5 },
    });
    expect(engineHint('/*+ cache(ttl=5) */\n/*+ engine( local ) */ SELECT 1')).toEqual({
      name: 'local',
      position: { offset: 32, line: 2, column: 13, length: 5 },
    });
  });

  it('refuses an argument that is not one name, and two engines at once', () => {
    expect(() => engineHint('/*+ engine(trino, local) */ SELECT 1')).toThrow(
      expect.objectContaining({ code: 'invalid_engine_hint', position: { offset: 4, line: 1, column: 5, length: 20 } }),
    );
    expect(() => engineHint('/*+ engine() */ SELECT 1')).toThrow(/not understood/);
    expect(() => engineHint('/*+ engine(trino) engine(local) */ SELECT 1')).toThrow(
      expect.objectContaining({
        code: 'invalid_engine_hint',
        message: expect.stringContaining('two engines, trino and local'),
      }),
    );
    // the same engine twice is no conflict
    expect(engineHint('/*+ engine(trino) */ /*+ engine(TRINO) */ SELECT 1')?.name).toBe('trino');
  });
});
