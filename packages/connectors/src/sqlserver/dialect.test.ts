import { describe, expect, it } from 'vitest';
import type { RemoteQuery } from '../contract/remote-query.js';
import { t, type JType } from '../contract/types.js';
import { renderQuery } from '../sql/generator.js';
import { agg, call, col, lit, table } from '../sql/ir-builders.js';
import { SqlServerDialect } from './dialect.js';

const d = new SqlServerDialect();
const select = (expr: RemoteQuery['select'][number]['expr']): RemoteQuery => ({ select: [{ expr, alias: 'v' }], from: table('t', 'x', 'dbo') });

describe('SQL Server dialect (no server needed)', () => {
  it('maps every Junction type to a T-SQL CAST target', () => {
    const cases: [JType, string | undefined][] = [
      [t.bool, 'BIT'],
      [t.int16, 'SMALLINT'],
      [t.int32, 'INT'],
      [t.int64, 'BIGINT'],
      [t.decimal(15, 2), 'DECIMAL(15,2)'],
      [t.decimal(50, 10), 'DECIMAL(38,10)'],
      [t.decimal(), undefined],
      [t.float32, 'REAL'],
      [t.float64, 'FLOAT'],
      [t.char(10), 'NCHAR(10)'],
      [t.varchar(25), 'NVARCHAR(25)'],
      [t.varchar(5000), 'NVARCHAR(MAX)'],
      [t.string, 'NVARCHAR(MAX)'],
      [t.date, 'DATE'],
      [t.time, 'TIME(6)'],
      [t.timestamp, 'DATETIME2(6)'],
      [{ kind: 'timestamp', precision: 3 }, 'DATETIME2(3)'],
      [t.timestamptz, 'DATETIMEOFFSET(6)'],
      [t.binary, 'VARBINARY(MAX)'],
      [t.uuid, 'UNIQUEIDENTIFIER'],
      [t.json, undefined],
      [t.interval, undefined],
    ];
    expect(cases.map(([type]) => d.castType(type))).toEqual(cases.map(([, name]) => name));
  });

  it('binds literals with their exact T-SQL type', () => {
    const r = renderQuery(
      d,
      select(
        call('and', [
          call('gt', [col('x', 'd', t.decimal(15, 2)), lit('-0.0500', t.decimal(5, 4))]),
          call('lt', [col('x', 'k', t.int64), lit(9007199254740993n, t.int64)]),
          call('ge', [col('x', 'ts', t.timestamp), lit('1995-03-01T10:00:00.5', t.timestamp)]),
          call('eq', [col('x', 'b', t.bool), lit(false, t.bool)]),
        ]),
      ),
    );
    expect(r.sql).toBe(
      'SELECT CAST(CASE WHEN (([x].[d] > CAST(@p1 AS DECIMAL(4,4))) AND ([x].[k] < CAST(@p2 AS BIGINT)) AND ([x].[ts] >= CAST(@p3 AS DATETIME2(6))) AND ([x].[b] = CAST(@p4 AS BIT))) THEN 1 ' +
        'WHEN NOT (([x].[d] > CAST(@p1 AS DECIMAL(4,4))) AND ([x].[k] < CAST(@p2 AS BIGINT)) AND ([x].[ts] >= CAST(@p3 AS DATETIME2(6))) AND ([x].[b] = CAST(@p4 AS BIT))) THEN 0 END AS BIT) AS [v] FROM [dbo].[t] [x]',
    );
    expect(r.params).toEqual(['-0.0500', '9007199254740993', '1995-03-01T10:00:00.5', 0]);
  });

  it('widens COUNT and SUM so they overflow no sooner than PostgreSQL', () => {
    const q: RemoteQuery = {
      select: [
        { expr: agg('count', [col('x', 'a', t.int32)], t.int64, true), alias: 'n' },
        { expr: agg('sum', [col('x', 'a', t.int16)], t.int64), alias: 's16' },
        { expr: agg('sum', [col('x', 'd', t.decimal(15, 2))], t.decimal(undefined, 2)), alias: 'sd' },
      ],
      from: table('t', 'x'),
    };
    expect(renderQuery(d, q).sql).toBe(
      'SELECT COUNT_BIG(DISTINCT [x].[a]) AS [n], SUM(CAST([x].[a] AS BIGINT)) AS [s16], SUM([x].[d]) AS [sd] FROM [t] [x]',
    );
  });

  it('quotes ] by doubling it and never lets a name end the bracket early', () => {
    expect(d.quoteIdentifier('a]b')).toBe('[a]]b]');
    expect(d.quoteIdentifier(']];DROP TABLE x;--')).toBe('[]]]];DROP TABLE x;--]');
    expect(d.quoteIdentifier('[x')).toBe('[[x]');
  });

  it('day of week is Sunday = 0 whatever SET DATEFIRST says', () => {
    const r = renderQuery(d, select(call('date_part', [lit('dow', t.string), col('x', 'dt', t.date)], t.float64)));
    expect(r.sql).toBe('SELECT ((DATEPART(weekday, [x].[dt]) + @@DATEFIRST - 1) % 7) AS [v] FROM [dbo].[t] [x]');
    expect(r.params).toEqual([]);
  });
});
