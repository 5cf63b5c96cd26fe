import { describe, expect, it } from 'vitest';
import { cacheHint, normalizeStatement } from './statement.js';

describe('cacheHint', () => {
  it('reads ttl and max_staleness from a leading hint', () => {
    expect(cacheHint('/*+ cache(ttl=60) */ SELECT 1')).toEqual({ ttlSeconds: 60 });
    expect(cacheHint('  /*+CACHE( ttl = 5 , max_staleness=2 )*/\nSELECT 1')).toEqual({ ttlSeconds: 5, maxStalenessSeconds: 2 });
  });

  it('ignores statements without a leading hint, and hints elsewhere', () => {
    expect(cacheHint('SELECT 1')).toBeUndefined();
    expect(cacheHint('SELECT /*+ cache(ttl=60) */ 1')).toBeUndefined();
    expect(cacheHint('/* cache(ttl=60) */ SELECT 1')).toBeUndefined();
  });

  it('refuses a hint it does not understand', () => {
    expect(() => cacheHint('/*+ cache(ttl=1m) */ SELECT 1')).toThrow(/not understood/);
    expect(() => cacheHint('/*+ cache(max_staleness=3) */ SELECT 1')).toThrow(/needs ttl=SECONDS/);
  });
});

describe('normalizeStatement', () => {
  it('drops comments and collapses white space outside literals and quoted names', () => {
    expect(normalizeStatement("/*+ cache(ttl=1) */ SELECT  a ,\n\tb -- note\nFROM t WHERE s = 'x  y' AND \"Two  Words\" = $$a  b$$")).toBe(
      "SELECT a , b FROM t WHERE s = 'x  y' AND \"Two  Words\" = $$a  b$$",
    );
  });

  it('keeps doubled quotes inside a literal and letter case', () => {
    expect(normalizeStatement("SELECT 'it''s  --not a comment' AS X")).toBe("SELECT 'it''s  --not a comment' AS X");
  });
});
