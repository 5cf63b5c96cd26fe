import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import { decimalText, decodeDuckValue, intervalText, mapDuckType, overrideType, timestampText } from './type-map.js';

describe('duckdb type text → JType', () => {
  it('maps scalar, wide and nested types', () => {
    const cases: [string, unknown][] = [
      ['DECIMAL(15,2)', t.decimal(15, 2)],
      ['DECIMAL', t.decimal(18, 3)],
      ['BIGINT', t.int64],
      ['INTEGER', t.int32],
      ['TINYINT', t.int16],
      ['UBIGINT', t.decimal(20, 0)],
      ['HUGEINT', t.decimal(39, 0)],
      ['DOUBLE', t.float64],
      ['FLOAT', t.float32],
      ['VARCHAR', t.string],
      ['JSON', t.json],
      ['TIMESTAMP WITH TIME ZONE', t.timestamptz],
      ['TIMESTAMP_NS', t.timestamp],
      ['INTEGER[]', t.json],
      ['STRUCT("a" INTEGER, "b" VARCHAR)', t.json],
      ['MAP(VARCHAR, INTEGER)', t.json],
      ['BLOB', t.binary],
      ['UUID', t.uuid],
    ];
    expect(cases.map(([s]) => [s, mapDuckType(s).type])).toEqual(cases);
    expect(mapDuckType('GEOMETRY')).toEqual({
      type: t.unknown,
      warning: 'type "GEOMETRY" is read as text: it has no Junction equivalent',
    });
  });

  it('accepts only known override spellings, since they go into the view SQL', () => {
    expect(
      [
        'decimal(15,2)',
        'NUMERIC(38, 0)',
        'double precision',
        'timestamptz',
        'timestamp with time zone',
        'text',
        'varchar(20)',
        'bigint',
        'boolean',
      ].map((s) => overrideType('f', 't', 'c', s)),
    ).toEqual([
      'DECIMAL(15,2)',
      'DECIMAL(38,0)',
      'DOUBLE',
      'TIMESTAMPTZ',
      'TIMESTAMPTZ',
      'VARCHAR',
      'VARCHAR',
      'BIGINT',
      'BOOLEAN',
    ]);
    for (const bad of ['decimal(39,2)', 'decimal(2,3)', "varchar); SELECT read_text('/etc/passwd'", 'money'])
      expect(() => overrideType('f', 't', 'c', bad)).toThrow(`Source "f": column "c" of table "t" has type "${bad}"`);
  });
});

describe('duckdb values → Junction values', () => {
  it('formats exact decimals, timestamps before the epoch, and ISO intervals', () => {
    expect([decimalText(190957271610n, 2), decimalText(-5n, 2), decimalText(0n, 3), decimalText(123n, 0)]).toEqual([
      '1909572716.10',
      '-0.05',
      '0.000',
      '123',
    ]);
    expect([timestampText(0n), timestampText(-500_000n), timestampText(1_709_296_496_789_012n)]).toEqual([
      '1970-01-01T00:00:00',
      '1969-12-31T23:59:59.5',
      '2024-03-01T12:34:56.789012',
    ]);
    expect([intervalText(14, 3, 14_400_000_000n), intervalText(0, 0, 0n), intervalText(0, -1, -1_500_000n)]).toEqual([
      'P1Y2M3DT4H',
      'PT0S',
      'P-1DT-1.5S',
    ]);
  });

  describe('from a live DuckDB', () => {
    let instance: DuckDBInstance;
    beforeAll(async () => {
      instance = await DuckDBInstance.create(':memory:');
    });
    afterAll(() => instance.closeSync());

    it('decodes every scalar kind exactly, by the result column type', async () => {
      const c = await instance.connect();
      await c.run(`SET TimeZone = 'UTC'`);
      const r =
        await c.runAndReadAll(`SELECT 12345678901234567890.123::DECIMAL(38,3), 9007199254740993::BIGINT, 170141183460469231731687303715884105727::HUGEINT,
        DATE '2024-02-29', TIME '01:02:03.5', TIMESTAMPTZ '2024-03-01 12:00:00+02', INTERVAL '1 year 2 months 3 days 4 hours',
        'abc'::BLOB, UUID '550E8400-E29B-41D4-A716-446655440000', [1.50::DECIMAL(3,2), NULL], {'k': DATE '2020-01-01'}, NULL::INTEGER, true`);
      const types = r.columnTypes().map((x) => mapDuckType(x.toString()).type);
      const row = r.getRows()[0].map((v, i) => decodeDuckValue(v, types[i]));
      expect(row).toEqual([
        '12345678901234567890.123',
        9007199254740993n,
        '170141183460469231731687303715884105727',
        '2024-02-29',
        '01:02:03.5',
        '2024-03-01T10:00:00Z',
        'P1Y2M3DT4H',
        new Uint8Array([97, 98, 99]),
        '550e8400-e29b-41d4-a716-446655440000',
        '[1.50,null]',
        '{"k":"2020-01-01"}',
        null,
        true,
      ]);
      c.disconnectSync();
    });
  });
});
