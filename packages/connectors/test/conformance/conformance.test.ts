import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineName } from '../../src/contract/connector.js';
import type { AggFn, WindowFn } from '../../src/contract/functions.js';
import type { RemoteExpr, RemoteOrderKey, RemoteQuery } from '../../src/contract/remote-query.js';
import { t, type JType, type Row, type Value } from '../../src/contract/types.js';
import { agg, call, col, lit, table } from '../../src/sql/ir-builders.js';
import { HOSTILE, loadFixture, startDuckdb, startMysql, startPostgres, startSqlite, startSqlServer, type EngineUnderTest } from './engines.js';
import { undeclared } from './pushable.js';

/**
 * Connector conformance, one spec for every configured engine (Trino's TestingConnectorBehavior):
 * a case whose query the engine's capabilities declare runs through the real connector and must
 * return exactly PostgreSQL's rows; a case listed as undeclared for an engine must really be
 * undeclared there, and its trap shows on the raw engine why declaring it would be wrong.
 */

const TYPES: Record<string, JType> = { id: t.int32, v: t.varchar(10), c: t.char(5), n: t.int32, d: t.decimal(10, 2), dt: t.date, flag: t.bool };
const w = (c: string) => col('w', c, TYPES[c]);
const o = (c: string) => col('o', c, c === 's' ? t.varchar(10) : t.int32);
const str = (s: string) => lit(s, t.string);
const int = (n: number) => lit(n, t.int32);
const ids = (...xs: number[]) => xs.map((x) => [x]);
const inList = (expr: RemoteExpr, list: RemoteExpr[], negated = false): RemoteExpr => ({ kind: 'in', expr, list, negated, type: t.bool });
const byId = { expr: col('w', 'id', t.int32), desc: false, nullsFirst: false };

type Trap = { readonly sql: string; readonly rows: Row[] } | { readonly sql: string; readonly fails: true };

interface Case {
  readonly name: string;
  readonly query: (schema?: string) => RemoteQuery;
  /** PostgreSQL's answer */
  readonly rows: Row[];
  /** compare in order (the query has ORDER BY); otherwise as a sorted multiset */
  readonly ordered?: boolean;
  readonly undeclaredOn?: readonly EngineName[];
  /** raw native SQL on the engine showing the trap; `{words}` is the fixture table */
  readonly traps?: Partial<Record<EngineName, Trap>>;
}

const words = (schema?: string) => table('words', 'w', schema);
const win = (fn: WindowFn | AggFn, args: RemoteExpr[], partitionBy: RemoteExpr[], orderBy: RemoteOrderKey[], type: JType): RemoteExpr => ({
  kind: 'window',
  fn,
  args,
  partitionBy,
  orderBy,
  type,
});

/** `SELECT u.x FROM (SELECT n AS x FROM words … <op> SELECT k FROM other) u` */
const setop = (schema: string | undefined, op: 'union' | 'intersect' | 'except', all: boolean, words_: Partial<RemoteQuery> = {}): RemoteQuery => ({
  select: [{ expr: col('u', 'x', t.int32), alias: 'x' }],
  from: {
    kind: 'setop',
    alias: 'u',
    op,
    all,
    left: { select: [{ expr: w('n'), alias: 'x' }], from: words(schema), ...words_ },
    right: { select: [{ expr: o('k'), alias: 'k' }], from: table('other', 'o', schema) },
  },
});
const idsWhere = (where: RemoteExpr, orderBy = [byId]) => (schema?: string): RemoteQuery => ({
  select: [{ expr: w('id'), alias: 'id' }],
  from: words(schema),
  where,
  orderBy,
});

