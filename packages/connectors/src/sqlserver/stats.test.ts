import { describe, expect, it } from 'vitest';
import { SQLSERVER_STATS_SQL, sqlServerColumnStats } from './stats.js';

describe('sql server column statistics without a server', () => {
  it('reads every statistics object with its properties and its histogram summed, in one statement', () => {
    expect(SQLSERVER_STATS_SQL).toBe(`SELECT s.object_id, c.name, s.stats_id,
       CAST(sp.rows AS float), CAST(sp.rows_sampled AS float), CAST(sp.modification_counter AS float),
       h.steps, h.distinct_keys, h.null_rows,
       CAST(SQL_VARIANT_PROPERTY(lo.k, 'BaseType') AS nvarchar(128)),
       CASE WHEN CAST(SQL_VARIANT_PROPERTY(lo.k, 'BaseType') AS nvarchar(128)) = 'date' THEN CONVERT(nvarchar(10), CAST(lo.k AS date), 23)
         WHEN CAST(SQL_VARIANT_PROPERTY(lo.k, 'BaseType') AS nvarchar(128)) IN ('datetime', 'smalldatetime', 'datetime2') THEN CONVERT(nvarchar(27), CAST(lo.k AS datetime2(7)), 126)
         WHEN CAST(SQL_VARIANT_PROPERTY(lo.k, 'BaseType') AS nvarchar(128)) IN ('float', 'real') THEN CONVERT(nvarchar(30), CAST(lo.k AS float), 3)
         WHEN CAST(SQL_VARIANT_PROPERTY(lo.k, 'BaseType') AS nvarchar(128)) IN ('binary', 'varbinary', 'timestamp', 'time', 'datetimeoffset') THEN NULL
         ELSE CONVERT(nvarchar(4000), lo.k) END,
       CASE WHEN CAST(SQL_VARIANT_PROPERTY(hi.k, 'BaseType') AS nvarchar(128)) = 'date' THEN CONVERT(nvarchar(10), CAST(hi.k AS date), 23)
         WHEN CAST(SQL_VARIANT_PROPERTY(hi.k, 'BaseType') AS nvarchar(128)) IN ('datetime', 'smalldatetime', 'datetime2') THEN CONVERT(nvarchar(27), CAST(hi.k AS datetime2(7)), 126)
         WHEN CAST(SQL_VARIANT_PROPERTY(hi.k, 'BaseType') AS nvarchar(128)) IN ('float', 'real') THEN CONVERT(nvarchar(30), CAST(hi.k AS float), 3)
         WHEN CAST(SQL_VARIANT_PROPERTY(hi.k, 'BaseType') AS nvarchar(128)) IN ('binary', 'varbinary', 'timestamp', 'time', 'datetimeoffset') THEN NULL
         ELSE CONVERT(nvarchar(4000), hi.k) END
  FROM sys.stats s
  JOIN sys.objects o ON o.object_id = s.object_id
  JOIN sys.stats_columns sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id AND sc.stats_column_id = 1
  JOIN sys.columns c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
  CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) sp
  CROSS APPLY (SELECT COUNT(*) AS steps,
                      SUM(CAST(x.distinct_range_rows AS float)) + COUNT(x.range_high_key) AS distinct_keys,
                      SUM(CASE WHEN x.range_high_key IS NULL THEN CAST(x.equal_rows AS float) ELSE 0 END) AS null_rows
                 FROM sys.dm_db_stats_histogram(s.object_id, s.stats_id) x) h
  OUTER APPLY (SELECT TOP (1) x.range_high_key AS k FROM sys.dm_db_stats_histogram(s.object_id, s.stats_id) x
                WHERE x.range_high_key IS NOT NULL ORDER BY x.step_number) lo
  OUTER APPLY (SELECT TOP (1) x.range_high_key AS k FROM sys.dm_db_stats_histogram(s.object_id, s.stats_id) x
                WHERE x.range_high_key IS NOT NULL ORDER BY x.step_number DESC) hi
 WHERE o.type = 'U' AND o.is_ms_shipped = 0 AND s.has_filter = 0 AND sp.rows > 0 AND h.steps > 0
 ORDER BY s.object_id, c.name, s.stats_id`);
  });

  it('maps a result set as tedious returns it to the catalog fields', () => {
    // object_id, column, stats_id, rows, rows_sampled, modification_counter, steps, distinct_keys, null_rows, base type, min, max
    const rows: unknown[][] = [
      [901578250, 'b', 5, 1000, 1000, 0, 3, 2, 0, 'varbinary', null, null],
      [901578250, 'c', 2, 1000, 1000, 0, 4, 3, 250, 'nchar', 'ab   ', 'cd   '],
      [901578250, 'd', 3, 1000, 1000, 500, 100, 100, 0, 'date', '2019-12-01', '2020-03-09'],
      [901578250, 'd', 4, 1000, 400, 0, 98, 99.6, 0, 'date', '2020-01-01', '2020-04-09'],
      [901578250, 'id', 1, 1000, 1000, 0, 200, 1000, 0, 'int', '1', '1000'],
      [
        901578250,
        'ts',
        6,
        1000,
        1000,
        0,
        200,
        1000,
        0,
        'datetime2',
        '2021-03-28T02:30:00.1234567',
        '2021-03-29T00:00:00',
      ],
      [901578250, 'x', 7, 0, 0, 0, 1, 0, 0, 'int', null, null],
      [1125579048, 'id', 1, 3, 3, 0, 3, 3, 0, 'bigint', '-9223372036854775808', '9223372036854775807'],
    ];
    expect(Object.fromEntries(sqlServerColumnStats(rows))).toEqual({
      '901578250\u0000b': { distinct: 2, nullFraction: 0 },
      '901578250\u0000c': { distinct: 3, nullFraction: 0.25, min: 'ab', max: 'cd' },
      // the freshest of two: no modifications since, though sampled
      '901578250\u0000d': { distinct: 100, nullFraction: 0, min: '2020-01-01', max: '2020-04-09' },
      '901578250\u0000id': { distinct: 1000, nullFraction: 0, min: '1', max: '1000' },
      '901578250\u0000ts': {
        distinct: 1000,
        nullFraction: 0,
        min: '2021-03-28T02:30:00.1234567',
        max: '2021-03-29T00:00:00',
      },
      '1125579048\u0000id': { distinct: 3, nullFraction: 0, min: '-9223372036854775808', max: '9223372036854775807' },
    });
  });

  it('gives nothing for no rows', () => {
    expect(sqlServerColumnStats([]).size).toBe(0);
  });
});
