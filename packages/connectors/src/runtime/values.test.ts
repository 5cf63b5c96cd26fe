import { describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import {
  canonicalTimestamp,
  coerce,
  padChar,
  plainDecimal,
  timestamptzToUtc,
  trimFraction,
  withScale,
} from './values.js';

describe('value helpers', () => {
  it('canonical fractions and timestamps', () => {
    expect(trimFraction('12:00:00.500000')).toBe('12:00:00.5');
    expect(trimFraction('12:00:00.000000')).toBe('12:00:00');
    expect(trimFraction('12:00:00')).toBe('12:00:00');
    expect(canonicalTimestamp('2021-03-28 02:30:00.123450')).toBe('2021-03-28T02:30:00.12345');
  });

  it('timestamptz text with any offset → UTC', () => {
    expect(timestamptzToUtc('2021-03-28 03:00:00+02')).toBe('2021-03-28T01:00:00Z');
    expect(timestamptzToUtc('2021-03-28 01:59:59.123456+01')).toBe('2021-03-28T00:59:59.123456Z');
    expect(timestamptzToUtc('2021-01-01 05:29:59+05:30')).toBe('2020-12-31T23:59:59Z');
    expect(timestamptzToUtc('1890-01-01 00:00:00-00:53:28')).toBe('1890-01-01T00:53:28Z');
    expect(timestamptzToUtc('0001-01-01 00:00:00+00')).toBe('0001-01-01T00:00:00Z');
    expect(timestamptzToUtc('2020-02-29 23:00:00-01')).toBe('2020-03-01T00:00:00Z');
    // BC dates are left as the server spelled them
    expect(timestamptzToUtc('0044-03-15 12:00:00+00 BC')).toBe('0044-03-15 12:00:00+00 BC');
  });

  it('decimal text never has an exponent and keeps its scale', () => {
    expect(plainDecimal(1e21)).toBe('1000000000000000000000');
    expect(plainDecimal(1.5e-7)).toBe('0.00000015');
    expect(plainDecimal('-2.50E+3')).toBe('-2500');
    expect(plainDecimal('12.50')).toBe('12.50');
    expect(withScale('5', 2)).toBe('5.00');
    expect(withScale('5.1', 3)).toBe('5.100');
    expect(withScale('5.123', 2)).toBe('5.123');
  });

  it('pads char(n) by characters, not UTF-16 units', () => {
    expect(padChar('ab', 5)).toBe('ab   ');
    expect(padChar('😀', 3)).toBe('😀  ');
    expect(padChar('abcde', 3)).toBe('abcde');
  });

  it('coerces to the expected type', () => {
    expect(coerce(42, t.int64)).toBe(42n);
    expect(coerce('9223372036854775807', t.int64)).toBe(9223372036854775807n);
    expect(coerce(5n, t.decimal(10, 2))).toBe('5.00');
    expect(coerce(0.1, t.decimal(10, 2))).toBe('0.10');
    expect(coerce(1, t.bool)).toBe(true);
    expect(coerce('x', t.char(3))).toBe('x  ');
    expect(coerce('2021-01-01 00:00:00+01', t.timestamptz)).toBe('2020-12-31T23:00:00Z');
    expect(coerce(null, t.int64)).toBe(null);
  });
});
