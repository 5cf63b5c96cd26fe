import { describe, expect, it } from 'vitest';
import { t } from '@junction/connectors';
import type { JType, JunctionError, ScalarFn, Value } from '@junction/connectors';
import type { Expr } from '../plan/logical.js';
import { compileExpr } from './compile.js';
import { scalarReturnType } from './types.js';

const lit = (value: Value, type: JType): Expr => ({ kind: 'literal', value, type });
const i32 = (n: number) => lit(n, t.int32);
const i64 = (n: bigint) => lit(n, t.int64);
const num = (s: string) => lit(s, t.decimal());
const str = (s: string | null) => lit(s, t.string);
const chr = (s: string, n: number) => lit(s, t.char(n));
const date = (s: string) => lit(s, t.date);
const NULL = lit(null, t.null);
const call = (fn: ScalarFn, ...args: Expr[]): Expr => ({
  kind: 'call',
  fn,
  args,
  type: scalarReturnType(
    fn,
    args.map((a) => a.type),
  ),
});

function ev(e: Expr, row: Value[] = [], params: Value[] = []): Value {
  return compileExpr(e, new Map(row.map((_, i) => [i + 1, i])), { now: new Date('2024-02-29T12:34:56Z') })(row, params);
}

function err(e: Expr): JunctionError {
  try {
    ev(e);
  } catch (x) {
    return x as JunctionError;
  }
  throw new Error('expected an error');
}

describe('three-valued logic', () => {
  const T = lit(true, t.bool);
  const F = lit(false, t.bool);
  const N = lit(null, t.bool);
  it.each([
    ['and', T, N, null],
    ['and', F, N, false],
    ['and', N, F, false],
    ['and', T, T, true],
    ['or', T, N, true],
    ['or', F, N, null],
    ['or', F, F, false],
  ] as const)('%s(%j, %j) = %j', (fn, a, b, want) => {
    expect(ev(call(fn, a, b))).toBe(want);
  });
  it('NOT NULL is NULL; comparisons with NULL are NULL; IS DISTINCT FROM is not', () => {
    expect(ev(call('not', N))).toBe(null);
    expect(ev(call('eq', i32(1), NULL))).toBe(null);
    expect(ev(call('is_distinct_from', i32(1), NULL))).toBe(true);
    expect(ev(call('is_distinct_from', NULL, NULL))).toBe(false);
    expect(ev(call('is_not_distinct_from', num('1.0'), num('1')))).toBe(true);
  });
});

describe('comparison', () => {
  it('compares decimals numerically, mixed integers and decimals', () => {
    expect(ev(call('eq', num('1.50'), num('1.5')))).toBe(true);
    expect(ev(call('lt', num('9.99'), num('10')))).toBe(true);
    expect(ev(call('eq', i32(5), num('5.00')))).toBe(true);
    expect(ev(call('lt', i32(5), i64(6n)))).toBe(true);
    expect(ev(call('eq', i64(9007199254740993n), i64(9007199254740992n)))).toBe(false);
  });
  it('strings by code point, case-sensitive; char(n) ignores trailing blanks; varchar does not', () => {
    expect(ev(call('lt', str('B'), str('a')))).toBe(true);
    expect(ev(call('lt', str('\uffff'), str('\u{1F600}')))).toBe(true);
    expect(ev(call('eq', chr('ab  ', 4), chr('ab', 2)))).toBe(true);
    expect(ev(call('eq', str('ab '), str('ab')))).toBe(false);
    // bpchar meets text as text: the padding is dropped, the varchar side keeps its blank
    expect(ev(call('eq', chr('ab  ', 4), str('ab')))).toBe(true);
    expect(ev(call('eq', chr('ab  ', 4), str('ab ')))).toBe(false);
  });
  it('dates against timestamps compare as timestamps', () => {
    expect(ev(call('lt', date('1997-12-31'), lit('1998-01-01T00:00:00', t.timestamp)))).toBe(true);
    expect(ev(call('eq', date('1998-01-01'), lit('1998-01-01T00:00:00', t.timestamp)))).toBe(true);
  });
});

