import { describe, expect, it } from 'vitest';
import { compareAnswers, fmtMs, fmtRatio, formatTable, literalH, pgbenchScript } from './pg-wire.js';

describe('pg-wire bench helpers', () => {
  it('formats a table with padded columns and a rule under the header', () => {
    expect(
      formatTable(
        ['query', 'direct', '÷ direct'],
        [
          ['A', '1.2', '1.10×'],
          ['A–F total', '123', '0.95×'],
        ],
      ),
    ).toEqual([
      'query     | direct | ÷ direct',
      '----------|--------|---------',
      'A         | 1.2    | 1.10×',
      'A–F total | 123    | 0.95×',
    ]);
    expect(fmtMs(0.123)).toBe('0.1');
    expect(fmtMs(123.4)).toBe('123');
    expect(fmtMs(NaN)).toBe('–');
    expect(fmtRatio(1 / 3)).toBe('0.33×');
    expect(fmtRatio(Infinity)).toBe('–');
  });

  it('compares answers as multisets: same text, same values, or different', () => {
    const direct = [
      [1, 'a', '1.50', '1995-03-01'],
      [2, null, '2.00', '1995-03-02'],
      [2, null, '2.00', '1995-03-02'],
    ];
    expect(compareAnswers(direct, [...direct].reverse()).verdict).toBe('same');
    // JSON numbers for numeric columns: the same values written differently
    const json = [
      [2, null, 2, '1995-03-02'],
      [1, 'a', 1.5, '1995-03-01'],
      [2, null, '2', '1995-03-02'],
    ];
    const loose = compareAnswers(direct, json);
    expect(loose.verdict).toBe('same values');
    expect(loose.note).toMatch(/3 rows written differently/);
    // a duplicate lost is a difference, as is a changed value or a null for an empty string
    expect(compareAnswers(direct, direct.slice(0, 2)).verdict).toBe('DIFFERS');
    expect(compareAnswers(direct, [direct[0], direct[1], [2, null, '2.01', '1995-03-02']]).verdict).toBe('DIFFERS');
    expect(compareAnswers([[null]], [['']]).verdict).toBe('DIFFERS');
    expect(compareAnswers([['-0.0']], [[0]]).verdict).toBe('same values');
    expect(compareAnswers([], []).verdict).toBe('same');
  });

  it('writes the pgbench script of a one-parameter query', () => {
    expect(pgbenchScript('SELECT x FROM t\nWHERE k = $1', 1, 1500)).toBe(
      '\\set k random(1, 1500)\nSELECT x FROM t\nWHERE k = :k;\n',
    );
    expect(pgbenchScript('SELECT 1 WHERE $1 = 2;', 1, 2)).toBe('\\set k random(1, 2)\nSELECT 1 WHERE :k = 2;\n');
    expect(() => pgbenchScript('SELECT 1', 1, 2)).toThrow(/exactly one parameter/);
    expect(() => pgbenchScript('SELECT $1, $2', 1, 2)).toThrow(/exactly one parameter/);
    expect(() => pgbenchScript("SELECT $1, ':x'", 1, 2)).toThrow(/:variable/);
    expect(() => pgbenchScript('SELECT $1::int', 1, 2)).not.toThrow();
    expect(literalH('SELECT * FROM t WHERE c = $1', 42)).toBe('SELECT * FROM t WHERE c = 42');
  });
});