const CASES: Case[] = [
  // ---- strings: the collation traps ----
  {
    name: 'string = is case-, accent- and trailing-blank-exact',
    query: idsWhere(call('or', [call('eq', [w('v'), str('abc')]), call('eq', [w('v'), str('e')])])),
    rows: ids(1, 9),
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: {
      mysql: { sql: `SELECT id FROM {words} WHERE v = 'abc' OR v = 'e' ORDER BY id`, rows: ids(1, 2, 3, 4, 8, 9) },
      sqlserver: { sql: `SELECT id FROM {words} WHERE v = N'abc' ORDER BY id`, rows: ids(1, 2, 3, 4) },
    },
  },
  {
    name: 'char(n) = ignores trailing blanks on both sides',
    query: idsWhere(call('or', [call('eq', [w('c'), lit('ab', t.char(5))]), call('eq', [w('c'), lit('a b   ', t.char(5))])])),
    rows: ids(1, 3, 7),
    ordered: true,
    undeclaredOn: ['sqlserver'],
  },
  {
    name: 'string < and > order by code point',
    query: idsWhere(call('or', [call('lt', [w('v'), str('a')]), call('gt', [w('v'), str('e')])])),
    rows: ids(2, 4, 8),
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT id FROM {words} WHERE v < 'a' OR v > 'e' ORDER BY id`, rows: [] } },
  },
  {
    name: 'ORDER BY string: code point order, NULLS LAST',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'id' }, { expr: w('v'), alias: 'v' }],
      from: words(schema),
      orderBy: [{ expr: w('v'), desc: false, nullsFirst: false }, byId],
    }),
    rows: [[2, 'ABC'], [4, 'Abc'], [7, 'a'], [1, 'abc'], [3, 'abc '], [5, 'b'], [9, 'e'], [8, 'é'], [6, null]],
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT id FROM {words} ORDER BY v, id`, rows: ids(6, 7, 1, 2, 3, 4, 5, 8, 9) } },
  },
  {
    name: 'LIKE is case-sensitive and trailing blanks count',
    query: idsWhere(call('or', [call('like', [w('v'), str('a%')]), call('like', [w('v'), str('_bc')])])),
    rows: ids(1, 3, 4, 7),
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: {
      mysql: { sql: `SELECT id FROM {words} WHERE v LIKE 'a%' OR v LIKE '_bc' ORDER BY id`, rows: ids(1, 2, 3, 4, 7) },
      sqlite: { sql: `SELECT id FROM {words} WHERE v LIKE 'a%' OR v LIKE '_bc' ORDER BY id`, rows: [[1n], [2n], [3n], [4n], [7n]] },
    },
  },
  {
    name: 'LIKE on char(n) matches the blank-padded value',
    query: idsWhere(call('or', [call('like', [w('c'), str('ab')]), call('like', [w('c'), str('%b')]), call('like', [w('c'), str('ab___')])])),
    rows: ids(1, 3),
    ordered: true,
    undeclaredOn: ['sqlserver'],
  },
  {
    name: 'LIKE escapes: \\% is a literal percent, GLOB metacharacters are plain text',
    query: idsWhere(call('or', [call('like', [w('v'), str('a\\%')]), call('like', [w('v'), str('[a]%')]), call('like', [w('v'), str('ab*')])])),
    rows: [],
    undeclaredOn: ['sqlserver'],
  },
  {
    name: 'LIKE escapes: \\% and \\_ match themselves only',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('like', [str('50%'), str('50\\%')]), alias: 'pct' },
        { expr: call('like', [str('50x'), str('50\\%')]), alias: 'pct_other' },
        { expr: call('like', [str('a_c'), str('a\\_c')]), alias: 'us' },
        { expr: call('like', [str('abc'), str('a\\_c')]), alias: 'us_other' },
        { expr: call('like', [str('a\\b'), str('a\\\\b')]), alias: 'backslash' },
      ],
      from: words(schema),
      where: call('eq', [w('id'), int(1)]),
    }),
    rows: [[1, true, false, true, false, true]],
    undeclaredOn: ['sqlserver'],
  },
  {
    name: 'IN on strings is exact',
    query: idsWhere(inList(w('v'), [str('abc'), str('é')])),
    rows: ids(1, 8),
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT id FROM {words} WHERE v IN ('abc', 'é') ORDER BY id`, rows: ids(1, 2, 3, 4, 8, 9) } },
  },
  {
    name: 'GROUP BY string keeps case, accents and trailing blanks apart',
    query: (schema) => ({
      select: [{ expr: w('v'), alias: 'v' }, { expr: agg('count_star', [], t.int64), alias: 'n' }],
      from: words(schema),
      groupBy: [w('v')],
    }),
    rows: [['ABC', 1n], ['Abc', 1n], ['a', 1n], ['abc', 1n], ['abc ', 1n], ['b', 1n], ['e', 1n], ['é', 1n], [null, 1n]],
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT COUNT(*) FROM (SELECT v FROM {words} GROUP BY v) g`, rows: [[5n]] } },
  },
  {
    name: 'GROUP BY char(n) merges trailing blanks and returns the padded value',
    query: (schema) => ({
      select: [{ expr: w('c'), alias: 'c' }, { expr: agg('count_star', [], t.int64), alias: 'n' }],
      from: words(schema),
      groupBy: [w('c')],
    }),
    rows: [['AB   ', 1n], ['B    ', 1n], ['E    ', 1n], ['a b  ', 1n], ['ab   ', 2n], ['b    ', 1n], ['e    ', 1n], [null, 1n]],
    undeclaredOn: ['sqlserver'],
  },
  {
    name: 'DISTINCT strings, ordered, limited',
    query: (schema) => ({
      select: [{ expr: w('v'), alias: 'v' }],
      distinct: true,
      from: words(schema),
      where: call('is_not_null', [w('v')]),
      orderBy: [{ expr: w('v'), desc: false, nullsFirst: false }],
      limit: 4,
    }),
    rows: [['ABC'], ['Abc'], ['a'], ['abc']],
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT COUNT(DISTINCT v) FROM {words}`, rows: [[4n]] } },
  },
  {
    name: 'MIN/MAX and COUNT(DISTINCT) of strings',
    query: (schema) => ({
      select: [
        { expr: agg('min', [w('v')], t.varchar(10)), alias: 'lo' },
        { expr: agg('max', [w('v')], t.varchar(10)), alias: 'hi' },
        { expr: agg('count', [w('v')], t.int64, true), alias: 'distinct_v' },
      ],
      from: words(schema),
    }),
    rows: [['ABC', 'é', 8n]],
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT MIN(v), MAX(v) FROM {words}`, rows: [['a', 'é']] } },
  },
  {
    name: '|| concatenates, NULL when an argument is NULL',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'id' }, { expr: call('concat', [w('v'), str('!')], t.string), alias: 'x' }],
      from: words(schema),
      where: inList(w('id'), [int(1), int(3), int(6)]),
      orderBy: [byId],
    }),
    rows: [[1, 'abc!'], [3, 'abc !'], [6, null]],
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT 'a' || 'b'`, rows: [[0]] } },
  },
  {
    name: 'length counts characters, not bytes',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'id' }, { expr: call('length', [w('v')], t.int32), alias: 'len' }],
      from: words(schema),
      where: inList(w('id'), [int(1), int(3), int(8)]),
      orderBy: [byId],
    }),
    rows: [[1, 3], [3, 4], [8, 1]],
    ordered: true,
    undeclaredOn: ['sqlserver'],
    traps: { mysql: { sql: `SELECT LENGTH(v) FROM {words} WHERE id = 8`, rows: [[2]] } },
  },
  {
    name: 'substring, left, right, lower and upper count characters',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('substring', [w('v'), int(2), int(2)], t.string), alias: 'sub' },
        { expr: call('left', [w('v'), int(2)], t.string), alias: 'l' },
        { expr: call('right', [w('v'), int(2)], t.string), alias: 'r' },
        { expr: call('lower', [w('v')], t.string), alias: 'lo' },
        { expr: call('upper', [w('v')], t.string), alias: 'up' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(2), int(3), int(6), int(8)]),
      orderBy: [byId],
    }),
    rows: [[1, 'bc', 'ab', 'bc', 'abc', 'ABC'], [2, 'BC', 'AB', 'BC', 'abc', 'ABC'], [3, 'bc', 'ab', 'c ', 'abc ', 'ABC '], [6, null, null, null, null, null], [8, '', 'é', 'é', 'é', 'É']],
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver', 'duckdb'],
    // DuckDB's substring counts a negative start from the end; PostgreSQL's starts before the string
    traps: { duckdb: { sql: `SELECT substring('abc' FROM -1 FOR 3)`, rows: [['c']] } },
  },
  {
    name: 'left and right count characters, a negative length from the other end; starts_with, sign, trunc',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('left', [w('v'), int(2)], t.string), alias: 'l' },
        { expr: call('right', [w('v'), int(-1)], t.string), alias: 'r' },
        { expr: call('starts_with', [w('v'), str('a')]), alias: 'sw' },
        { expr: call('sign', [w('n')], t.int32), alias: 'sg' },
        { expr: call('trunc', [w('d')], t.decimal(10, 0)), alias: 'tr' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(3), int(6), int(8)]),
      orderBy: [byId],
    }),
    rows: [[1, 'ab', 'bc', true, 1, '1'], [3, 'ab', 'bc ', true, 0, '0'], [6, null, null, null, -1, '0'], [8, 'é', '', false, 1, '1']],
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
  },
  {
    name: 'trim, ltrim and rtrim: blanks by default, or the characters given',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('trim', [w('v')], t.string), alias: 't' },
        { expr: call('rtrim', [w('v')], t.string), alias: 'rt' },
        { expr: call('ltrim', [w('v'), str('a')], t.string), alias: 'lt' },
        { expr: call('trim', [w('v'), str('ac ')], t.string), alias: 'tset' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(3), int(6), int(7)]),
      orderBy: [byId],
    }),
    rows: [[1, 'abc', 'abc', 'bc', 'b'], [3, 'abc', 'abc', 'bc ', 'b'], [6, null, null, null, null], [7, 'a', 'a', '', '']],
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
  },
  {
    name: 'lpad and rpad pad to the length, and cut what is longer',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('lpad', [w('v'), int(5), str('*')], t.string), alias: 'lp' },
        { expr: call('rpad', [w('v'), int(2)], t.string), alias: 'rp' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(3), int(6), int(8)]),
      orderBy: [byId],
    }),
    rows: [[1, '**abc', 'ab'], [3, '*abc ', 'ab'], [6, null, null], [8, '****é', 'é ']],
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
  },
  {
    name: 'ILIKE ignores case; starts_with does not',
    query: idsWhere(call('or', [call('ilike', [w('v'), str('ab%')]), call('starts_with', [w('v'), str('e')])])),
    rows: ids(1, 2, 3, 4, 9),
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver', 'duckdb'],
  },
  {
    name: 'NOT, >= and IS NULL in three-valued logic',
    query: idsWhere(call('or', [call('not', [call('ge', [w('n'), int(3)])]), call('is_null', [w('n')])])),
    rows: ids(2, 3, 4, 5, 6),
    ordered: true,
  },
  // ---- numbers ----
  {
    name: 'integer division truncates toward zero; % keeps the dividend sign',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('div', [w('n'), int(2)], t.int32), alias: 'q' },
        { expr: call('mod', [w('n'), int(2)], t.int32), alias: 'r' },
      ],
      from: words(schema),
      where: call('is_not_null', [w('n')]),
      orderBy: [byId],
    }),
    rows: [[1, 3, 1], [2, -3, -1], [3, 0, 0], [5, 1, 0], [6, 0, -1], [7, 2, 1], [8, 1, 1], [9, 1, 1]],
    ordered: true,
    // by zero PostgreSQL raises division_by_zero; MariaDB's DIV/MOD and SQLite's / and % give NULL
    undeclaredOn: ['mysql', 'sqlite'],
    traps: {
      postgresql: { sql: `SELECT n / 0 FROM {words} WHERE id = 1`, fails: true },
      mysql: { sql: `SELECT n DIV 0, MOD(n, 0) FROM {words} WHERE id = 1`, rows: [[null, null]] },
      sqlite: { sql: `SELECT n / 0, n % 0 FROM {words} WHERE id = 1`, rows: [[null, null]] },
    },
  },
  {
    name: 'decimal arithmetic is exact',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('mul', [w('d'), w('d')], t.decimal(21, 4)), alias: 'sq' },
        { expr: call('add', [w('d'), lit('1.05', t.decimal(3, 2))], t.decimal(11, 2)), alias: 'plus' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(2), int(3)]),
      orderBy: [byId],
    }),
    rows: [[1, '1.2100', '2.15'], [2, '5.0625', '3.30'], [3, '0.2500', '0.55']],
    ordered: true,
    undeclaredOn: ['sqlite', 'sqlserver'],
    traps: { sqlite: { sql: `SELECT d * d FROM {words} WHERE id = 1`, rows: [[1.2100000000000002]] } },
  },
  {
    name: 'trunc, sign, power and sqrt',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('trunc', [w('d')], t.decimal(10, 0)), alias: 'tr' },
        { expr: call('sign', [w('n')], t.int32), alias: 'sg' },
        { expr: call('power', [w('n'), int(2)], t.float64), alias: 'pw' },
        { expr: call('sqrt', [call('abs', [w('n')], t.int32)], t.float64), alias: 'sq' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(2), int(3), int(4), int(5)]),
      orderBy: [byId],
    }),
    rows: [[1, '1', 1, 49, Math.sqrt(7)], [2, '2', -1, 49, Math.sqrt(7)], [3, '0', 0, 0, 0], [4, '10', null, null, null], [5, null, 1, 4, Math.SQRT2]],
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver', 'duckdb'],
  },
  {
    name: 'greatest and least skip NULL arguments',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('greatest', [w('n'), int(0)], t.int32), alias: 'g' },
        { expr: call('least', [w('n'), int(0)], t.int32), alias: 'l' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(2), int(4)]),
      orderBy: [byId],
    }),
    rows: [[1, 7, 0], [2, 0, -7], [4, 0, 0]],
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
  },
  {
    name: 'date_trunc of a timestamp, make_date',
    query: (schema) => ({
      select: [
        { expr: o('id'), alias: 'id' },
        { expr: call('date_trunc', [str('month'), col('o', 'ts', t.timestamp)], t.timestamp), alias: 'month' },
        { expr: call('date_trunc', [str('hour'), col('o', 'ts', t.timestamp)], t.timestamp), alias: 'hour' },
        { expr: call('make_date', [lit(2000, t.int32), lit(2, t.int32), o('id')], t.date), alias: 'day' },
      ],
      from: table('other', 'o', schema),
      orderBy: [{ expr: o('id'), desc: false, nullsFirst: false }],
    }),
    rows: [[1, '1995-03-01T00:00:00', '1995-03-01T10:00:00', '2000-02-01'], [2, '1995-03-01T00:00:00', '1995-03-01T10:00:00', '2000-02-02'], [3, null, null, '2000-02-03'], [4, '2000-01-01T00:00:00', '2000-01-01T00:00:00', '2000-02-04']],
    ordered: true,
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
  },
  {
    name: 'bool_and and bool_or are NULL over NULLs only',
    query: (schema) => ({
      select: [
        { expr: w('n'), alias: 'n' },
        { expr: agg('bool_and', [w('flag')], t.bool), alias: 'every' },
        { expr: agg('bool_or', [w('flag')], t.bool), alias: 'some' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(4), int(6), int(8), int(9)]),
      groupBy: [w('n')],
    }),
    rows: [[-1, null, null], [3, false, true], [7, true, true], [null, true, true]],
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
  },
  {
    name: 'string_agg keeps trailing blanks and skips NULLs',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'id' }, { expr: agg('string_agg', [w('v'), str(',')], t.string), alias: 'vs' }],
      from: words(schema),
      where: inList(w('id'), [int(1), int(3), int(6)]),
      groupBy: [w('id')],
    }),
    rows: [[1, 'abc'], [3, 'abc '], [6, null]],
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
  },
  {
    name: 'count, sum of integers and decimals',
    query: (schema) => ({
      select: [
        { expr: agg('count_star', [], t.int64), alias: 'n' },
        { expr: agg('count', [w('n')], t.int64), alias: 'nn' },
        { expr: agg('count', [w('n')], t.int64, true), alias: 'dn' },
        { expr: agg('sum', [w('n')], t.int64), alias: 'sn' },
        { expr: agg('sum', [w('d')], t.decimal(undefined, 2)), alias: 'sd' },
        { expr: agg('min', [w('d')], t.decimal(10, 2)), alias: 'lo' },
        { expr: agg('max', [w('dt')], t.date), alias: 'last' },
      ],
      from: words(schema),
    }),
    rows: [[9n, 8n, 7n, 12n, '18.24', '-0.50', '2000-02-29']],
    undeclaredOn: ['sqlite'],
  },
  {
    // TPC-H Q11's sum(ps_supplycost * ps_availqty): the integer widened to an unbounded decimal
    name: 'sum of a decimal times an integer cast to decimal',
    query: (schema) => ({
      select: [{ expr: agg('sum', [call('mul', [w('d'), { kind: 'cast', expr: w('n'), type: t.decimal() }], t.decimal())], t.decimal()), alias: 's' }],
      from: words(schema),
    }),
    rows: [['14.58']],
    undeclaredOn: ['sqlite', 'sqlserver'],
    // bare DECIMAL is DECIMAL(10,0) in MySQL: a wider integer would be clipped
    traps: { mysql: { sql: `SELECT CAST(n * 10000000000 AS DECIMAL) FROM {words} WHERE id = 1`, rows: [['9999999999']] } },
  },
  {
    name: 'avg has PostgreSQL scale',
    query: (schema) => ({ select: [{ expr: agg('avg', [w('n')], t.decimal()), alias: 'a' }], from: words(schema) }),
    rows: [['1.5000000000000000']],
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver', 'duckdb'],
    traps: { mysql: { sql: `SELECT AVG(n) FROM {words}`, rows: [['1.5000']] } },
  },
  {
    name: 'IS DISTINCT FROM and NOT IN with NULLs',
    query: idsWhere(call('and', [call('is_distinct_from', [w('n'), int(3)]), inList(w('n'), [int(7), int(-7)], true)])),
    rows: ids(3, 5, 6, 7),
    ordered: true,
  },
  ...(
    [
      ['NULL functions: coalesce, nullif, IS NOT DISTINCT FROM NULL', [
        { expr: call('coalesce', [w('n'), int(0)], t.int32), alias: 'c' },
        { expr: call('nullif', [w('n'), int(0)], t.int32), alias: 'z' },
        { expr: call('is_not_distinct_from', [w('n'), lit(null, t.int32)]), alias: 'isnull' },
      ], [[1, 7, 7, false], [3, 0, null, false], [4, 0, null, true], [6, -1, -1, false]], []],
      ['integer arithmetic: abs, neg, +, -, *', [
        { expr: call('abs', [w('n')], t.int32), alias: 'a' },
        { expr: call('neg', [w('n')], t.int32), alias: 'ng' },
        { expr: call('add', [w('n'), int(1)], t.int32), alias: 'p' },
        { expr: call('sub', [w('n'), int(1)], t.int32), alias: 's' },
        { expr: call('mul', [w('n'), int(3)], t.int32), alias: 'm' },
      ], [[1, 7, -7, 8, 6, 21], [3, 0, 0, 1, -1, 0], [4, null, null, null, null, null], [6, 1, 1, 0, -2, -3]], []],
      ['decimal rounding: round half away from zero, floor, ceil, abs', [
        { expr: call('round', [w('d'), int(1)], t.decimal(undefined, 1)), alias: 'r' },
        { expr: call('floor', [w('d')], t.decimal(undefined, 0)), alias: 'f' },
        { expr: call('ceil', [w('d')], t.decimal(undefined, 0)), alias: 'c' },
        { expr: call('abs', [w('d')], t.decimal(10, 2)), alias: 'a' },
      ], [[1, '1.1', '1', '2', '1.10'], [3, '-0.5', '-1', '0', '0.50'], [4, '10.0', '10', '10', '10.00'], [6, '0.1', '0', '1', '0.05']], ['sqlite', 'sqlserver']],
      ['decimal mod keeps the dividend sign', [
        { expr: call('mod', [w('d'), lit('1', t.decimal(1, 0))], t.decimal(undefined, 2)), alias: 'm' },
      ], [[1, '0.10'], [3, '-0.50'], [4, '0.00'], [6, '0.05']], ['mysql', 'sqlite', 'sqlserver']],
      ['string search: position, replace (case-sensitive)', [
        { expr: call('position', [str('bc '), w('v')], t.int32), alias: 'p' },
        { expr: call('replace', [w('v'), str('b'), str('X')], t.string), alias: 'r' },
      ], [[1, 0, 'aXc'], [3, 2, 'aXc '], [4, 0, 'AXc'], [6, null, null]], ['sqlserver']],
      ['date_part quarter, day of year, day', [
        { expr: call('date_part', [str('quarter'), w('dt')], t.float64), alias: 'q' },
        { expr: call('date_part', [str('doy'), w('dt')], t.float64), alias: 'doy' },
        { expr: call('date_part', [str('day'), w('dt')], t.float64), alias: 'd' },
      ], [[1, 1, 59, 28], [3, 4, 366, 31], [4, 1, 61, 2], [6, 1, 60, 29]], []],
    ] as const
  ).map(
    ([name, exprs, rows, undeclaredOn]): Case => ({
      name,
      query: (schema) => ({
        select: [{ expr: w('id'), alias: 'id' }, ...exprs],
        from: words(schema),
        where: inList(w('id'), [int(1), int(3), int(4), int(6)]),
        orderBy: [byId],
      }),
      rows: rows.map((r) => [...r]),
      ordered: true,
      undeclaredOn,
    }),
  ),
  // ---- NULL ordering ----
  ...(
    [
      [false, false, [2, 6, 3, 5, 8, 9, 7, 1, 4]],
      [true, true, [4, 1, 7, 8, 9, 5, 3, 6, 2]],
      [false, true, [4, 2, 6, 3, 5, 8, 9, 7, 1]],
      [true, false, [1, 7, 8, 9, 5, 3, 6, 2, 4]],
    ] as const
  ).map(
    ([desc, nullsFirst, expected]): Case => ({
      name: `ORDER BY n ${desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`,
      query: (schema) => ({
        select: [{ expr: w('id'), alias: 'id' }],
        from: words(schema),
        orderBy: [{ expr: w('n'), desc, nullsFirst }, byId],
      }),
      rows: ids(...expected),
      ordered: true,
      traps: !desc && !nullsFirst ? { mysql: { sql: `SELECT id FROM {words} ORDER BY n, id`, rows: ids(4, 2, 6, 3, 5, 8, 9, 7, 1) } } : undefined,
    }),
  ),
  {
    name: 'LIMIT and OFFSET',
    query: (schema) => ({ select: [{ expr: w('id'), alias: 'id' }], from: words(schema), orderBy: [byId], limit: 3, offset: 2 }),
    rows: ids(3, 4, 5),
    ordered: true,
  },
  // ---- dates ----
  {
    name: 'date compared with a date literal',
    query: idsWhere(call('lt', [w('dt'), lit('1995-03-01', t.date)])),
    rows: ids(1, 8, 9),
    ordered: true,
  },
  {
    name: 'date_part year, month, day of week',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('date_part', [str('year'), w('dt')], t.float64), alias: 'y' },
        { expr: call('date_part', [str('month'), w('dt')], t.float64), alias: 'm' },
        { expr: call('date_part', [str('dow'), w('dt')], t.float64), alias: 'dow' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(2), int(5), int(6)]),
      orderBy: [byId],
    }),
    rows: [[1, 1995, 2, 2], [2, 1995, 3, 3], [5, null, null, null], [6, 2000, 2, 2]],
    ordered: true,
  },
  {
    name: 'date + integer is a date',
    query: (schema) => ({
      select: [{ expr: call('add', [w('dt'), int(1)], t.date), alias: 'next' }],
      from: words(schema),
      where: call('eq', [w('id'), int(1)]),
    }),
    rows: [['1995-03-01']],
    undeclaredOn: ['mysql', 'sqlite', 'sqlserver'],
    traps: {
      mysql: { sql: `SELECT dt + 1 FROM {words} WHERE id = 1`, rows: [[19950229n]] },
      sqlite: { sql: `SELECT dt + 1 FROM {words} WHERE id = 1`, rows: [[1996n]] },
    },
  },
  {
    name: 'CAST of a string to date',
    query: idsWhere(call('eq', [w('dt'), { kind: 'cast', expr: str('1995-03-01'), type: t.date }])),
    rows: ids(2, 7),
    ordered: true,
    undeclaredOn: ['sqlite', 'duckdb'],
  },
  // ---- booleans, CASE ----
  {
    name: 'boolean results are values (true / false / NULL)',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: call('gt', [w('n'), int(0)]), alias: 'pos' },
        { expr: w('flag'), alias: 'flag' },
        { expr: call('and', [w('flag'), call('gt', [w('n'), int(0)])]), alias: 'both' },
      ],
      from: words(schema),
      where: call('or', [w('flag'), call('eq', [w('id'), int(2)])]),
      orderBy: [byId],
    }),
    rows: [[1, true, true, true], [2, false, false, false], [4, null, true, null], [7, true, true, true], [9, true, true, true]],
    ordered: true,
  },
  {
    name: 'CASE, searched and simple',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        {
          expr: {
            kind: 'case',
            whens: [
              { when: call('lt', [w('n'), int(0)]), then: str('neg') },
              { when: call('eq', [w('n'), int(0)]), then: str('zero') },
            ],
            else: str('pos'),
            type: t.string,
          },
          alias: 'sign',
        },
        { expr: { kind: 'case', operand: w('n'), whens: [{ when: int(7), then: int(70) }], type: t.int32 }, alias: 'seven' },
      ],
      from: words(schema),
      where: inList(w('id'), [int(1), int(2), int(3), int(4)]),
      orderBy: [byId],
    }),
    rows: [[1, 'pos', 70], [2, 'neg', null], [3, 'zero', null], [4, 'pos', null]],
    ordered: true,
  },
  {
    name: 'timestamp compared with a timestamp literal, fractional seconds kept',
    query: (schema) => ({
      select: [
        { expr: o('id'), alias: 'id' },
        { expr: col('o', 'ts', t.timestamp), alias: 'ts' },
        { expr: call('date_part', [str('second'), col('o', 'ts', t.timestamp)], t.float64), alias: 'sec' },
      ],
      from: table('other', 'o', schema),
      where: call('gt', [col('o', 'ts', t.timestamp), lit('1995-03-01T10:00:00', t.timestamp)]),
      orderBy: [{ expr: o('id'), desc: false, nullsFirst: false }],
    }),
    rows: [[2, '1995-03-01T10:00:00.5', 0.5], [4, '2000-01-01T00:00:00', 0]],
    ordered: true,
    undeclaredOn: ['sqlite'],
  },
  {
    name: 'GROUP BY integer with HAVING on a bigint count',
    query: (schema) => ({
      select: [{ expr: w('n'), alias: 'n' }, { expr: agg('count_star', [], t.int64), alias: 'cnt' }],
      from: words(schema),
      groupBy: [w('n')],
      having: call('gt', [agg('count_star', [], t.int64), lit(1n, t.int64)]),
    }),
    rows: [[3, 2n]],
  },
  {
    name: 'identifiers with quotes, backticks and brackets are quoted, never spliced',
    query: (schema) => ({
      select: [{ expr: col('h"`]', HOSTILE.column, t.int32), alias: 'x"`]' }],
      from: table(HOSTILE.table, 'h"`]', schema),
    }),
    rows: [[42]],
  },
  // ---- joins, subqueries ----
  {
    name: 'RIGHT JOIN keeps the right side',
    query: (schema) => ({
      select: [{ expr: o('id'), alias: 'oid' }, { expr: w('id'), alias: 'wid' }],
      from: { kind: 'join', type: 'right', left: words(schema), right: table('other', 'o', schema), on: call('eq', [w('n'), o('k')]) },
    }),
    rows: [[1, 1], [2, null], [3, null], [4, 8], [4, 9]],
  },
  {
    name: 'CROSS JOIN',
    query: (schema) => ({
      select: [{ expr: agg('count_star', [], t.int64), alias: 'n' }],
      from: { kind: 'join', type: 'cross', left: words(schema), right: table('other', 'o', schema) },
    }),
    rows: [[36n]],
  },
  {
    name: 'LEFT JOIN keeps unmatched rows',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'id' }, { expr: o('s'), alias: 's' }],
      from: { kind: 'join', type: 'left', left: words(schema), right: table('other', 'o', schema), on: call('eq', [w('n'), o('k')]) },
      where: call('le', [w('id'), int(3)]),
    }),
    rows: [[1, 'x'], [2, null], [3, null]],
  },
  {
    name: 'FULL JOIN keeps both sides',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'wid' }, { expr: o('id'), alias: 'oid' }],
      from: { kind: 'join', type: 'full', left: words(schema), right: table('other', 'o', schema), on: call('eq', [w('n'), o('k')]) },
    }),
    rows: [[1, 1], [2, null], [3, null], [4, null], [5, null], [6, null], [7, null], [8, 4], [9, 4], [null, 2], [null, 3]],
    undeclaredOn: ['mysql'],
    // MariaDB reads FULL as an alias of words and runs an inner join: 3 rows where PostgreSQL has 11
    traps: { mysql: { sql: `SELECT COUNT(*) FROM {words} FULL JOIN {other} ON n = k`, rows: [[3n]] } },
  },
  {
    name: 'EXISTS reading the outer row: a semi join',
    query: (schema) =>
      idsWhere({
        kind: 'exists',
        negated: false,
        query: { select: [{ expr: o('id'), alias: 'id' }], from: table('other', 'o', schema), where: call('eq', [o('k'), w('n')]) },
        type: t.bool,
      })(schema),
    rows: ids(1, 8, 9),
  },
  {
    name: 'NOT EXISTS with its own filter: an anti join keeps rows whose key is NULL',
    query: (schema) =>
      idsWhere({
        kind: 'exists',
        negated: true,
        query: {
          select: [{ expr: o('id'), alias: 'id' }],
          from: table('other', 'o', schema),
          where: call('and', [call('eq', [o('k'), w('n')]), call('ne', [o('id'), int(4)])]),
        },
        type: t.bool,
      })(schema),
    rows: ids(2, 3, 4, 5, 6, 7, 8, 9),
  },
  {
    name: 'UNION ALL keeps duplicates, and a limited side stays limited',
    query: (schema) => setop(schema, 'union', true, { where: call('gt', [w('n'), int(2)]), orderBy: [byId], limit: 2 }),
    rows: [[7], [5], [7], [99], [null], [3]],
  },
  {
    name: 'UNION removes duplicates, NULLs counting as equal',
    query: (schema) => setop(schema, 'union', false),
    rows: [[7], [-7], [0], [null], [2], [-1], [5], [3], [99]],
  },
  {
    name: 'INTERSECT',
    query: (schema) => setop(schema, 'intersect', false),
    rows: [[7], [3], [null]],
  },
  {
    name: 'EXCEPT ALL subtracts as many as the other side has',
    query: (schema) => setop(schema, 'except', true),
    rows: [[-7], [0], [2], [-1], [5], [3]],
    undeclaredOn: ['sqlite', 'sqlserver'],
  },
  {
    name: 'UNION of strings compares them exactly (trailing blanks and case count)',
    query: (schema) => ({
      select: [{ expr: col('u', 'x', t.varchar(10)), alias: 'x' }],
      from: {
        kind: 'setop',
        alias: 'u',
        op: 'union',
        all: false,
        left: { select: [{ expr: w('v'), alias: 'x' }], from: words(schema) },
        right: { select: [{ expr: o('s'), alias: 's' }], from: table('other', 'o', schema) },
      },
    }),
    rows: [['abc'], ['ABC'], ['abc '], ['Abc'], ['b'], [null], ['a'], ['é'], ['e'], ['x'], ['y'], ['z'], ['w']],
  },
  {
    name: 'row_number() per partition, NULLs one partition',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'id' }, { expr: win('row_number', [], [w('flag')], [byId], t.int64), alias: 'rn' }],
      from: words(schema),
    }),
    rows: [[1, 1n], [4, 2n], [7, 3n], [9, 4n], [2, 1n], [5, 2n], [8, 3n], [3, 1n], [6, 2n]],
  },
  {
    name: 'rank() ordered ascending puts NULLs last and shares ties',
    query: (schema) => ({
      select: [{ expr: w('id'), alias: 'id' }, { expr: win('rank', [], [], [{ expr: w('n'), desc: false, nullsFirst: false }], t.int64), alias: 'r' }],
      from: words(schema),
    }),
    rows: [[2, 1n], [6, 2n], [3, 3n], [5, 4n], [8, 5n], [9, 5n], [7, 7n], [1, 8n], [4, 9n]],
  },
  {
    name: 'lag() and count(*) over windows',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: win('lag', [w('n')], [], [byId], t.int32), alias: 'prev' },
        { expr: win('count_star', [], [w('flag')], [], t.int64), alias: 'peers' },
      ],
      from: words(schema),
    }),
    rows: [[1, null, 4n], [2, 7, 3n], [3, -7, 2n], [4, 0, 4n], [5, null, 3n], [6, 2, 2n], [7, -1, 4n], [8, 5, 3n], [9, 3, 4n]],
  },
  {
    name: 'dense_rank, lead, first_value, last_value and ntile over windows',
    query: (schema) => ({
      select: [
        { expr: w('id'), alias: 'id' },
        { expr: win('dense_rank', [], [], [{ expr: w('n'), desc: false, nullsFirst: false }], t.int64), alias: 'dr' },
        { expr: win('lead', [w('n')], [], [byId], t.int32), alias: 'next' },
        { expr: win('first_value', [w('id')], [w('flag')], [byId], t.int32), alias: 'first' },
        { expr: win('last_value', [w('id')], [], [byId], t.int32), alias: 'last' },
        { expr: win('ntile', [int(4)], [], [byId], t.int32), alias: 'q' },
      ],
      from: words(schema),
    }),
    rows: [[1, 7n, -7, 1, 1, 1], [2, 1n, 0, 2, 2, 1], [3, 3n, null, 3, 3, 1], [4, 8n, 2, 1, 4, 2], [5, 4n, -1, 2, 5, 2], [6, 2n, 5, 3, 6, 3], [7, 6n, 3, 1, 7, 3], [8, 5n, 3, 2, 8, 4], [9, 5n, null, 1, 9, 4]],
  },
  {
    name: 'subquery in FROM with its own ORDER BY and LIMIT',
    query: (schema) => ({
      select: [{ expr: col('s', 'k', t.int32), alias: 'k' }, { expr: agg('count_star', [], t.int64), alias: 'cnt' }],
      from: {
        kind: 'subquery',
        alias: 's',
        query: {
          select: [{ expr: w('n'), alias: 'k' }],
          from: words(schema),
          where: call('gt', [w('n'), int(0)]),
          orderBy: [{ expr: w('n'), desc: true, nullsFirst: true }],
          limit: 3,
        },
      },
      groupBy: [col('s', 'k', t.int32)],
    }),
    rows: [[7, 1n], [5, 1n], [3, 1n]],
  },
];

