import { describe, expect, it } from 'vitest';
import type { ResolvedTable } from './files.js';
import { readerSql, viewSelect } from './views.js';

const table = (over: Partial<ResolvedTable>): ResolvedTable => ({
  name: 't',
  format: 'csv',
  spec: { name: 't', path: 't.csv' },
  files: ['/data/t.csv'],
  ...over,
});

describe('duckdb view SQL', () => {
  it('spells every CSV option, quoting the values it is given', () => {
    const t = table({
      files: ["/data/o'brien.csv", '/data/b.csv'],
      spec: {
        name: 't',
        path: '*.csv',
        csv: { delimiter: ';', quote: "'", escape: '\\', header: true, nullValues: ['NA', ''] },
        columns: { amount: 'decimal(15,2)', day: 'date' },
      },
    });
    expect(readerSql('f', t)).toBe(
      "read_csv(['/data/o''brien.csv', '/data/b.csv'], header = true, allow_quoted_nulls = false, delim = ';', quote = '''', escape = '\\', nullstr = ['NA', ''], types = {'amount': 'DECIMAL(15,2)', 'day': 'DATE'}, union_by_name = true)",
    );
  });

  it('names a header-less file by its overrides, in order', () => {
    const t = table({
      spec: { name: 't', path: 't.csv', csv: { header: false }, columns: { id: 'bigint', name: 'text' } },
    });
    expect(readerSql('f', t)).toBe(
      "read_csv(['/data/t.csv'], header = false, allow_quoted_nulls = false, columns = {'id': 'BIGINT', 'name': 'VARCHAR'})",
    );
  });

  it('refuses a quote or escape of more than one character', () => {
    expect(() => readerSql('f', table({ spec: { name: 't', path: 't.csv', csv: { quote: '""' } } }))).toThrow(
      'Source "f": the CSV quote of table "t" must be one character, not """".',
    );
  });

  it('reads Parquet and JSON, the JSON with its full column list when types are overridden', () => {
    expect(readerSql('f', table({ format: 'parquet', files: ['/data/a.parquet'] }))).toBe(
      "read_parquet(['/data/a.parquet'])",
    );
    const json = table({ format: 'json', spec: { name: 't', path: 't.json', json: { format: 'array' } } });
    expect(readerSql('f', json)).toBe("read_json(['/data/t.csv'], format = 'array')");
    expect(
      readerSql('f', json, [
        ['id', 'BIGINT'],
        ['price', 'DECIMAL(6,2)'],
      ]),
    ).toBe("read_json(['/data/t.csv'], format = 'array', columns = {'id': 'BIGINT', 'price': 'DECIMAL(6,2)'})");
  });

  it('turns nested columns into JSON text and casts overridden Parquet columns', () => {
    expect(
      viewSelect(
        "read_parquet(['/data/a.parquet'])",
        [
          { name: 'id', type: 'INTEGER' },
          { name: 'xs', type: 'INTEGER[]' },
          { name: 'o"bj', type: 'STRUCT(k VARCHAR)' },
          { name: 'amount', type: 'DOUBLE' },
        ],
        new Map([['amount', 'DECIMAL(15,2)']]),
      ),
    ).toBe(
      'SELECT * REPLACE (to_json("xs") AS "xs", to_json("o""bj") AS "o""bj", CAST("amount" AS DECIMAL(15,2)) AS "amount") FROM read_parquet([\'/data/a.parquet\'])',
    );
    expect(viewSelect('read_csv([])', [{ name: 'id', type: 'BIGINT' }], new Map())).toBe('SELECT * FROM read_csv([])');
  });
});
