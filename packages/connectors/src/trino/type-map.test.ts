import { describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import { parseTrinoJson } from './protocol.js';
import { intervalToIso, mapTrinoType, zonedToUtc } from './type-map.js';

const decode = (type: string, raw: unknown) => mapTrinoType(type).decode(raw);

describe('Trino result types', () => {
  it('maps the spellings of the protocol\'s columns to Junction types', () => {
    expect(['decimal(12, 2)', 'varchar(25)', 'varchar', 'char(10)', 'bigint', 'integer', 'smallint', 'tinyint', 'double', 'real', 'boolean'].map((s) => mapTrinoType(s).type)).toEqual([
      t.decimal(12, 2), t.varchar(25), { kind: 'string', length: undefined }, t.char(10), t.int64, t.int32, t.int16, t.int16, t.float64, t.float32, t.bool,
    ]);
    expect(['date', 'time(6)', 'timestamp(6)', 'timestamp(3) with time zone', 'varbinary', 'uuid', 'json', 'unknown'].map((s) => mapTrinoType(s).type)).toEqual([
      t.date, { kind: 'time', precision: 6 }, { kind: 'timestamp', precision: 6 }, { kind: 'timestamptz', precision: 3 }, t.binary, t.uuid, t.json, t.null,
    ]);
    const arr = mapTrinoType('array(varchar(3))');
    expect(arr.type).toEqual(t.unknown);
    expect(arr.warning).toMatch(/array\(varchar\(3\)\)" is read as text/);
    expect(arr.decode(['a', null])).toBe('["a",null]');
  });

  it('decodes values into Junction\'s value model exactly', () => {
    expect(decode('decimal(12, 2)', '1909572716.10')).toBe('1909572716.10');
    expect(decode('bigint', 42)).toBe(42n);
    expect(decode('bigint', 9223372036854775807n)).toBe(9223372036854775807n);
    expect(decode('double', 'NaN')).toBeNaN();
    expect(decode('double', '-Infinity')).toBe(-Infinity);
    expect(decode('char(6)', 'ab')).toBe('ab    ');
    expect(decode('varchar(6)', 'ab  ')).toBe('ab  ');
    expect(decode('time(6)', '10:11:12.120000')).toBe('10:11:12.12');
    expect(decode('timestamp(6)', '2024-01-01 10:11:12.000000')).toBe('2024-01-01T10:11:12');
    expect(decode('timestamp(3) with time zone', '2024-01-01 10:11:12.500 UTC')).toBe('2024-01-01T10:11:12.5Z');
    expect(decode('timestamp(6) with time zone', '2024-01-01 00:30:00.000000 +02:00')).toBe('2023-12-31T22:30:00Z');
    expect(decode('varbinary', 'AP8=')).toEqual(new Uint8Array([0, 255]));
    expect(decode('uuid', '12345678-1234-1234-1234-123456789ABC')).toBe('12345678-1234-1234-1234-123456789abc');
    expect(decode('boolean', true)).toBe(true);
  });

  it("writes years before 1 as PostgreSQL does (1 BC, not Trino's astronomical year 0)", () => {
    expect(decode('date', '0000-12-31')).toBe('0001-12-31 BC');
    expect(decode('date', '-0001-01-01')).toBe('0002-01-01 BC');
    expect(decode('date', '-11999-01-01')).toBe('12000-01-01 BC');
    expect(decode('date', '0001-01-01')).toBe('0001-01-01');
    expect(decode('timestamp(6)', '0000-01-01 00:00:00.500000')).toBe('0001-01-01T00:00:00.5 BC');
    expect(decode('timestamp(6)', '-0001-01-01 00:00:00.500000')).toBe('0002-01-01T00:00:00.5 BC');
    expect(decode('timestamp(3)', '1970-01-01 00:00:00.000')).toBe('1970-01-01T00:00:00');
  });

  it('converts zone-named timestamps and intervals', () => {
    expect(zonedToUtc('2024-07-01 12:00:00.000 Europe/Berlin')).toBe('2024-07-01T10:00:00Z');
    expect(zonedToUtc('2024-01-01 12:00:00 America/New_York')).toBe('2024-01-01T17:00:00Z');
    expect(intervalToIso('1 02:03:04.500', true)).toBe('P1DT2H3M4.5S');
    expect(intervalToIso('-0 00:00:01.000', true)).toBe('-PT1S');
    expect(intervalToIso('0 00:00:00.000', true)).toBe('PT0S');
    expect(intervalToIso('1-2', false)).toBe('P1Y2M');
    expect(intervalToIso('0-0', false)).toBe('P0M');
  });

  it('keeps bigints past 2^53 exact when parsing a page, and leaves doubles alone', () => {
    expect(parseTrinoJson('{"data":[[9223372036854775807,-9007199254740993,9007199254740991,1.0E20,0.1]]}')).toEqual({
      data: [[9223372036854775807n, -9007199254740993n, 9007199254740991, 1e20, 0.1]],
    });
  });
});
