import { describe, expect, it } from 'vitest';
import { rewriteOdbc } from './odbc.js';

describe('ODBC escape rewriting', () => {
  it.each([
    ["SELECT * FROM t WHERE d < {d '1998-01-01'}", "SELECT * FROM t WHERE d < DATE '1998-01-01'"],
    ["WHERE o < {ts '1998-01-01 00:00:00'}", "WHERE o < TIMESTAMP '1998-01-01 00:00:00'"],
    ["SELECT {t '10:00:00'}", "SELECT TIME '10:00:00'"],
    ['SELECT {fn UCASE(name)} FROM t', 'SELECT UCASE(name) FROM t'],
    ["SELECT {fn CONCAT({fn LCASE(a)}, '}')}", "SELECT CONCAT(LCASE(a), '}')"],
    ['SELECT * FROM {oj a LEFT OUTER JOIN b ON a.x = b.x}', 'SELECT * FROM a LEFT OUTER JOIN b ON a.x = b.x'],
    ["SELECT '{d ''x''}', \"{ts\" FROM t -- {fn x}\n", "SELECT '{d ''x''}', \"{ts\" FROM t -- {fn x}\n"],
    ["SELECT $${d 'x'}$$, /* {ts '1'} */ 1", "SELECT $${d 'x'}$$, /* {ts '1'} */ 1"],
    // block comments nest, as the parser reads them: all of this is one comment
    ['SELECT /* /* */ {x */ 1', 'SELECT /* /* */ {x */ 1'],
    ["SELECT /* a /* b */ ' */ {d '2020-01-01'}", "SELECT /* a /* b */ ' */ DATE '2020-01-01'"],
  ])('%s', (input, output) => {
    expect(rewriteOdbc(input).text).toBe(output);
  });

  it('maps offsets in the rewritten text back to the original', () => {
    const sql = "SELECT {fn UCASE(x)}, {ts '2020-01-01'} + y";
    const r = rewriteOdbc(sql);
    expect(r.text).toBe("SELECT UCASE(x), TIMESTAMP '2020-01-01' + y");
    const at = (needle: string) => r.toOriginal(r.text.indexOf(needle));
    expect(at('UCASE')).toBe(sql.indexOf('UCASE'));
    expect(at("'2020")).toBe(sql.indexOf("'2020"));
    expect(at('+ y')).toBe(sql.indexOf('+ y'));
    expect(at('TIMESTAMP')).toBe(sql.indexOf('{ts'));
  });

  it('rejects unknown or unclosed escapes with the position of the brace', () => {
    expect(() => rewriteOdbc('SELECT {x 1}')).toThrow(
      expect.objectContaining({ code: 'syntax_error', position: { offset: 7, line: 1, column: 8, length: 1 } }),
    );
    expect(() => rewriteOdbc("SELECT\n {d '2020-01-01'")).toThrow(
      expect.objectContaining({ position: { offset: 8, line: 2, column: 2, length: 1 } }),
    );
  });
});
