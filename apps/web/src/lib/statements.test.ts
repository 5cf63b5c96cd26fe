import { describe, expect, it } from 'vitest';
import { lineColumnAt, splitStatements, statementAt } from './statements.js';

describe('statements in the editor', () => {
  const sql = "SELECT 1;\n\n  SELECT ';' AS s -- a; comment\n;SELECT 3";

  it('splits at semicolons outside strings and comments', () => {
    expect(splitStatements(sql)).toEqual([
      { text: 'SELECT 1', start: 0 },
      { text: "SELECT ';' AS s -- a; comment", start: 13 },
      { text: 'SELECT 3', start: 44 },
    ]);
    expect(splitStatements('  ;  -- only a comment\n;')).toEqual([]);
  });

  it('picks the statement at the cursor', () => {
    expect(statementAt(sql, 3)?.text).toBe('SELECT 1');
    expect(statementAt(sql, 9)?.text).toBe('SELECT 1');
    expect(statementAt(sql, 20)?.text).toBe("SELECT ';' AS s -- a; comment");
    expect(statementAt(sql, sql.length)?.text).toBe('SELECT 3');
    expect(statementAt('  SELECT 1  ', 0)).toEqual({ text: 'SELECT 1', start: 2 });
    expect(statementAt('', 0)).toBeUndefined();
  });

  it('maps an offset to a 1-based line and column', () => {
    expect(lineColumnAt(sql, 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt(sql, 13)).toEqual({ line: 3, column: 3 });
  });
});
