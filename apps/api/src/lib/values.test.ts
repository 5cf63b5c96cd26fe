import { describe, expect, it } from 'vitest';
import { t } from '@junction/connectors';
import { jsonColumns, jsonLines, jsonRow, jsonRows } from './values.js';

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

  it('writes a batch in one piece exactly as row by row, whether or not a value needs converting', () => {
    const plain = [
      [1, 'a "quoted", text', null, true, -0.5],
      [2, 'ünïcödé ✓', '12.50', false, 1e21],
    ];
    const mixed = [plain[0], [3, 9007199254740993n, Number.NaN, new Uint8Array([1]), 'x']];
    for (const batch of [plain, mixed]) {
      expect(jsonRows(batch)).toBe(batch.map((r) => JSON.stringify(jsonRow(r))).join(','));
      expect(jsonLines(batch)).toBe(batch.map((r) => JSON.stringify(jsonRow(r)) + '\n').join(''));
    }
    expect(jsonRows(mixed)).toBe('[1,"a \\"quoted\\", text",null,true,-0.5],[3,"9007199254740993","NaN","AQ==","x"]');
    expect(jsonRows([])).toBe('');
    expect(jsonLines([])).toBe('');
  });

  it('writes NDJSON lines in one piece exactly as row by row, strings holding brackets included', () => {
    const rowByRow = (batch: unknown[][]) => batch.map((r) => JSON.stringify(jsonRow(r as never)) + '\n').join('');
    const batches: unknown[][][] = [
      [[1, 'a'], [2, 'b'], [3, null]],
      [[1, 'x],[y'], [2, 'z']],
      [['],['], ['['], [']']],
      [[9007199254740993n, 'a]'], [Number.NaN, '],[']],
      [[9007199254740993n, new Uint8Array([255, 254])], [-0, 'x']],
      [[], [], []],
      [['only one row', true]],
    ];
    for (const batch of batches) expect(jsonLines(batch as never)).toBe(rowByRow(batch));
    expect(jsonLines([[1, 'x],[y'], [2, 'z']])).toBe('[1,"x],[y"]\n[2,"z"]\n');
    expect(jsonLines([[], []])).toBe('[]\n[]\n');
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