describe('arithmetic', () => {
  it.each([
    [call('div', i32(7), i32(-2)), -3],
    [call('mod', i32(-7), i32(3)), -1],
    [call('add', i32(1), i64(2n)), 3n],
    [call('mul', i32(3), num('0.25')), '0.75'],
    [call('sub', num('1'), num('0.05')), '0.95'],
    [call('mul', num('100.10'), call('sub', i32(1), num('0.05'))), '95.0950'],
    [call('div', i32(1), num('3.0')), '0.33333333333333333333'],
    [call('add', num('0.1'), lit(0.2, t.float64)), 0.30000000000000004],
    [call('neg', num('1.50')), '-1.50'],
    [call('abs', i64(-5n)), 5n],
    [call('add', date('2020-01-31'), i32(1)), '2020-02-01'],
    [call('sub', date('2020-03-01'), date('2020-01-01')), 60],
    [call('add', lit('2020-01-31T10:00:00', t.timestamp), lit('P1M', t.interval)), '2020-02-29T10:00:00'],
    [call('sub', lit('2020-03-01T00:00:00', t.timestamp), lit('2020-02-28T12:00:00', t.timestamp)), 'P1DT12H'],
    [call('add', date('2020-01-01'), lit('PT36H', t.interval)), '2020-01-02T12:00:00'],
  ] as const)('%#: exact result', (e, want) => {
    expect(ev(e)).toStrictEqual(want);
  });
  it('raises PostgreSQL errors', () => {
    const z = err(call('div', i32(1), i32(0)));
    expect([z.kind, z.code, z.message]).toEqual(['user', 'division_by_zero', 'division by zero']);
    expect(err(call('div', num('1'), num('0'))).code).toBe('division_by_zero');
    expect(err(call('mod', i64(1n), i64(0n))).code).toBe('division_by_zero');
    expect(err(call('add', i32(2147483647), i32(1))).message).toBe('integer out of range');
    expect(err(call('mul', i64(9223372036854775807n), i64(2n))).message).toBe('bigint out of range');
  });
  it('raises a run-time check only on the CASE arm that reaches it', () => {
    const raise: Expr = { kind: 'raise', code: 'cardinality_violation', message: 'more than one row returned by a subquery used as an expression', type: t.int32 };
    const check = (n: number): Expr => ({ kind: 'case', whens: [{ when: call('gt', i64(BigInt(n)), i64(1n)), then: raise }], else: i32(7), type: t.int32 });
    expect(ev(check(1))).toBe(7);
    const e = err(check(2));
    expect([e.kind, e.code, e.message]).toEqual(['user', 'cardinality_violation', 'more than one row returned by a subquery used as an expression']);
  });
  it('NULL propagates', () => {
    expect(ev(call('add', i32(1), lit(null, t.int32)))).toBe(null);
    expect(ev(call('concat', str('a'), str(null)))).toBe(null);
  });
});

describe('math functions', () => {
  it.each([
    [call('round', num('2.5')), '3'],
    [call('round', num('-2.5')), '-3'],
    [call('round', num('2.345'), i32(2)), '2.35'],
    [call('round', lit(2.5, t.float64)), 2],
    [call('round', lit(3.5, t.float64)), 4],
    [call('trunc', num('-2.789'), i32(1)), '-2.7'],
    [call('floor', num('-2.1')), '-3'],
    [call('ceil', lit(2.1, t.float64)), 3],
    [call('sign', num('-3.2')), '-1'],
    [call('power', num('2'), i32(10)), '1024.0000000000000000'],
    [call('power', lit(2, t.float64), lit(0.5, t.float64)), Math.SQRT2],
    [call('sqrt', num('2')), '1.414213562373095'],
  ] as const)('%#', (e, want) => {
    expect(ev(e)).toStrictEqual(want);
  });
});

