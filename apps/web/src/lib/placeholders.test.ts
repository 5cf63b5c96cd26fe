import { describe, expect, it } from 'vitest';
import { hasPlaceholders } from './placeholders.js';

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
