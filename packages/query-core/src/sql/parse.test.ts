import { describe, expect, it } from 'vitest';
import type { JunctionError } from '@junction/connectors';
import { parseSql } from './parse.js';

function parseError(sql: string): JunctionError {
  try {
    parseSql(sql);
  } catch (e) {
    return e as JunctionError;
  }
  throw new Error('expected a syntax error');
}

describe('parseSql', () => {
  it('reports syntax errors as user errors at the exact line and column', () => {
    const e = parseError('SELECT a\nFROM t\nWHERE a = = 1');
    expect([e.kind, e.code, e.message]).toEqual(['user', 'syntax_error', 'syntax error at or near "="']);
    expect(e.position).toEqual({ offset: 26, line: 3, column: 11, length: 1 });
  });

  it('a stray comma before FROM is a syntax error at FROM, as in PostgreSQL', () => {
    const e = parseError('SELECT c_custkey, FROM dbB.customer');
    expect([e.kind, e.code, e.message]).toEqual(['user', 'syntax_error', 'syntax error at or near "FROM"']);
    expect(e.position).toEqual({ offset: 18, line: 1, column: 19, length: 4 });
    const f = parseError('SELECT f(a,) FROM t');
    expect([f.code, f.message]).toEqual(['syntax_error', 'syntax error at or near ")"']);
  });

  it('points at the end of input for incomplete statements', () => {
    const e = parseError('SELECT a FROM t WHERE');
    expect(e.message).toBe('syntax error at end of input');
    expect(e.position).toEqual({ offset: 21, line: 1, column: 22, length: 0 });
  });

  it('points into the original text when ODBC escapes were rewritten before the error', () => {
    // {ts …} grows to TIMESTAMP …; the error after it must still point at the original column
    const sql = "SELECT * FROM t WHERE x < {ts '2020-01-01 00:00:00'} AND AND y";
    const e = parseError(sql);
    expect(e.position?.offset).toBe(sql.lastIndexOf('AND'));
    expect(e.position?.column).toBe(sql.lastIndexOf('AND') + 1);
  });

  it('numbers ? parameters left to right and rejects mixing styles', () => {
    const p = parseSql('SELECT ? , x FROM t WHERE y = ?');
    expect(p.paramStyle).toBe('?');
    expect([...p.questionMarks.values()]).toEqual([0, 1]);
    const e = parseError('SELECT $1, ?');
    expect([e.code, e.position?.column]).toEqual(['mixed_parameter_styles', 12]);
  });

  it('accepts 4-part names and keeps identifier case', () => {
    const p = parseSql('SELECT p_name FROM dbC.tpch.dbo.part');
    expect(p.text).toBe('SELECT p_name FROM dbC.tpch.dbo.part');
  });

  it('says NATURAL JOIN is unsupported instead of a bare syntax error', () => {
    const e = parseError('SELECT * FROM a NATURAL JOIN b');
    expect([e.kind, e.code, e.message]).toEqual([
      'unsupported',
      'feature_not_supported',
      'NATURAL JOIN is not supported; write JOIN … USING (columns)',
    ]);
    expect(e.position).toEqual({ offset: 16, line: 1, column: 17, length: 7 });
  });

  it('rewrites substring(… FROM … FOR …) before parsing and keeps error positions in the original text', () => {
    expect(parseSql('SELECT substring(c_phone from 1 for 2) FROM t').text).toBe(
      'SELECT substring(c_phone, 1, 2) FROM t',
    );
    const sql = 'SELECT substring(c_phone from 1 for 2) FROM t WHERE WHERE';
    expect(parseError(sql).position?.column).toBe(sql.lastIndexOf('WHERE') + 1);
  });

  it('runs one statement at a time', () => {
    const e = parseError('SELECT 1; SELECT 2');
    expect([e.kind, e.code, e.position?.column]).toEqual(['unsupported', 'unsupported_multiple_statements', 11]);
    expect(parseSql('SELECT 1;').statement.type).toBe('select_stmt');
  });
});
