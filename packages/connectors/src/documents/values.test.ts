import { describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import { exactDecimal, fromText, parseColumnType, type ValueSite } from './values.js';

const SITE: ValueSite = {
  source: 'docs',
  table: 'accounts',
  column: 'balance',
  path: 'Balance/OnlineActualBal',
  rowPath: '//Account',
  document: 'bank.xml',
};

describe('document values', () => {
  it('maps declared SQL types, refusing those documents cannot hold', () => {
    expect(
      [
        'decimal(15,2)',
        'integer',
        'bigint',
        'text',
        'varchar(3)',
        'date',
        'timestamp',
        'timestamptz',
        'double precision',
        'boolean',
      ].map((s) => parseColumnType(s, { table: 't', column: 'c' })),
    ).toEqual([
      t.decimal(15, 2),
      t.int32,
      t.int64,
      t.string,
      t.varchar(3),
      t.date,
      t.timestamp,
      t.timestamptz,
      t.float64,
      t.bool,
    ]);
    expect(() => parseColumnType('bytea', { table: 't', column: 'c' })).toThrow(
      'Column "c" of document table "t" declares type "bytea", which documents cannot hold.',
    );
  });

  it('keeps decimals exact, to the declared scale, rounding half away from zero on the digits', () => {
    const d = t.decimal(15, 2);
    expect(
      ['1909572716.10', '1909572716.1', ' 42 ', '-0.005', '0.004', '-12.345', '9.995', '1e2', '+.5'].map((s) =>
        fromText(s, d, SITE),
      ),
    ).toEqual(['1909572716.10', '1909572716.10', '42.00', '-0.01', '0.00', '-12.35', '10.00', '100.00', '0.50']);
    expect(exactDecimal('123456789012345678901234567890.123456789', { kind: 'decimal' })).toBe(
      '123456789012345678901234567890.123456789',
    );
    expect(() => fromText('12,5', d, SITE)).toThrow(
      'Document table "accounts" (source "docs"): column "balance" (path "Balance/OnlineActualBal" under rows "//Account") holds "12,5", which is not a valid decimal(15,2). Fix the document or declare the column as text.',
    );
    expect(() => fromText('99999999999999.99', d, SITE)).toThrow('(more than 13 digits before the point)');
  });

  it('reads integers, booleans, dates, times and timestamps as PostgreSQL reads their text', () => {
    expect(fromText('9223372036854775807', t.int64, SITE)).toBe(9223372036854775807n);
    expect(fromText('-32768', t.int16, SITE)).toBe(-32768);
    expect(() => fromText('32768', t.int16, SITE)).toThrow('which is not a valid int16 (out of range)');
    expect(['true', 'F', 'yes', '0'].map((s) => fromText(s, t.bool, SITE))).toEqual([true, false, true, false]);
    expect(fromText('2024-02-29', t.date, SITE)).toBe('2024-02-29');
    expect(() => fromText('2023-02-29', t.date, SITE)).toThrow('not a valid date');
    expect(fromText('2024-03-01T10:20:30.500', t.timestamp, SITE)).toBe('2024-03-01T10:20:30.5');
    expect(fromText('2024-03-01 10:20:30+02:00', t.timestamp, SITE)).toBe('2024-03-01T10:20:30');
    expect(fromText('2024-03-01T01:20:30+02:00', t.timestamptz, SITE)).toBe('2024-02-29T23:20:30Z');
    expect(fromText('2024-03-01T01:20', t.timestamptz, SITE)).toBe('2024-03-01T01:20:00Z');
    expect(fromText('{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}', t.uuid, SITE)).toBe(
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    );
  });

  it("keeps missing as NULL, an empty text as '' for text and NULL for other types, and pads char(n)", () => {
    expect([
      fromText(null, t.string, SITE),
      fromText('', t.string, SITE),
      fromText('', t.int32, SITE),
      fromText('  ', t.decimal(5, 1), SITE),
    ]).toEqual([null, '', null, null]);
    expect(fromText('ab', t.char(4), SITE)).toBe('ab  ');
  });
});
