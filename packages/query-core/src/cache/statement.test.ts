import { describe, expect, it } from 'vitest';
import { parseSql } from '../sql/parse.js';
import { cacheHint, canonicalStatement, statementKey } from './statement.js';

describe('cacheHint', () => {
  it('reads ttl and max_staleness from a leading hint', () => {
    expect(cacheHint('/*+ cache(ttl=60) */ SELECT 1')).toEqual({ ttlSeconds: 60 });
    expect(cacheHint('  /*+CACHE( ttl = 5 , max_staleness=2 )*/\nSELECT 1')).toEqual({ ttlSeconds: 5, maxStalenessSeconds: 2 });
  });

  it('reads it beside an engine hint, in one comment or after another', () => {
    expect(cacheHint('/*+ engine(trino) cache(ttl=60) */ SELECT 1')).toEqual({ ttlSeconds: 60 });
    expect(cacheHint('/*+ engine(trino) */ /*+ cache(ttl=7) */ SELECT 1')).toEqual({ ttlSeconds: 7 });
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

describe('statementKey', () => {
  it('ignores comments, the hint, white space and keyword case', () => {
    expect(statementKey("/*+ cache(ttl=1) */ SELECT  a ,\n\tb -- note\nFROM t WHERE s = 'x  y' AND \"Two  Words\" = $$a  b$$")).toBe(
      statementKey("select a, b from t where s = 'x  y' and \"Two  Words\" = $$a  b$$"),
    );
    expect(statementKey('SELECT 1 /* a /* nested */ comment */ + 2')).toBe(statementKey('SELECT 1 + 2'));
    expect(statementKey('SELECT 1;')).toBe(statementKey('SELECT 1'));
  });

  it('keeps what the binder reads: literals and names as written, parameter markers', () => {
    const differ = (a: string, b: string) => expect(statementKey(a), `${a} | ${b}`).not.toBe(statementKey(b));
    differ("SELECT 'x  y'", "SELECT 'x y'");
    differ("SELECT 'it''s  --not a comment' AS X", "SELECT 'it''s --not a comment' AS X");
    differ('SELECT "Two  Words" FROM t', 'SELECT "Two Words" FROM t');
    differ('SELECT a FROM t', 'SELECT A FROM t');
    differ('SELECT a FROM t', 'SELECT "a" FROM t');
    differ('SELECT 1.5', 'SELECT 1.50');
    differ('SELECT $1', 'SELECT $2');
    differ('SELECT $1', 'SELECT ?');
    differ("SELECT 'a'", 'SELECT $$a$$');
    differ('SELECT (a + b) * c FROM t', 'SELECT a + b * c FROM t');
  });

  it('drops only layout and keyword spelling from the parse', () => {
    const canonical = canonicalStatement(parseSql('select /* c */ "A b", x::int, 1.50, ?  FROM t').statement);
    expect(canonical).not.toMatch(/range|"select"|"int"|\/\*/);
    expect(canonical).toContain('"name":"SELECT"');
    expect(canonical).toContain('"text":"\\"A b\\""');
    expect(canonical).toContain('"text":"1.50"');
  });

  it('serializes a deeply nested statement without recursion', () => {
    const deep = `SELECT ${'('.repeat(150)}1${')'.repeat(150)}`;
    expect(statementKey(deep)).not.toBe(statementKey(`SELECT ${'('.repeat(149)}1${')'.repeat(149)}`));
  });
});
