import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JType, Value } from '@junction/connectors';
import { TEST_PG_URL } from '../../test/harness.js';
import {
  binaryOf,
  float4Text,
  float8Text,
  intervalText,
  numericFromBinary,
  paramValue,
  textOf,
  typeOfText,
  wireType,
} from './types.js';

/**
 * Each value as Junction's value model holds it, beside the PostgreSQL literal of the same
 * value: the text and binary forms this server sends must equal what PostgreSQL's own output
 * and send functions give for it.
 */
const CASES: { type: JType; pgType: string; send: string; value: Value; literal: string }[] = [
  { type: { kind: 'bool' }, pgType: 'boolean', send: 'boolsend', value: true, literal: 'true' },
  { type: { kind: 'int16' }, pgType: 'smallint', send: 'int2send', value: -32768, literal: '-32768' },
  { type: { kind: 'int32' }, pgType: 'integer', send: 'int4send', value: 2147483647, literal: '2147483647' },
  {
    type: { kind: 'int64' },
    pgType: 'bigint',
    send: 'int8send',
    value: -9007199254740993n,
    literal: '-9007199254740993',
  },
  { type: { kind: 'float64' }, pgType: 'double precision', send: 'float8send', value: 0.1, literal: '0.1' },
  { type: { kind: 'float64' }, pgType: 'double precision', send: 'float8send', value: 1e21, literal: '1e21' },
  {
    type: { kind: 'float64' },
    pgType: 'double precision',
    send: 'float8send',
    value: 123456789012345.6,
    literal: '123456789012345.6',
  },
  { type: { kind: 'float64' }, pgType: 'double precision', send: 'float8send', value: 1e15, literal: '1e15' },
  {
    type: { kind: 'float64' },
    pgType: 'double precision',
    send: 'float8send',
    value: 0.00001234,
    literal: '0.00001234',
  },
  { type: { kind: 'float64' }, pgType: 'double precision', send: 'float8send', value: 0.0001234, literal: '0.0001234' },
  {
    type: { kind: 'float64' },
    pgType: 'double precision',
    send: 'float8send',
    value: -Infinity,
    literal: "'-Infinity'",
  },
  { type: { kind: 'float32' }, pgType: 'real', send: 'float4send', value: Math.fround(0.1), literal: '0.1' },
  {
    type: { kind: 'float32' },
    pgType: 'real',
    send: 'float4send',
    value: Math.fround(1234567.9),
    literal: '1234567.9',
  },
  {
    type: { kind: 'decimal', precision: 15, scale: 2 },
    pgType: 'numeric(15,2)',
    send: 'numeric_send',
    value: '1909572716.10',
    literal: '1909572716.10',
  },
  { type: { kind: 'decimal' }, pgType: 'numeric', send: 'numeric_send', value: '-0.000120', literal: '-0.000120' },
  { type: { kind: 'decimal' }, pgType: 'numeric', send: 'numeric_send', value: '100000000', literal: '100000000' },
  { type: { kind: 'decimal' }, pgType: 'numeric', send: 'numeric_send', value: '0.00', literal: '0.00' },
  {
    type: { kind: 'string', length: 3, fixed: true },
    pgType: 'char(3)',
    send: 'bpcharsend',
    value: 'ab ',
    literal: "'ab'",
  },
  {
    type: { kind: 'string' },
    pgType: 'text',
    send: 'textsend',
    value: 'žluťoučký\n"kůň"',
    literal: `E'žluťoučký\\n"kůň"'`,
  },
  { type: { kind: 'date' }, pgType: 'date', send: 'date_send', value: '1995-03-01', literal: "'1995-03-01'" },
  { type: { kind: 'date' }, pgType: 'date', send: 'date_send', value: '2031-12-31', literal: "'2031-12-31'" },
  { type: { kind: 'time' }, pgType: 'time', send: 'time_send', value: '13:14:15.25', literal: "'13:14:15.25'" },
  {
    type: { kind: 'timestamp' },
    pgType: 'timestamp',
    send: 'timestamp_send',
    value: '1998-01-01T10:20:30.5',
    literal: "'1998-01-01 10:20:30.5'",
  },
  {
    type: { kind: 'timestamp' },
    pgType: 'timestamp',
    send: 'timestamp_send',
    value: '1969-07-20T20:17:40',
    literal: "'1969-07-20 20:17:40'",
  },
  {
    type: { kind: 'timestamptz' },
    pgType: 'timestamptz',
    send: 'timestamptz_send',
    value: '2019-12-31T22:00:00Z',
    literal: "'2020-01-01 00:00:00+02'",
  },
  {
    type: { kind: 'timestamptz' },
    pgType: 'timestamptz',
    send: 'timestamptz_send',
    value: '2020-06-01T01:02:03.000004Z',
    literal: "'2020-06-01 01:02:03.000004+00'",
  },
  {
    type: { kind: 'interval' },
    pgType: 'interval',
    send: 'interval_send',
    value: 'P1Y2M3DT4H5M6.5S',
    literal: "'1 year 2 mons 3 days 04:05:06.5'",
  },
  { type: { kind: 'interval' }, pgType: 'interval', send: 'interval_send', value: 'P-1D', literal: "'-1 days'" },
  { type: { kind: 'interval' }, pgType: 'interval', send: 'interval_send', value: 'PT0S', literal: "'0'" },
  {
    type: { kind: 'interval' },
    pgType: 'interval',
    send: 'interval_send',
    value: 'P1DT-2H',
    literal: "'1 day -02:00:00'",
  },
  {
    type: { kind: 'binary' },
    pgType: 'bytea',
    send: 'byteasend',
    value: new Uint8Array([0, 255, 16]),
    literal: "'\\x00ff10'",
  },
  {
    type: { kind: 'uuid' },
    pgType: 'uuid',
    send: 'uuid_send',
    value: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    literal: "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
  },
  { type: { kind: 'json' }, pgType: 'jsonb', send: 'jsonb_send', value: '{"a": [1, 2]}', literal: `'{"a":[1,2]}'` },
];

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  await client.query(
    "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 1",
  );
});
afterAll(async () => {
  await client?.end();
});

