import { describe, expect, it } from 'vitest';
import { inlineParams, literal } from './literals.js';

describe('mysql literals', () => {
  it('spells every value exactly', () => {
    expect(literal(null)).toBe('NULL');
    expect(literal(9223372036854775807n)).toBe('9223372036854775807');
    expect(literal(-0)).toBe('0');
    expect(literal(true)).toBe('TRUE');
    expect(literal("it's")).toBe("'it''s'");
    // a backslash means different things with and without NO_BACKSLASH_ESCAPES: hex avoids both
    expect(literal('a\\b')).toBe("_utf8mb4 X'615c62'");
    expect(literal(new Uint8Array([0, 255]))).toBe("X'00ff'");
    expect(() => literal(NaN)).toThrow('MySQL has no literal for NaN');
  });

  it('replaces placeholders outside strings, quoted names and comments', () => {
    expect(inlineParams('SELECT ? , \'?\', `a?`, "?" -- ?\n, ? /* ? */', [1, 'x'])).toBe(
      "SELECT 1 , '?', `a?`, \"?\" -- ?\n, 'x' /* ? */",
    );
    expect(inlineParams("SELECT 'it''s ?', ?", [2])).toBe("SELECT 'it''s ?', 2");
    expect(() => inlineParams('SELECT ?, ?', [1])).toThrow('more placeholders');
    expect(() => inlineParams('SELECT ?', [1, 2])).toThrow('1 placeholders but 2 values');
  });
});
