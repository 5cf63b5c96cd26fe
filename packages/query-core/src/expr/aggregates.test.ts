import { describe, expect, it } from 'vitest';
import { t } from '@junction/connectors';
import type { AggFn, JType, Value } from '@junction/connectors';
import { makeAccumulator } from './aggregates.js';

function run(fn: AggFn, type: JType | undefined, values: Value[], distinct = false): Value {
  const acc = makeAccumulator(fn, type, { distinct });
  let s = acc.init();
  for (const v of values) s = acc.add(s, v);
  return acc.finish(s);
}

/** Splits the input in two partial states and merges them: must equal the one-pass answer. */
function runMerged(fn: AggFn, type: JType | undefined, values: Value[], distinct = false): Value {
  const acc = makeAccumulator(fn, type, { distinct });
  let a = acc.init();
  let b = acc.init();
  values.forEach((v, i) => {
    if (i % 2) a = acc.add(a, v);
    else b = acc.add(b, v);
  });
  return acc.finish(acc.merge(a, b));
}

describe('aggregates with PostgreSQL result types', () => {
  it.each([
    ['count', t.int32, [1, null, 3], 2n],
    ['count_star', undefined, [1, null, 3], 3n],
    ['sum', t.int32, [1, 2, null], 3n],
    ['sum', t.int32, [null, null], null],
    ['sum', t.int32, [2147483647, 2147483647, 2147483647], 6442450941n],
    ['sum', t.int64, [9223372036854775807n, 1n], '9223372036854775808'],
    ['sum', t.decimal(15, 2), ['1.10', '2.205', '-0.3'], '3.005'],
    // the first value's scale is the sum's until a value with more digits comes
    ['sum', t.decimal(), ['12.50'], '12.50'],
    ['sum', t.decimal(), ['-0.00'], '0.00'],
    ['sum', t.decimal(), [null, '7', '0.25'], '7.25'],
    ['sum', t.decimal(), ['0.25', '7'], '7.25'],
    ['sum', t.decimal(), ['1.5', '-1.5', '2'], '2.0'],
    ['sum', t.decimal(), ['123456789012345.6', '0.4'], '123456789012346.0'],
    ['sum', t.float64, [0.5, 0.25], 0.75],
    ['avg', t.int32, [1, 2, 2], '1.6666666666666667'],
    ['avg', t.decimal(10, 2), ['1.00', '2.00', '2.00'], '1.6666666666666667'],
    ['avg', t.decimal(10, 2), ['100.00', '200.00'], '150.0000000000000000'],
    ['avg', t.int64, [], null],
    ['avg', t.float64, [1, 2], 1.5],
    ['min', t.decimal(), ['10', '9.5', null], '9.5'],
    ['max', t.string, ['a', 'B', 'b'], 'b'],
    ['max', t.char(3), ['b  ', 'a  ', null], 'b  '],
    ['bool_and', t.bool, [true, null, false], false],
    ['bool_or', t.bool, [null, false], false],
    ['sum', t.interval, ['P1D', 'PT12H'], 'P1DT12H'],
  ] as const)('%s(%s) over %s = %s', (fn, type, values, want) => {
    expect(run(fn, type, [...values])).toStrictEqual(want);
    expect(runMerged(fn, type, [...values])).toStrictEqual(want);
  });

  it('count/sum DISTINCT use PostgreSQL equality', () => {
    expect(run('count', t.decimal(), ['1.0', '1.00', '2', null], true)).toBe(2n);
    expect(runMerged('count', t.decimal(), ['1.0', '1.00', '2', null], true)).toBe(2n);
    expect(run('sum', t.int32, [1, 1, 2], true)).toBe(3n);
  });

  it('string_agg keeps each value’s separator', () => {
    const acc = makeAccumulator('string_agg', t.string);
    let s = acc.init();
    s = acc.add(s, 'a', ',');
    s = acc.add(s, null, ',');
    s = acc.add(s, 'b', ';');
    expect(acc.finish(s)).toBe('a;b');
    expect(acc.resultType).toEqual(t.string);
  });

  it('declares PostgreSQL result types', () => {
    expect(makeAccumulator('sum', t.int32).resultType).toEqual(t.int64);
    expect(makeAccumulator('sum', t.int64).resultType.kind).toBe('decimal');
    expect(makeAccumulator('avg', t.int32).resultType.kind).toBe('decimal');
    expect(makeAccumulator('count', t.string).resultType).toEqual(t.int64);
    expect(() => makeAccumulator('sum', t.string)).toThrow('function sum(text) does not exist');
  });
});