describe('strings', () => {
  it.each([
    [call('like', str('PROMO BRUSHED TIN'), str('%TIN')), true],
    [call('like', str('50%'), str('50\\%')), true],
    [call('like', str('50x'), str('50\\%')), false],
    [call('like', str('a_c'), str('a\\_c')), true],
    [call('like', str('abc'), str('a_c')), true],
    [call('like', str('ABC'), str('abc')), false],
    [call('ilike', str('ABC'), str('a%')), true],
    [call('like', str('a.c'), str('a.c')), true],
    [call('like', str('abc'), str('a.c')), false],
    [call('like', str('line1\nline2'), str('%line2')), true],
    // bpchar LIKE sees the padding, as PostgreSQL does
    [call('like', chr('ab ', 3), str('ab')), false],
    [call('concat', chr('ab ', 3), str('x')), 'abx'],
    [call('concat', str('n='), i32(5)), 'n=5'],
    [call('length', chr('ab  ', 4)), 2],
    [call('length', str('ab  ')), 4],
    [call('length', str('😀a')), 2],
    [call('substring', str('hello'), i32(2), i32(3)), 'ell'],
    [call('substring', str('hello'), i32(0), i32(3)), 'he'],
    [call('substring', str('hello'), i32(3)), 'llo'],
    [call('position', str('l'), str('hello')), 3],
    [call('position', str('z'), str('hello')), 0],
    [call('trim', str('  x  ')), 'x'],
    [call('ltrim', str('xxaxx'), str('x')), 'axx'],
    [call('rtrim', str('xxaxx'), str('x')), 'xxa'],
    [call('lpad', str('abc'), i32(5), str('xy')), 'xyabc'],
    [call('lpad', str('abcdef'), i32(3)), 'abc'],
    [call('rpad', str('ab'), i32(4)), 'ab  '],
    [call('left', str('abc'), i32(-1)), 'ab'],
    [call('right', str('abc'), i32(2)), 'bc'],
    [call('replace', str('a-b-c'), str('-'), str('+')), 'a+b+c'],
    [call('upper', str('äb')), 'ÄB'],
    [call('lower', str('ABC')), 'abc'],
    [call('starts_with', str('alphabet'), str('alph')), true],
  ] as const)('%#', (e, want) => {
    expect(ev(e)).toStrictEqual(want);
  });
  it('rejects a pattern ending in the escape character', () => {
    expect(err(call('like', str('a'), str('a\\'))).message).toBe('LIKE pattern must not end with escape character');
  });
});

describe('dates', () => {
  it.each([
    [call('date_part', str('year'), date('1995-03-01')), 1995],
    [call('date_part', str('dow'), date('2020-01-05')), 0],
    [call('date_part', str('doy'), date('2020-03-01')), 61],
    [call('date_part', str('quarter'), date('2020-08-01')), 3],
    [call('date_part', str('week'), date('2021-01-03')), 53],
    [call('date_part', str('second'), lit('2020-01-01T10:00:12.5', t.timestamp)), 12.5],
    [call('date_part', str('epoch'), lit('1970-01-02T00:00:01', t.timestamp)), 86401],
    [call('date_trunc', str('month'), lit('2020-05-17T10:11:12', t.timestamp)), '2020-05-01T00:00:00'],
    [call('date_trunc', str('week'), lit('2020-05-17T10:11:12', t.timestamp)), '2020-05-11T00:00:00'],
    [call('date_trunc', str('quarter'), date('2020-05-17')), '2020-04-01T00:00:00Z'],
    [call('make_date', i32(2024), i32(2), i32(29)), '2024-02-29'],
    [call('current_date'), '2024-02-29'],
    [call('current_timestamp'), '2024-02-29T12:34:56Z'],
  ] as const)('%#', (e, want) => {
    expect(ev(e)).toStrictEqual(want);
  });
  it('EXTRACT (decimal-typed date_part) returns numeric text with PostgreSQL scale', () => {
    const e: Expr = {
      kind: 'call',
      fn: 'date_part',
      args: [str('second'), lit('2020-01-01T10:00:12.5', t.timestamp)],
      type: t.decimal(),
    };
    expect(ev(e)).toBe('12.500000');
    const y: Expr = { kind: 'call', fn: 'date_part', args: [str('year'), date('1995-03-01')], type: t.decimal() };
    expect(ev(y)).toBe('1995');
  });
  it('rejects impossible dates', () => {
    expect(err(call('make_date', i32(2023), i32(2), i32(29))).code).toBe('datetime_field_overflow');
  });
});

