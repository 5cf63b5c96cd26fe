import { describe, expect, it } from 'vitest';
import { digestRows } from './answer.js';

describe('answer digest', () => {
  it('ignores row order and sees every value, duplicate and NULL', () => {
    const a = digestRows([
      [1n, '12.50', '1995-03-01', null],
      [2n, '0.00', '1996-01-01', 'x'],
    ]);
    expect(a).toEqual(
      digestRows([
        [2n, '0.00', '1996-01-01', 'x'],
        [1n, '12.50', '1995-03-01', null],
      ]),
    );
    // the same values from a driver that decodes int8 as text: the same answer
    expect(digestRows([['1', '12.50', '1995-03-01', null], ['2', '0.00', '1996-01-01', 'x']])).toEqual(a);
    expect(a.rows).toBe(2);
    expect(digestRows([[1n, '12.5', '1995-03-01', null], [2n, '0.00', '1996-01-01', 'x']]).checksum).not.toBe(a.checksum);
    expect(digestRows([[1n, '12.50', '1995-03-01', ''], [2n, '0.00', '1996-01-01', 'x']]).checksum).not.toBe(a.checksum);
    // a duplicated row is not the same answer as the row alone (XOR would cancel it out)
    const once = digestRows([[7, 'a']]);
    const twice = digestRows([[7, 'a'], [7, 'a']]);
    expect(twice.checksum).not.toBe(once.checksum);
    expect(digestRows([[7, 'a'], [7, 'a'], [8, 'b']]).checksum).not.toBe(digestRows([[8, 'b']]).checksum);
  });
});