/** Engine behaviour the dialects work around, shown on the raw engine. */
const RAW_FACTS: Partial<Record<EngineName, { name: string; sql: string; rows: Row[] }[]>> = {
  mysql: [
    {
      name: "MariaDB's _bin collation is PAD SPACE; only _nopad_bin gives varchar's meaning",
      sql: `SELECT 'a' = 'a ' COLLATE utf8mb4_bin, 'a' = 'a ' COLLATE utf8mb4_nopad_bin, 'a' = 'A' COLLATE utf8mb4_nopad_bin`,
      rows: [[1, 0, 0]],
    },
    // PostgreSQL: false, true (bpchar is matched blank-padded)
    { name: 'CHAR(n) is matched by LIKE without its pad blanks, so LIKE needs RPAD', sql: `SELECT c LIKE 'ab', c LIKE 'ab___' FROM {words} WHERE id = 3`, rows: [[1, 0]] },
    { name: 'GREATEST is NULL when any argument is (PostgreSQL ignores NULLs): undeclared', sql: `SELECT GREATEST(1, NULL)`, rows: [[null]] },
  ],
  sqlite: [
    { name: 'CHAR(n) keeps whatever blanks were stored, so char columns are read through RTRIM', sql: `SELECT length(c) FROM {words} WHERE id = 3`, rows: [[4n]] },
    { name: 'decimals are binary floats: decimal arithmetic undeclared', sql: `SELECT d + 0.2 FROM {words} WHERE id = 6`, rows: [[0.25]] },
    { name: 'decimal sums drift: sum over decimals undeclared', sql: `SELECT sum(x) FROM (SELECT 0.1 AS x UNION ALL SELECT 0.2)`, rows: [[0.30000000000000004]] },
  ],
  sqlserver: [{ name: "'a' = 'a ' even under a binary collation: strings undeclared", sql: `SELECT CASE WHEN N'a' = N'a ' COLLATE Latin1_General_100_BIN2 THEN 1 ELSE 0 END`, rows: [[1]] }],
};

