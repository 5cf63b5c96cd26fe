import { describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import { decodeNative, mapNativeType, mapTediousType, nativeTypeText, timestamptzText } from './type-map.js';
import { bulkValue, parameterFor, utcDate } from './values.js';
import { TYPES } from 'tedious';

// tedious (useUTC) hands time/datetime2 values over as a Date plus sub-millisecond seconds
function tediousDate(iso: string, nanosecondsDelta: number): Date {
  const d = new Date(iso);
  Object.defineProperty(d, 'nanosecondsDelta', { enumerable: false, value: nanosecondsDelta });
  return d;
}

describe('sql server type mapping', () => {
  it('maps sys.types names with their sizes', () => {
    const m = (typeName: string, maxLength = 0, precision = 0, scale = 0) => {
      const c = { typeName, maxLength, precision, scale };
      return [nativeTypeText(c), mapNativeType(c).type];
    };
    expect([
      m('bit'),
      m('tinyint'),
      m('smallint'),
      m('int'),
      m('bigint'),
      m('decimal', 17, 38, 10),
      m('numeric', 9, 15, 2),
      m('money'),
      m('real', 4, 24),
      m('float', 8, 53),
      m('char', 10),
      m('nchar', 50),
      m('varchar', 40),
      m('nvarchar', -1),
      m('nvarchar', 50),
      m('date'),
      m('time', 5, 16, 7),
      m('datetime2', 8, 27, 7),
      m('datetime'),
      m('datetimeoffset', 10, 34, 7),
      m('varbinary', -1),
      m('binary', 16),
      m('uniqueidentifier'),
    ]).toEqual([
      ['bit', t.bool],
      ['tinyint', t.int16],
      ['smallint', t.int16],
      ['int', t.int32],
      ['bigint', t.int64],
      ['decimal(38,10)', t.decimal(38, 10)],
      ['numeric(15,2)', t.decimal(15, 2)],
      ['money', t.decimal(19, 4)],
      ['real', t.float32],
      ['float', t.float64],
      ['char(10)', t.char(10)],
      ['nchar(25)', t.char(25)],
      ['varchar(40)', t.varchar(40)],
      ['nvarchar(max)', t.string],
      ['nvarchar(25)', t.varchar(25)],
      ['date', t.date],
      ['time(7)', { kind: 'time', precision: 7 }],
      ['datetime2(7)', { kind: 'timestamp', precision: 7 }],
      ['datetime', { kind: 'timestamp', precision: 3 }],
      ['datetimeoffset(7)', { kind: 'timestamptz', precision: 7 }],
      ['varbinary(max)', t.binary],
      ['binary(16)', { kind: 'binary', length: 16 }],
      ['uniqueidentifier', t.uuid],
    ]);
    expect(mapNativeType({ typeName: 'geography', maxLength: -1, precision: 0, scale: 0 })).toEqual({
      type: t.unknown,
      warning: 'type "geography" is read as text: it has no Junction equivalent',
    });
    expect(mapTediousType('IntN', undefined, undefined, 8).type).toEqual(t.int64);
    expect(mapTediousType('DecimalN', 15, 2).type).toEqual(t.decimal(15, 2));
    expect(mapTediousType('Xml').warning).toBe('result type Xml is read as text: it has no Junction equivalent');
  });

  it('decodes what tedious returns exactly', () => {
    // tedious returns bigint as a string
    expect(decodeNative('9223372036854775807', t.int64)).toBe(9223372036854775807n);
    expect(decodeNative('-9223372036854775808', t.int64)).toBe(-9223372036854775808n);
    // DECIMAL arrives as a JS number: exact text again up to 15 significant digits
    expect(decodeNative(1234567890123.45, t.decimal(15, 2))).toBe('1234567890123.45');
    expect(decodeNative(-0.1, t.decimal(15, 2))).toBe('-0.10');
    expect(decodeNative(5, t.decimal(10, 4))).toBe('5.0000');
    // …and exact always as the server-side text the rendered queries ask for
    expect(decodeNative('-9999999999999999999999999999.9999999999', t.decimal(38, 10))).toBe(
      '-9999999999999999999999999999.9999999999',
    );
    expect(decodeNative('12.5', t.decimal(10, 2))).toBe('12.50');
    expect(decodeNative(true, t.bool)).toBe(true);
    expect(decodeNative('ab', t.char(5))).toBe('ab   ');
    expect(decodeNative('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', t.uuid)).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(decodeNative(Buffer.from([0, 255]), t.binary)).toEqual(new Uint8Array([0, 255]));
    expect(decodeNative(null, t.int32)).toBe(null);
  });

  it('keeps 100-nanosecond precision of time, datetime2 and datetimeoffset', () => {
    expect(decodeNative(tediousDate('2021-03-28T02:30:00.123Z', 0.0004567), { kind: 'timestamp', precision: 7 })).toBe(
      '2021-03-28T02:30:00.1234567',
    );
    expect(decodeNative(tediousDate('2021-03-28T02:30:00.000Z', 0), { kind: 'timestamp', precision: 7 })).toBe(
      '2021-03-28T02:30:00',
    );
    expect(decodeNative(tediousDate('1970-01-01T23:59:59.999Z', 0.0009999), { kind: 'time', precision: 7 })).toBe(
      '23:59:59.9999999',
    );
    expect(decodeNative(tediousDate('2021-10-31T01:30:00.500Z', 0), t.timestamptz)).toBe('2021-10-31T01:30:00.5Z');
    expect(decodeNative(new Date('0001-01-01T00:00:00Z'), t.date)).toBe('0001-01-01');
    // server-side text of the exact transport
    expect(decodeNative('2021-03-28 02:30:00.1234560', t.timestamp)).toBe('2021-03-28T02:30:00.123456');
    expect(decodeNative('02:30:00.0000000', t.time)).toBe('02:30:00');
    expect(timestamptzText('2021-03-28 03:00:00.1234567 +02:00')).toBe('2021-03-28T01:00:00.1234567Z');
    expect(timestamptzText('2021-01-01 00:30:00.0000000 +05:30')).toBe('2020-12-31T19:00:00Z');
    expect(decodeNative('2021-10-31 01:30:00.0000000 -03:00', t.timestamptz)).toBe('2021-10-31T04:30:00Z');
  });

  it('binds values by their representation', () => {
    expect(parameterFor(9223372036854775807n)).toEqual({ type: TYPES.BigInt, value: 9223372036854775807n });
    expect(parameterFor(7)).toEqual({ type: TYPES.Int, value: 7 });
    expect(parameterFor(2147483648)).toEqual({ type: TYPES.Float, value: 2147483648 });
    expect(parameterFor('12.50')).toEqual({ type: TYPES.NVarChar, value: '12.50' });
    expect(parameterFor(null)).toEqual({ type: TYPES.NVarChar, value: null });
    expect(parameterFor(new Uint8Array([1, 2])).value).toEqual(Buffer.from([1, 2]));
    const d = utcDate('2021-03-28T02:30:00.1234567');
    expect(d.toISOString()).toBe('2021-03-28T02:30:00.123Z');
    expect((d as Date & { nanosecondDelta: number }).nanosecondDelta).toBeCloseTo(0.0004567, 10);
    expect((bulkValue(t.time)('23:59:59.5') as Date).toISOString()).toBe('1970-01-01T23:59:59.500Z');
    expect((bulkValue(t.timestamptz)('2021-03-28T01:00:00Z') as Date).toISOString()).toBe('2021-03-28T01:00:00.000Z');
  });
});
