import { describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import { inlineParams, nullLiteral, quoteString, trinoLiteral, untypedLiteral } from './literals.js';

describe('Trino literals (the one place values are spliced)', () => {
  it('doubles quotes and nothing else: a backslash is an ordinary character in Trino', () => {
    expect(quoteString("it's")).toBe("'it''s'");
    expect(quoteString("\\' OR 1=1 --")).toBe("'\\'' OR 1=1 --'");
    expect(quoteString("''")).toBe("''''''");
    expect(quoteString('żółw 🐢\n')).toBe("'żółw 🐢\n'");
    expect(() => quoteString('a\u0000b')).toThrow(/NUL/);
  });

  it('types every literal as Junction typed it', () => {
    expect(trinoLiteral('1909572716.10', t.decimal(12, 2))).toBe("DECIMAL '1909572716.10'");
    expect(trinoLiteral('-0.5', t.decimal())).toBe("DECIMAL '-0.5'");
    expect(trinoLiteral(9223372036854775807n, t.int64)).toBe("BIGINT '9223372036854775807'");
    expect(trinoLiteral(-3, t.int32)).toBe("INTEGER '-3'");
    expect(trinoLiteral(7, t.int16)).toBe("SMALLINT '7'");
    expect(trinoLiteral(1.5, t.float64)).toBe("DOUBLE '1.5'");
    expect(trinoLiteral(1e300, t.float64)).toBe("DOUBLE '1e+300'");
    expect(trinoLiteral(NaN, t.float64)).toBe('nan()');
    expect(trinoLiteral(-Infinity, t.float64)).toBe('-infinity()');
    expect(trinoLiteral(2.5, t.float32)).toBe("REAL '2.5'");
    expect(trinoLiteral(false, t.bool)).toBe('FALSE');
    expect(trinoLiteral('1995-03-01', t.date)).toBe("DATE '1995-03-01'");
    expect(trinoLiteral('10:11:12.123456', t.time)).toBe("TIME '10:11:12.123456'");
    expect(trinoLiteral('1995-03-01T10:11:12.5', t.timestamp)).toBe("TIMESTAMP '1995-03-01 10:11:12.5'");
    expect(trinoLiteral('1995-03-01T10:11:12Z', t.timestamptz)).toBe("TIMESTAMP '1995-03-01 10:11:12 UTC'");
    expect(trinoLiteral('ABCDEF01-1234-1234-1234-123456789ABC', t.uuid)).toBe("UUID 'abcdef01-1234-1234-1234-123456789abc'");
    expect(trinoLiteral('{"a":"b\'c"}', t.json)).toBe("JSON '{\"a\":\"b''c\"}'");
    expect(trinoLiteral(new Uint8Array([0, 255]), t.binary)).toBe("X'00ff'");
    expect(trinoLiteral('ab  ', t.char(4))).toBe("'ab'");
    expect(trinoLiteral('ab  ', t.varchar(4))).toBe("'ab  '");
    expect(trinoLiteral(null, t.decimal(5, 1))).toBe('CAST(NULL AS DECIMAL(5,1))');
    expect(nullLiteral(t.decimal())).toBe('NULL');
  });

  it('refuses text that is not what its type says, instead of splicing it', () => {
    expect(() => trinoLiteral("1' OR '1'='1", t.decimal())).toThrow(/plain decimal/);
    expect(() => trinoLiteral("1995-03-01' OR 'x", t.date)).toThrow(/not a valid date/);
    expect(() => trinoLiteral('1 OR 1=1', t.int64)).toThrow(/not a valid bigint/);
    expect(() => trinoLiteral("x'", t.timestamp)).toThrow(/not a valid timestamp/);
    expect(() => trinoLiteral('P1D', t.interval)).toThrow(/no literal for a value of type interval/);
  });

  it('inlines ? placeholders outside strings, quoted names and comments', () => {
    expect(inlineParams(`SELECT ?, '?', "?" -- ?\n, /* ? */ ?`, ['a\'b', 2n])).toBe(`SELECT 'a''b', '?', "?" -- ?\n, /* ? */ BIGINT '2'`);
    expect(untypedLiteral(3)).toBe("INTEGER '3'");
    expect(untypedLiteral(3.25)).toBe("DOUBLE '3.25'");
    expect(() => inlineParams('SELECT ?', [])).not.toThrow();
    expect(() => inlineParams('SELECT ?, ?', [1])).toThrow(/more placeholders than the 1 values/);
    expect(() => inlineParams('SELECT 1', [1])).toThrow(/0 placeholders but 1 values/);
  });
});
