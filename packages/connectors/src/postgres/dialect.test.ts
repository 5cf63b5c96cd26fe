import { describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import { isCodePointCollation, PostgresDialect } from './dialect.js';

describe('PostgreSQL dialect', () => {
  it('knows which collations already order by code point', () => {
    expect(['C', 'POSIX', 'C.UTF-8', 'C.utf8', 'ucs_basic'].map(isCodePointCollation)).toEqual([true, true, true, true, true]);
    expect(['en_US.UTF-8', 'de_DE', 'und-x-icu', undefined].map(isCodePointCollation)).toEqual([false, false, false, false]);
  });

  it('spells casts with PostgreSQL type names and typmods', () => {
    const d = new PostgresDialect();
    expect([t.decimal(15, 2), t.char(10), t.varchar(25), t.string, t.timestamptz, t.binary, t.json].map((x) => d.castType(x))).toEqual([
      'numeric(15,2)', 'character(10)', 'character varying(25)', 'text', 'timestamp with time zone', 'bytea', 'jsonb',
    ]);
  });

  it('quotes with double quotes, doubling them', () => {
    expect(new PostgresDialect().quoteIdentifier('a"b')).toBe('"a""b"');
  });
});