describe('IN, CASE, COALESCE, casts, refs and params', () => {
  const inExpr = (x: Expr, list: Expr[], negated = false): Expr => ({
    kind: 'in',
    expr: x,
    list,
    negated,
    type: t.bool,
  });
  it('IN follows PostgreSQL NULL rules', () => {
    expect(ev(inExpr(i32(2), [i32(1), i32(2)]))).toBe(true);
    expect(ev(inExpr(i32(3), [i32(1), NULL]))).toBe(null);
    expect(ev(inExpr(i32(3), [i32(1), NULL], true))).toBe(null);
    expect(ev(inExpr(i32(3), [i32(1), i32(2)], true))).toBe(true);
    expect(ev(inExpr(NULL, [i32(1)]))).toBe(null);
    expect(ev(inExpr(num('1.0'), [i32(1)]))).toBe(true);
    expect(ev(inExpr({ kind: 'ref', id: 1, type: t.char(3) }, [chr('a', 1)]), ['a  '])).toBe(true);
  });
  it('CASE picks the first true arm; NULL operand never matches', () => {
    const c: Expr = {
      kind: 'case',
      whens: [
        { when: call('gt', { kind: 'ref', id: 1, type: t.int32 }, i32(10)), then: str('big') },
        { when: call('gt', { kind: 'ref', id: 1, type: t.int32 }, i32(0)), then: str('small') },
      ],
      else: str('none'),
      type: t.string,
    };
    expect([ev(c, [11]), ev(c, [5]), ev(c, [0]), ev(c, [null])]).toEqual(['big', 'small', 'none', 'none']);
    const simple: Expr = { kind: 'case', operand: NULL, whens: [{ when: NULL, then: i32(1) }], type: t.int32 };
    expect(ev(simple)).toBe(null);
  });
  it('COALESCE, NULLIF, GREATEST', () => {
    expect(ev(call('coalesce', lit(null, t.int32), i64(7n)))).toBe(7n);
    expect(ev(call('nullif', i32(1), i32(1)))).toBe(null);
    expect(ev(call('nullif', i32(1), i32(2)))).toBe(1);
    expect(ev(call('greatest', num('1.5'), i32(2), NULL))).toBe('2');
    expect(ev(call('least', NULL, NULL))).toBe(null);
  });
  it('casts with PostgreSQL rules', () => {
    const cast = (e: Expr, type: JType): Expr => ({ kind: 'cast', expr: e, type });
    expect(ev(cast(str('1995-03-01'), t.date))).toBe('1995-03-01');
    expect(ev(cast(num('2.5'), t.int32))).toBe(3);
    expect(ev(cast(lit(2.5, t.float64), t.int32))).toBe(2);
    expect(ev(cast(str(' 42 '), t.int64))).toBe(42n);
    expect(ev(cast(str('3.14159'), t.decimal(5, 2)))).toBe('3.14');
    expect(ev(cast(str('abc'), t.char(5)))).toBe('abc  ');
    expect(ev(cast(str('abcdef'), t.varchar(3)))).toBe('abc');
    expect(ev(cast(lit(true, t.bool), t.string))).toBe('true');
    expect(ev(cast(lit('1998-01-01T00:00:00', t.timestamp), t.string))).toBe('1998-01-01 00:00:00');
    expect(ev(cast(lit(0.1, t.float64), t.decimal()))).toBe('0.1');
    expect(err(cast(str('x'), t.int32)).message).toBe('invalid input syntax for type integer: "x"');
    expect(err(cast(str('2023-02-30'), t.date)).code).toBe('datetime_field_overflow');
    expect(err(cast(num('3000000000'), t.int32)).message).toBe('integer out of range');
  });
  it('reads refs through the layout and params by index, normalising parameter values', () => {
    const e = call('add', { kind: 'ref', id: 2, type: t.int64 }, { kind: 'param', index: 0, type: t.int64 });
    expect(ev(e, ['ignored', 10n], [5])).toBe(15n);
    const p: Expr = { kind: 'param', index: 1, type: t.int32 };
    expect(err(p).code).toBe('missing_parameter');
  });
});
