import { describe, expect, it } from 'vitest';
import { t } from '@junction/connectors';
import { jsonColumns, jsonRow } from './values.js';

describe('exact JSON values', () => {
  it('keeps int64 and decimals as strings, binary as base64, non-finite floats as text', () => {
    const row = [
      9007199254740993n,
      '-12.50',
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Uint8Array([0, 255, 16]),
      '1995-03-01',
      true,
      null,
    ];
    expect(JSON.stringify(jsonRow(row))).toBe(
      '["9007199254740993","-12.50",1.5,"NaN","Infinity","AP8Q","1995-03-01",true,null]',
    );
  });

  it('base64 covers only the view of a shared buffer', () => {
    const buf = new Uint8Array([9, 9, 1, 2, 3, 9]);
    expect(jsonRow([buf.subarray(2, 5)])).toEqual(['AQID']);
  });

  it('prints column types as EXPLAIN does', () => {
    expect(
      jsonColumns([
        { name: 'a', type: t.decimal(15, 2), nullable: false },
        { name: 'b', type: t.char(25), nullable: true },
        { name: 'c', type: t.varchar(), nullable: true },
      ]),
    ).toEqual([
      { name: 'a', type: 'decimal(15,2)', nullable: false },
      { name: 'b', type: 'char(25)', nullable: true },
      { name: 'c', type: 'text', nullable: true },
    ]);
  });
});
