import { describe, expect, it } from 'vitest';
import { mysqlSemantics } from '../../test/support/semantics.js';
import { t, type JType } from '../contract/types.js';
import { exactCollationFor, MysqlDialect } from './dialect.js';


describe('MySQL dialect', () => {
  it('chooses the NO PAD binary collation by server flavour', () => {
    expect(exactCollationFor(mysqlSemantics('10.11.6-MariaDB-0+deb12u1'))).toEqual({ name: 'utf8mb4_nopad_bin', noPad: true });
    expect(exactCollationFor(mysqlSemantics('8.0.36'))).toEqual({ name: 'utf8mb4_0900_bin', noPad: true });
    expect(exactCollationFor(mysqlSemantics('8.4.0-commercial'))).toEqual({ name: 'utf8mb4_0900_bin', noPad: true });
    expect(exactCollationFor(mysqlSemantics('5.7.44-log'))).toEqual({ name: 'utf8mb4_bin', noPad: false });
    expect(exactCollationFor(undefined)).toEqual({ name: 'utf8mb4_bin', noPad: false });
  });

  it('maps CAST targets; types without an exact MySQL equivalent have none', () => {
    const d = new MysqlDialect();
    const cases: [JType, string | undefined][] = [
      [t.int32, 'SIGNED'],
      [t.int64, 'SIGNED'],
      [t.decimal(15, 2), 'DECIMAL(15,2)'],
      [t.decimal(), undefined],
      [t.float64, 'DOUBLE'],
      [t.float32, undefined],
      [t.varchar(5), 'CHAR(5)'],
      [t.date, 'DATE'],
      [t.timestamp, 'DATETIME(6)'],
      [t.time, 'TIME(6)'],
      [t.bool, undefined],
      [t.timestamptz, undefined],
    ];
    expect(cases.map(([type]) => d.castType(type))).toEqual(cases.map(([, name]) => name));
  });

  it('casts an integer to an unbounded decimal with room for every 64-bit integer (bare DECIMAL is DECIMAL(10,0))', () => {
    const d = new MysqlDialect();
    expect(d.cast('x', t.int64, t.decimal())).toBe('CAST(x AS DECIMAL(20,0))');
    expect(d.cast('x', t.int32, t.decimal(12, 2))).toBe('CAST(x AS DECIMAL(12,2))');
    expect(() => d.cast('x', t.varchar(5), t.decimal())).toThrow();
  });

  it('quotes with backticks, doubling them', () => {
    expect(new MysqlDialect().quoteIdentifier('a`b')).toBe('`a``b`');
    expect(new MysqlDialect().quoteIdentifier('`; DROP TABLE x; --')).toBe('```; DROP TABLE x; --`');
  });
});