describe('values on the wire equal PostgreSQL’s own', () => {
  it.each(CASES.map((c) => [`${c.pgType} ${c.literal}`, c] as const))('%s', async (_, c) => {
    // the column's own output function, not a cast to text (which prints bool as 'true' and trims char(n))
    const r = await client.query({
      text: `SELECT (${c.literal})::${c.pgType} AS text, encode(${c.send}((${c.literal})::${c.pgType}), 'hex') AS hex`,
      types: { getTypeParser: () => (v: string) => v },
    } as never);
    const { text, hex } = (r as pg.QueryResult).rows[0] as { text: string; hex: string };
    expect(textOf(c.type, c.value)).toBe(text);
    expect(binaryOf(c.type, c.value)!.toString('hex')).toBe(hex);
  });

  it('reads binary parameters back into the value model', () => {
    for (const c of CASES) {
      const raw = binaryOf(c.type, c.value)!;
      const back = paramValue(raw, 1, undefined, c.type);
      if (c.type.kind === 'binary') expect([...(back as Uint8Array)]).toEqual([...(c.value as Uint8Array)]);
      else if (c.type.kind === 'interval') expect(textOf(c.type, back)).toBe(textOf(c.type, c.value));
      else if (c.type.kind === 'json') expect(back).toBe(c.value);
      else expect(back).toEqual(c.value);
    }
    expect(numericFromBinary(binaryOf({ kind: 'decimal' }, '-12345.0067')!)).toBe('-12345.0067');
  });

  it('prints floats as PostgreSQL 12+ does', () => {
    expect([
      float8Text(1e-5),
      float8Text(123456789012345680),
      float8Text(-0),
      float8Text(NaN),
      float4Text(Math.fround(3.4e38)),
    ]).toEqual(['1e-05', '1.2345678901234568e+17', '-0', 'NaN', '3.4e+38']);
    expect(intervalText('P-1Y-2M')).toBe('-1 years -2 mons');
  });

  it('gives column types with their modifiers', () => {
    expect(wireType({ kind: 'decimal', precision: 15, scale: 2 })).toEqual({ oid: 1700, size: -1, modifier: 983046 });
    expect(wireType({ kind: 'string', length: 25, fixed: true })).toEqual({ oid: 1042, size: -1, modifier: 29 });
    expect(wireType({ kind: 'null' })).toEqual({ oid: 25, size: -1, modifier: -1 });
    expect(typeOfText('decimal(15,2)')).toEqual({ kind: 'decimal', precision: 15, scale: 2 });
    expect(typeOfText('char(1)')).toEqual({ kind: 'string', length: 1, fixed: true });
    expect(typeOfText('int64')).toEqual({ kind: 'int64' });
  });
});
