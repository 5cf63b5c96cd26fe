import { describe, expect, it } from 'vitest';
import { t } from '../contract/types.js';
import { renderQuery } from '../sql/generator.js';
import { MysqlDialect } from '../mysql/dialect.js';
import { arrayLiteral, isCodePointCollation, PostgresDialect } from './dialect.js';

describe('PostgreSQL dialect', () => {
  it('knows which collations already order by code point', () => {
    expect(['C', 'POSIX', 'C.UTF-8', 'C.utf8', 'ucs_basic'].map(isCodePointCollation)).toEqual([true, true, true, true, true]);
    expect(['en_US.UTF-8', 'de_DE', 'und-x-icu', undefined].map(isCodePointCollation)).toEqual([false, false, false, false]);
  });

  it('spells casts with PostgreSQL type names and typmods', () => {
    const d = new PostgresDialect();
    expect([t.decimal(15, 2), t.char(10), t.varchar(25), t.string, t.timestamptz, t.binary, t.json].map((x) => d.castType(x))).toEqual([
      'numeric(15,2)', 'character(10)', 'character varying(25)', 'text', 'timestamp with time zone', 'bytea', 'jsonb',
    ]);
  });

  it('binds a key set as one array literal; kinds it does not declare stay IN lists', () => {
    expect(arrayLiteral([1, 2n, '-1.50', 'a,"b"\\ {NULL}', ''])).toBe('{1,2,"-1.50","a,\\"b\\"\\\\ {NULL}",""}');
    const q = (type: typeof t.timestamp, values: readonly (string | null)[]) => ({
      select: [{ expr: { kind: 'column', table: 't', column: 'k', type } as const, alias: 'k' }],
      from: { kind: 'table', alias: 't', schema: 'public', table: 'x' } as const,
      where: { kind: 'keySet', expr: { kind: 'column', table: 't', column: 'k', type } as const, values, type: t.bool } as const,
    });
    expect(renderQuery(new PostgresDialect(), q(t.timestamp, ['1995-03-01T00:00:00'])).sql).toBe(
      'SELECT "t"."k" AS "k" FROM "public"."x" "t" WHERE ("t"."k" IN ($1::timestamp))',
    );
    expect(renderQuery(new PostgresDialect(), q(t.string, ['a', null])).sql).toBe('SELECT "t"."k" AS "k" FROM "public"."x" "t" WHERE ("t"."k" IN ($1::text, NULL::text))');
    expect(renderQuery(new PostgresDialect(), q(t.char(4), ['ab'])).sql).toBe('SELECT "t"."k" AS "k" FROM "public"."x" "t" WHERE ("t"."k" = ANY($1::bpchar[]))');
  });

  it('quotes with double quotes, doubling them', () => {
    expect(new PostgresDialect().quoteIdentifier('a"b')).toBe('"a""b"');
  });

  it('keeps trim\'s second argument (a set of characters), where the shared one-argument form would drop it', () => {
    const col = { kind: 'column', table: 't', column: 's', type: t.string } as const;
    const chars = { kind: 'literal', value: 'xy', type: t.string } as const;
    const q = (fn: 'trim' | 'ltrim' | 'rtrim', args: readonly (typeof col | typeof chars)[]) => ({
      select: [{ expr: { kind: 'call', fn, args, type: t.string } as const, alias: 'c0' }],
      from: { kind: 'table', alias: 't', schema: 'public', table: 'x' } as const,
    });
    expect(renderQuery(new PostgresDialect(), q('trim', [col, chars])).sql).toBe('SELECT BTRIM("t"."s", $1::text) AS "c0" FROM "public"."x" "t"');
    expect(renderQuery(new PostgresDialect(), q('rtrim', [col])).sql).toBe('SELECT RTRIM("t"."s") AS "c0" FROM "public"."x" "t"');
    expect(() => renderQuery(new MysqlDialect(), q('trim', [col, chars]))).toThrow(/trim with 2 arguments/);
  });

  it('renders EXTRACT (numeric) or DATE_PART (double precision) as the binder typed the call', () => {
    const ts = { kind: 'column', table: 't', column: 'ts', type: t.timestamp } as const;
    const field = { kind: 'literal', value: 'second', type: t.string } as const;
    const q = (type: typeof t.float64) => ({
      select: [{ expr: { kind: 'call', fn: 'date_part', args: [field, ts], type } as const, alias: 'c0' }],
      from: { kind: 'table', alias: 't', schema: 'public', table: 'x' } as const,
    });
    expect(renderQuery(new PostgresDialect(), q(t.decimal())).sql).toBe('SELECT EXTRACT(SECOND FROM "t"."ts") AS "c0" FROM "public"."x" "t"');
    expect(renderQuery(new PostgresDialect(), q(t.float64)).sql).toBe('SELECT DATE_PART($1::text, "t"."ts") AS "c0" FROM "public"."x" "t"');
  });
});

