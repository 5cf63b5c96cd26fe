import { describe, expect, it } from 'vitest';
import { t, type JType, type Row, type Value } from '../contract/types.js';
import { compareCodePoints, compareDecimalText, compileExpr } from './filter.js';
import { parseDocumentQuery } from './query-text.js';

const COLS: Record<string, { index: number; type: JType }> = {
  amount: { index: 0, type: t.decimal(15, 2) },
  name: { index: 1, type: t.string },
  code: { index: 2, type: t.char(5) },
  at: { index: 3, type: t.timestamptz },
  day: { index: 4, type: t.date },
  n: { index: 5, type: t.int64 },
  f: { index: 6, type: t.float64 },
};

function where(text: string, params: Value[]): (row: Row) => Value {
  const q = parseDocumentQuery(`SELECT "name" FROM "t" WHERE ${text}`);
  return compileExpr(q.where!, (n) => COLS[n], params).eval;
}

const row = (over: Partial<Record<keyof typeof COLS, Value>>): Row => {
  const r: Row = new Array(7).fill(null);
  for (const [k, v] of Object.entries(over)) r[COLS[k].index] = v as Value;
  return r;
};

describe('pushed predicates', () => {
  it('compares decimals exactly, never as floats', () => {
    // as doubles 9007199254740993.01 and 9007199254740992.99 are the same number
    const gt = where('"amount" > $1', ['9007199254740992.99']);
    expect(gt(row({ amount: '9007199254740993.01' }))).toBe(true);
    expect(gt(row({ amount: '9007199254740992.99' }))).toBe(false);
    expect(where('"amount" = $1', ['1909572716.1'])(row({ amount: '1909572716.10' }))).toBe(true);
    expect(where('"amount" < $1::int64', [0n])(row({ amount: '-0.01' }))).toBe(true);
    expect(where('"n" >= $1::decimal(10,1)', ['2.5'])(row({ n: 3n }))).toBe(true);
    expect(where('"n" >= $1::decimal(10,1)', ['2.5'])(row({ n: 2n }))).toBe(false);
  });

  it("follows three-valued logic: NULL compares to NULL, AND/OR/NOT/IN keep SQL's rules", () => {
    const p = ['x'];
    expect(where('"name" = $1', p)(row({}))).toBe(null);
    expect(where('NOT ("name" = $1)', p)(row({}))).toBe(null);
    expect(where('("name" = $1 OR "name" IS NULL)', p)(row({}))).toBe(true);
    expect(where('("name" = $1 AND "name" IS NULL)', p)(row({ name: 'y' }))).toBe(false);
    expect(where('"name" IN ($1, $2)', ['a', null])(row({ name: 'b' }))).toBe(null);
    expect(where('"name" IN ($1, $2)', ['a', null])(row({ name: 'a' }))).toBe(true);
    expect(where('"name" NOT IN ($1, $2)', ['a', 'c'])(row({ name: 'b' }))).toBe(true);
  });

  it('orders strings by code point, ignores trailing blanks of char(n) only, and orders timestamps in time', () => {
    expect(where('"name" < $1', ['\u{1F600}'])(row({ name: '\uFFFD' }))).toBe(true);
    expect(where('"name" = $1', ['A'])(row({ name: 'a' }))).toBe(false);
    expect(where('"code" = $1', ['ab'])(row({ code: 'ab   ' }))).toBe(true);
    expect(where('"name" = $1', ['ab'])(row({ name: 'ab ' }))).toBe(false);
    expect(where('"at" > $1', ['2024-01-01T00:00:00Z'])(row({ at: '2024-01-01T00:00:00.5Z' }))).toBe(true);
    expect(where('"day" = $1::timestamp', ['2024-01-01T00:00:00'])(row({ day: '2024-01-01' }))).toBe(true);
    expect(where('"f" > $1', [1])(row({ f: NaN }))).toBe(true);
  });

  it('compares decimal text and code points directly', () => {
    expect([
      compareDecimalText('-0.00', '0'),
      compareDecimalText('-1.5', '-1.25'),
      compareDecimalText('10', '9.999'),
    ]).toEqual([0, -1, 1]);
    expect(Math.sign(compareCodePoints('\u{10000}', '\uFFFF'))).toBe(1);
  });
});
