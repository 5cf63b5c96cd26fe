import { describe, expect, it } from 'vitest';
import { blankAllQuantifier, rewriteStandardFunctions } from './compat.js';

describe('standard function syntax rewriting', () => {
  it.each([
    ['SELECT substring(c_phone from 1 for 2) FROM t', 'SELECT substring(c_phone, 1, 2) FROM t'],
    ['SELECT SUBSTRING(x FROM 3)', 'SELECT SUBSTRING(x, 3)'],
    ['SELECT substring(x for 4)', 'SELECT substring(x, 1, 4)'],
    ["SELECT trim(both 'x' from y)", "SELECT btrim(y, 'x')"],
    ['SELECT trim(leading from y)', 'SELECT ltrim(y)'],
    ["SELECT trim(trailing ' ' FROM upper(y))", "SELECT rtrim(upper(y), ' ')"],
    ["SELECT trim('x' from y)", "SELECT btrim(y, 'x')"],
    ['SELECT substring(substring(a from 2) from 1 for 3)', 'SELECT substring(substring(a, 2), 1, 3)'],
    ['SELECT substring(a, 1, 2), trim(b)', 'SELECT substring(a, 1, 2), trim(b)'],
    ['SELECT \'substring(x from 1)\', "trim(" FROM t', 'SELECT \'substring(x from 1)\', "trim(" FROM t'],
    ['SELECT t.substring(x from 1)', 'SELECT t.substring(x from 1)'],
    // block comments nest, as the parser reads them: the quote and ')' below are comment
    ["SELECT /* a /* b */ ' */ substring(x from 1)", "SELECT /* a /* b */ ' */ substring(x, 1)"],
    ['SELECT substring(x from 1 /* /* */ ) */ for 2)', 'SELECT substring(x, 1 /* /* */ ) */, 2)'],
  ])('%s', (input, output) => {
    expect(rewriteStandardFunctions(input).text).toBe(output);
  });

  it('maps positions after and inside a rewritten call back to the original', () => {
    const sql = 'SELECT substring(c_phone from 1 for 2) AS cc, bad_col FROM t';
    const r = rewriteStandardFunctions(sql);
    expect(r.toOriginal(r.text.indexOf('bad_col'))).toBe(sql.indexOf('bad_col'));
    expect(r.toOriginal(r.text.indexOf('c_phone'))).toBe(sql.indexOf('c_phone'));
  });
});

describe('the ALL quantifier of an aggregate', () => {
  it.each([
    ['SELECT count(ALL x), sum( all y) FROM t', 'SELECT count(    x), sum(     y) FROM t'],
    ['SELECT count(DISTINCT x) FROM t', 'SELECT count(DISTINCT x) FROM t'],
    ['SELECT 1 FROM t WHERE x = ALL (SELECT y FROM u) UNION ALL (SELECT 2)', 'SELECT 1 FROM t WHERE x = ALL (SELECT y FROM u) UNION ALL (SELECT 2)'],
    ["SELECT 'count(ALL x)', \"f(all \" FROM t -- sum(ALL y)", "SELECT 'count(ALL x)', \"f(all \" FROM t -- sum(ALL y)"],
  ])('%s', (input, output) => {
    // blanked, not removed: the text keeps its length, so positions need no map
    expect(blankAllQuantifier(input)).toBe(output);
    expect(blankAllQuantifier(input)).toHaveLength(input.length);
  });
});
