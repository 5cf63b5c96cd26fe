import { t, type ColumnMeta } from '@junction/connectors';
import { describe, expect, it } from 'vitest';
import { csvEncoder } from './result-encoders.js';

const col = (name: string, type: ColumnMeta['type']): ColumnMeta => ({ name, type, nullable: true });

describe('csvEncoder formula safety', () => {
  const columns = [
    col('s', t.string),
    col('j', t.json),
    col('i', t.int32),
    col('b', t.int64),
    col('d', t.decimal(4, 1)),
  ];
  const rows = [
    ['=1', '-1', -1, -2n, '-3.5'],
    ['\tx', '\rcr', 4, 5n, '6'],
    ['a=b', '@me', null, null, null],
  ];

  it('prefixes text starting with = + - @ tab or CR, and leaves numbers alone', () => {
    const e = csvEncoder();
    expect(e.head('q', columns) + e.rows(rows)).toBe(
      "s,j,i,b,d\r\n'=1,'-1,-1,-2,-3.5\r\n'\tx,\"'\rcr\",4,5,6\r\na=b,'@me,,,\r\n",
    );
  });

  it('writes text as it is when formulaSafe is false', () => {
    const e = csvEncoder({ formulaSafe: false });
    expect(e.head('q', columns) + e.rows(rows)).toBe(
      's,j,i,b,d\r\n=1,-1,-1,-2,-3.5\r\n\tx,"\rcr",4,5,6\r\na=b,@me,,,\r\n',
    );
  });
});
