import { describe, expect, it } from 'vitest';
import { hasPlaceholders, missingParam, placeholderCount, placeholderLabel } from './placeholders.js';

describe('hasPlaceholders', () => {
  it('sees $n and ? in the statement', () => {
    expect(hasPlaceholders('SELECT * FROM t WHERE k = $1')).toBe(true);
    expect(hasPlaceholders('SELECT * FROM t WHERE k = ?')).toBe(true);
  });

  it('ignores them inside strings, quoted names and comments', () => {
    expect(hasPlaceholders("SELECT '$1', 'it''s ?' FROM t")).toBe(false);
    expect(hasPlaceholders('SELECT "a?$2" FROM t -- k = $1\n/* ? */')).toBe(false);
    expect(hasPlaceholders('SELECT c_name FROM dbB.customer WHERE c_custkey < 0')).toBe(false);
  });
});

describe('placeholderCount', () => {
  it('counts the highest $n, or the question marks', () => {
    expect(placeholderCount('SELECT $1, $3, $1')).toBe(3);
    expect(placeholderCount('SELECT * FROM t WHERE a = ? AND b = ?')).toBe(2);
    expect(placeholderCount("SELECT '?' FROM t WHERE a = $2")).toBe(2);
    expect(placeholderCount('SELECT 1')).toBe(0);
    expect(placeholderLabel('SELECT $1', 0)).toBe('$1');
    expect(placeholderLabel('SELECT ?, ?', 1)).toBe('?2');
  });
});

describe('missingParam', () => {
  it('finds the first value left empty, which must be asked for rather than sent', () => {
    expect(missingParam([''])).toBe(0);
    expect(missingParam(['1', '', ''])).toBe(1);
  });
  it('accepts NULL and any typed text, spaces included', () => {
    expect(missingParam([null, '0', ' '])).toBe(-1);
    expect(missingParam([])).toBe(-1);
  });
});
