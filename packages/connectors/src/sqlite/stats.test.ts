import { describe, expect, it } from 'vitest';
import { stat1Estimates, statNumbers } from './stats.js';

describe('sqlite_stat1 estimates', () => {
  it('reads the numbers before the keywords ANALYZE may append', () => {
    expect(statNumbers('1000 250 50 unordered sz=12 noskipscan')).toEqual([1000, 250, 50]);
    expect(statNumbers('7')).toEqual([7]);
  });

  it('takes the largest nrow as the row count and skips partial and expression indexes', () => {
    const est = stat1Estimates(
      't',
      [
        { idx: 't_part', stat: '995 1' },
        { idx: 't_ab', stat: '1000 334 50' },
        { idx: 't_expr', stat: '1000 500' },
      ],
      [
        { name: 't_part', leading: 'd', partial: true, origin: 'c' },
        { name: 't_ab', leading: 'a', partial: false, origin: 'c' },
        { name: 't_expr', leading: null, partial: false, origin: 'c' },
      ],
    );
    // 1000 / 334 (SQLite's average rounded up from 333.3) is 2.99: three values
    expect(est).toEqual({ rowCount: 1000, distinct: new Map([['a', 3]]) });
  });

  it('finds a WITHOUT ROWID primary key under the table name and gives nothing without rows', () => {
    expect(
      stat1Estimates(
        'w',
        [{ idx: 'w', stat: '3 1' }],
        [{ name: 'sqlite_autoindex_w_1', leading: 'k', partial: false, origin: 'pk' }],
      ),
    ).toEqual({ rowCount: 3, distinct: new Map([['k', 3]]) });
    expect(stat1Estimates('t', [], [])).toEqual({ distinct: new Map() });
  });
});
