import { describe, expect, it } from 'vitest';
import { classifyLine, formatCell, formatElapsed, formatRowCount, isNumericType } from './query-protocol.js';

describe('classifyLine', () => {
  it('reads the header with columns and the query id', () => {
    expect(classifyLine({ queryId: 'q1', columns: [{ name: 'c_custkey', type: 'int32' }] })).toEqual({
      type: 'columns',
      queryId: 'q1',
      columns: [{ name: 'c_custkey', type: 'int32' }],
    });
    expect(classifyLine({ id: 7, columns: ['a'] })).toEqual({
      type: 'columns',
      queryId: '7',
      columns: [{ name: 'a', type: '' }],
    });
  });

  it('reads rows as arrays or {row}', () => {
    expect(classifyLine([1, 'x', null])).toEqual({ type: 'row', row: [1, 'x', null] });
    expect(classifyLine({ row: [2] })).toEqual({ type: 'row', row: [2] });
  });

  it('reads the stats line', () => {
    expect(classifyLine({ stats: { rows: 100, elapsedMs: 12 } })).toEqual({
      type: 'stats',
      stats: { rows: 100, elapsedMs: 12 },
    });
  });

  it('turns an error line into an ApiError with status from its kind', () => {
    const ev = classifyLine({ error: { code: 'SOURCE_FAILED', kind: 'external', message: 'dbA is unreachable' } });
    expect(ev.type).toBe('error');
    if (ev.type !== 'error') throw new Error('unreachable');
    expect([ev.error.status, ev.error.kind, ev.error.code, ev.error.message]).toEqual([
      502,
      'external',
      'SOURCE_FAILED',
      'dbA is unreachable',
    ]);
  });

  it('reports an unknown line as an internal error instead of dropping it', () => {
    const ev = classifyLine(42);
    expect(ev.type === 'error' && ev.error.code).toBe('BAD_STREAM');
  });
});

describe('formatting', () => {
  it('shows NULL and keeps exact strings for decimals and big integers', () => {
    expect(formatCell(null)).toBe('NULL');
    expect(formatCell('12345678901234567890')).toBe('12345678901234567890');
    expect(formatCell('0.10')).toBe('0.10');
    expect(formatCell(false)).toBe('false');
    expect(formatCell({ a: 1 })).toBe('{"a":1}');
  });

  it('formats elapsed time', () => {
    expect(formatElapsed(12.4)).toBe('12 ms');
    expect(formatElapsed(1234)).toBe('1.23 s');
    expect(formatElapsed(125_000)).toBe('2 min 5 s');
  });
});

describe('isNumericType', () => {
  it('knows the engine type names that hold numbers', () => {
    expect(['int32', 'int64', 'decimal(15,2)', 'float64', 'numeric'].map(isNumericType)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['varchar(25)', 'char(15)', 'date', 'timestamptz', 'boolean', 'interval'].map(isNumericType)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('formatRowCount', () => {
  it('says "row" for one and "rows" otherwise', () => {
    expect(formatRowCount(1)).toBe('1 row');
    expect(formatRowCount(0)).toBe('0 rows');
    expect(formatRowCount(1250)).toBe('1,250 rows');
  });
});
