import { describe, expect, it } from 'vitest';
import { t } from '@junction/connectors';
import { compareValues, makeKey, makeKeyFn } from './compare.js';

describe('compareValues', () => {
  it('orders each representation as PostgreSQL (C collation) does', () => {
    expect(compareValues('Z', 'a', t.string)).toBeLessThan(0);
    expect(compareValues('abc', 'abd', t.string)).toBeLessThan(0);
    expect(compareValues('ab', 'ab ', t.string)).toBeLessThan(0);
    expect(compareValues('ab', 'ab   ', t.char(5))).toBe(0);
    expect(compareValues('\uffff', '\u{10000}', t.string)).toBeLessThan(0);
    expect(compareValues('10.0', '9.5', t.decimal())).toBeGreaterThan(0);
    expect(compareValues('-0.50', '-0.5', t.decimal())).toBe(0);
    expect(compareValues(2n ** 62n, 2n ** 62n + 1n, t.int64)).toBeLessThan(0);
    expect(compareValues(NaN, Infinity, t.float64)).toBeGreaterThan(0);
    expect(compareValues('1995-03-01', '1995-12-01', t.date)).toBeLessThan(0);
    expect(compareValues('1995-03-01T00:00:00', '1995-03-01T00:00:00.5', t.timestamp)).toBeLessThan(0);
    expect(compareValues(false, true, t.bool)).toBeLessThan(0);
    expect(compareValues('P1M', 'P29D', t.interval)).toBeGreaterThan(0);
  });
});

describe('makeKey', () => {
  it('gives equal keys exactly for PostgreSQL-equal values', () => {
    expect(makeKey(['1.50'], [t.decimal()])).toBe(makeKey(['1.5'], [t.decimal()]));
    expect(makeKey(['ab  '], [t.char(4)])).toBe(makeKey(['ab'], [t.char(2)]));
    expect(makeKey(['ab '], [t.string])).not.toBe(makeKey(['ab'], [t.string]));
    expect(makeKey([5], [t.int32])).toBe(makeKey([5n], [t.int64]));
    expect(makeKey([5], [t.int32])).toBe(makeKey(['5.00'], [t.decimal()]));
    expect(makeKey([-0], [t.float64])).toBe(makeKey([0], [t.float64]));
    expect(makeKey([null], [t.int32])).not.toBe(makeKey([0], [t.int32]));
  });
  it('keeps multi-column keys apart whatever the content', () => {
    const k = makeKeyFn([t.string, t.string]);
    expect(k(['a|', 'b'])).not.toBe(k(['a', '|b']));
    expect(k(['a', null])).not.toBe(k([null, 'a']));
    expect(k(['1:a', ''])).not.toBe(k(['1', ':a']));
    expect(k(['x', 'y'])).toBe(k(['x', 'y']));
  });
});