/** The scalar, aggregate and window functions a query calls, anywhere in it. */
function functionsIn(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => functionsIn(n, out));
  else if (node && typeof node === 'object') {
    const n = node as { kind?: string; fn?: string };
    if ((n.kind === 'call' || n.kind === 'agg' || n.kind === 'window') && n.fn) out.add(n.fn);
    Object.values(node).forEach((v) => functionsIn(v, out));
  }
}

function key(v: Value): string {
  return typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `0x${Buffer.from(v).toString('hex')}` : JSON.stringify(v);
}
/** `{words}` in raw SQL names the fixture table in the engine's test schema. */
const qualify = (sql: string, e: EngineUnderTest) => sql.replace(/\{(\w+)\}/g, (_, name: string) => (e.schema ? `${e.schema}.${name}` : name));

/** Raw rows carry the driver's own number representations; compare values, not representations. */
const loose = (rows: Row[]) => rows.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
const sortRows = (rows: Row[]) => [...rows].sort((a, b) => (a.map(key).join('|') < b.map(key).join('|') ? -1 : 1));

const ENGINES: { engine: EngineName; start: () => Promise<EngineUnderTest> }[] = [
  { engine: 'postgresql', start: () => startPostgres(process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test') },
  { engine: 'mysql', start: () => startMysql(process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test') },
  { engine: 'sqlite', start: startSqlite },
  { engine: 'duckdb', start: startDuckdb },
];
const MSSQL_URL = process.env.TEST_MSSQL_URL;
if (MSSQL_URL) ENGINES.push({ engine: 'sqlserver', start: () => startSqlServer(MSSQL_URL) });
else console.log('SQL Server live tests skipped: TEST_MSSQL_URL is not set');

for (const { engine, start } of ENGINES) {
  describe(`conformance: ${engine}`, () => {
    let e: EngineUnderTest;
    beforeAll(async () => {
      e = await start();
      await loadFixture(e);
      // capabilities and the dialect follow the measured semantics
      await e.connector.probe();
    });
    afterAll(async () => {
      await e?.drop();
    });

    for (const fact of RAW_FACTS[engine] ?? []) {
      it(`raw engine fact: ${fact.name}`, async () => {
        expect((await e.connector.execute(qualify(fact.sql, e))).rows).toEqual(fact.rows);
      });
    }

    it('sends every function it declares to the live engine in some case', () => {
      const caps = e.connector.capabilities();
      const sent = new Set<string>();
      for (const c of CASES) if (!c.undeclaredOn?.includes(engine)) functionsIn(c.query(e.schema), sent);
      const declared = [
        ...Object.keys(caps.functions),
        ...Object.entries(caps.aggregates).filter(([, on]) => on).map(([fn]) => fn),
        ...Object.entries(caps.windowFunctions).filter(([, on]) => on).map(([fn]) => fn),
      ];
      expect(declared.filter((fn) => !sent.has(fn)), 'declared but never run on the engine').toEqual([]);
    });

    for (const c of CASES) {
      const expectUndeclared = c.undeclaredOn?.includes(engine) ?? false;
      it(`${c.name}${expectUndeclared ? ' (undeclared)' : ''}`, async () => {
        const q = c.query(e.schema);
        const missing = undeclared(e.connector.capabilities(), q);
        if (expectUndeclared) {
          expect(missing, 'a semantic trap must stay undeclared').not.toEqual([]);
        } else {
          expect(missing, 'declared capabilities').toEqual([]);
          const rendered = e.connector.render(q);
          const rows: Row[] = [];
          for await (const batch of e.connector.stream(rendered)) rows.push(...batch.rows);
          expect(c.ordered ? rows : sortRows(rows), rendered.sql).toEqual(c.ordered ? c.rows : sortRows(c.rows));
        }
        const trap = c.traps?.[engine];
        if (trap) {
          if ('fails' in trap) {
            await expect(e.connector.execute(qualify(trap.sql, e))).rejects.toThrow();
          } else {
            const raw = await e.connector.execute(qualify(trap.sql, e));
            expect(raw.rows, `raw ${engine}: ${trap.sql}`).toEqual(trap.rows);
            expect(loose(raw.rows), 'the trap differs from PostgreSQL').not.toEqual(loose(c.rows));
          }
        }
      });
    }
  });
}
