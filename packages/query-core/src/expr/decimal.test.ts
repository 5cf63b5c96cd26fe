import { describe, expect, it } from 'vitest';
import * as d from './decimal.js';

const D = (s: string) => d.parseDec(s);
const S = (x: d.Dec) => d.formatDec(x);

describe('decimal arithmetic (PostgreSQL numeric scale rules)', () => {
  it('add/sub keep the larger scale, mul adds scales', () => {
    expect(S(d.add(D('1.5'), D('2.25')))).toBe('3.75');
    expect(S(d.add(D('1.50'), D('2')))).toBe('3.50');
    expect(S(d.sub(D('1'), D('0.05')))).toBe('0.95');
    expect(S(d.sub(D('-0.5'), D('0.25')))).toBe('-0.75');
    expect(S(d.mul(D('1234.56'), D('0.95')))).toBe('1172.8320');
    expect(S(d.mul(D('-0.1'), D('0.1')))).toBe('-0.01');
  });

  it('division uses select_div_scale', () => {
    // values checked against PostgreSQL 15
    expect(S(d.div(D('1'), D('3.0')))).toBe('0.33333333333333333333');
    expect(S(d.div(D('10.0'), D('3')))).toBe('3.3333333333333333');
    expect(S(d.div(D('5'), D('3')))).toBe('1.6666666666666667');
    expect(S(d.div(D('5.00'), D('3')))).toBe('1.6666666666666667');
    expect(S(d.div(D('1'), D('8')))).toBe('0.12500000000000000000');
    expect(S(d.div(D('123456789'), D('2')))).toBe('61728394.500000000000');
    expect(S(d.div(D('-2'), D('3')))).toBe('-0.66666666666666666667');
    expect(() => d.div(D('1'), D('0.00'))).toThrow(/division by zero/);
  });

  it('rounds half away from zero', () => {
    expect(S(d.round(D('2.5')))).toBe('3');
    expect(S(d.round(D('-2.5')))).toBe('-3');
    expect(S(d.round(D('2.345'), 2))).toBe('2.35');
    expect(S(d.round(D('1234.5'), -2))).toBe('1200');
    expect(S(d.round(D('1.5'), 3))).toBe('1.500');
    expect(S(d.trunc(D('-2.789'), 1))).toBe('-2.7');
    expect(S(d.floor(D('-2.1')))).toBe('-3');
    expect(S(d.ceil(D('2.1')))).toBe('3');
  });

  it('compares numerically and normalises', () => {
    expect(d.compareText('1.50', '1.5')).toBe(0);
    expect(d.compareText('-1', '0.001')).toBe(-1);
    expect(d.compareText('10', '9.999')).toBe(1);
    expect(d.canonicalText('1.500')).toBe('1.5');
    expect(d.canonicalText('-0.00')).toBe('0');
    expect(d.canonicalText('100')).toBe('100');
  });

  it('orders plain texts digit by digit as exact arithmetic does', () => {
    const texts = ['0', '-0.00', '+0', '.5', '0.5', '0.05', '5.', '-.5', '00012.50', '12.5', '12.4999999999999999999',
      '-12.5', '-12.50001', '99999999999999999999.99', '100000000000000000000', '-100000000000000000000', '1e2', '100'];
    // reference: both sides scaled to one scale as BigInts
    const exact = (t: string): [bigint, number] => {
      const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e(\d+))?$/.exec(t)!;
      const v = BigInt((m[2] || '0') + (m[3] ?? '')) * 10n ** BigInt(m[4] ?? 0);
      return [m[1] === '-' ? -v : v, (m[3] ?? '').length];
    };
    for (const a of texts) {
      for (const b of texts) {
        const [x, xs] = exact(a);
        const [y, ys] = exact(b);
        const s = Math.max(xs, ys);
        const xv = x * 10n ** BigInt(s - xs);
        const yv = y * 10n ** BigInt(s - ys);
        expect(d.compareText(a, b), `${a} vs ${b}`).toBe(xv < yv ? -1 : xv > yv ? 1 : 0);
      }
    }
    expect(S(D('+12.50'))).toBe('12.50');
    expect(S(D('-.5'))).toBe('-0.5');
    expect(S(D('5.'))).toBe('5');
  });

  it('parses exponents and rejects garbage', () => {
    expect(S(D('1.5e3'))).toBe('1500');
    expect(S(D('12e-3'))).toBe('0.012');
    expect(S(D('.5'))).toBe('0.5');
    expect(() => D('abc')).toThrow('invalid input syntax for type numeric: "abc"');
  });

  it('applies numeric(p,s) typmods', () => {
    expect(S(d.applyTypmod(D('3.14159'), 5, 2))).toBe('3.14');
    expect(() => d.applyTypmod(D('1000'), 5, 2)).toThrow(/numeric field overflow/);
  });

  it('converts floats with 15 significant digits and takes square roots at PG scale', () => {
    expect(S(d.fromFloat(0.1))).toBe('0.1');
    expect(S(d.fromFloat(1 / 3))).toBe('0.333333333333333');
    expect(S(d.sqrt(D('2')))).toBe('1.414213562373095');
    expect(S(d.sqrt(D('100')))).toBe('10.000000000000000');
  });
});
