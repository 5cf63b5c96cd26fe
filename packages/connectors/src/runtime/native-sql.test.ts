import { describe, expect, it } from 'vitest';
import { isJunctionError, type JunctionError } from '../contract/errors.js';
import { assertReadingStatement, leadingKeyword } from './native-sql.js';

function refusal(f: () => void): JunctionError | undefined {
  try {
    f();
  } catch (e) {
    if (isJunctionError(e)) return e;
    throw e;
  }
  return undefined;
}

describe('native SQL checks', () => {
  it('finds the leading keyword after comments and empty statements, per dialect', () => {
    expect(leadingKeyword(`  -- x\n/* y */ ;; attach 'f' as j`, 'sqlite')).toBe('ATTACH');
    expect(leadingKeyword(`/* outer /* nested */ still comment */ DROP TABLE t`, 'postgresql')).toBe('DROP');
    expect(leadingKeyword(`# note\nSELECT 1`, 'mysql')).toBe('SELECT');
    // MySQL: `--` without a space is not a comment, so the statement starts with '-'
    expect(leadingKeyword(`--x\nSELECT 1`, 'mysql')).toBe('');
    expect(leadingKeyword(`(SELECT 1)`, 'postgresql')).toBe('(');
    expect(leadingKeyword(`  `, 'sqlite')).toBe('');
  });

  it('sql server: readOnly lets a single query through and refuses any batch that does more', () => {
    const ok = [
      `SELECT [o].[id], N'it''s; DROP TABLE x' AS s FROM [dbo].[orders] [o] WHERE [o].[price] >= @p1`,
      `WITH c AS (SELECT 1 AS x) SELECT x FROM c;`,
      `SELECT [update], "delete" FROM t -- INSERT INTO t\n/* EXEC xp_cmdshell 'x' */`,
    ];
    for (const sql of ok) expect(refusal(() => assertReadingStatement('ms', sql, 'sqlserver'))).toBeUndefined();
    const why = (w: string): string =>
      `Source "ms" runs this statement read-only, and it ${w}. Only statements that read data are allowed here.`;
    const cases: [string, string, string][] = [
      [`SELECT 1 DROP TABLE t`, 'native_not_read_only', why('contains DROP, which is not part of a query')],
      [`SELECT * INTO copy FROM t`, 'native_not_read_only', why('contains INTO, which is not part of a query')],
      [`SELECT 1; EXEC sp_who`, 'native_not_read_only', why('contains EXEC, which is not part of a query')],
      [`UPDATE t SET x = 1`, 'native_not_read_only', why('starts with UPDATE, which is not a query')],
      [`SELECT * FROM OPENROWSET('SQLNCLI', 'x', 'y')`, 'native_not_read_only', why('contains OPENROWSET, which is not part of a query')],
      [`SELECT 1; SELECT 2`, 'multiple_statements', `Source "ms" runs one statement at a time, and this text holds more than one. Send each statement on its own.`],
    ];
    for (const [sql, code, message] of cases) {
      const err = refusal(() => assertReadingStatement('ms', sql, 'sqlserver'));
      expect({ sql, code: err?.code, message: err?.message }).toEqual({ sql, code, message });
    }
  });
});
