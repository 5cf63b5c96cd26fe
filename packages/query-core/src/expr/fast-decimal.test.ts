import { describe, expect, it } from 'vitest';
import * as dec from './decimal.js';
import { formatSmall, parseSmall, reg } from './fast-decimal.js';
import { compareDecimalText, makeKey } from './compare.js';
import { t } from '@junction/connectors';

describe('small-decimal fast path', () => {
  it('parses plain decimal text into exact integers and refuses what it cannot hold', () => {
    const parse = (s: string) => (parseSmall(s) ? [reg.v, reg.s] : null);
    expect(parse('-12.50')).toEqual([-1250, 2]);
    expect(parse('0.0005')).toEqual([5, 4]);
    expect(parse('123456789012345')).toEqual([123456789012345, 0]);
    expect(parse('1234567890123456')).toBe(null);
    expect(parse('1e3')).toBe(null);
    expect(parse('')).toBe(null);
    expect(formatSmall(-5, 3)).toBe('-0.005');
    expect(formatSmall(1250, 2)).toBe('12.50');
  });

  it('agrees with the BigInt path on comparisons and keys, including past 15 digits', () => {
    const pairs = [
      ['1.50', '1.5'],
      ['-0.001', '0'],
      ['99999999999999.99', '100000000000000'],
      ['12345678901234567.5', '12345678901234567.49'],
      ['-3', '-3.000'],
    ];
    for (const [a, b] of pairs) {
      expect(compareDecimalText(a, b)).toBe(dec.compareText(a, b));
      expect(makeKey([a], [t.decimal()]) === makeKey([b], [t.decimal()])).toBe(dec.compareText(a, b) === 0);
    }
  });
});

describe('decimal arithmetic fast path = BigInt path', () => {
  it('gives identical text for add/sub/mul over random operands near the 2^53 boundary', async () => {
    const { compileExpr } = await import('./compile.js');
    const { scalarReturnType } = await import('./types.js');
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const num = () => {
      const intDigits = 1 + Math.floor(rnd() * 17);
      const scale = Math.floor(rnd() * 6);
      let s = String(1 + Math.floor(rnd() * 9));
      for (let i = 1; i < intDigits; i++) s += Math.floor(rnd() * 10);
      if (scale) s += '.' + Array.from({ length: scale }, () => Math.floor(rnd() * 10)).join('');
      return rnd() < 0.3 ? '-' + s : s;
    };
    for (const fn of ['add', 'sub', 'mul'] as const) {
      const args = [
        { kind: 'ref' as const, id: 1, type: t.decimal() },
        { kind: 'ref' as const, id: 2, type: t.decimal() },
      ];
      const f = compileExpr(
        { kind: 'call', fn, args, type: scalarReturnType(fn, [t.decimal(), t.decimal()]) },
        new Map([
          [1, 0],
          [2, 1],
        ]),
      );
      const slow = { add: dec.add, sub: dec.sub, mul: dec.mul }[fn];
      for (let i = 0; i < 2000; i++) {
        const a = num();
        const b = num();
        expect(f([a, b], [])).toBe(dec.formatDec(slow(dec.parseDec(a), dec.parseDec(b))));
      }
    }
  });
});
