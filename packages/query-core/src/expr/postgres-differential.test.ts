import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatType, t } from '@junction/connectors';
import type { AggFn, JType, Value } from '@junction/connectors';
import type { LogicalPlan } from '../plan/logical.js';
import { bind } from '../sql/bind/bind.js';
import { jdvCatalog } from '../sql/test-fixture.js';
import { castValue, valueToText } from './cast.js';
import { compileExpr } from './compile.js';
import { makeAccumulator } from './aggregates.js';

/**
 * Binder typing + evaluator against the real PostgreSQL: each expression is bound and
 * evaluated by Junction and by PostgreSQL (`SELECT expr::text, pg_typeof(expr)`); the text
 * and the type must agree. A live server is required (TEST_PG_URL); it is read-only here.
 */
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';

const EXPRESSIONS = [
  // numeric: scales, division, rounding, integer semantics
  '1 + 2',
  '7 / 2',
  '-7 / 2',
  '-7 % 3',
  '2147483647::bigint + 1',
  '1 / 3.0',
  '10.0 / 4',
  '1.50 * 2.25',
  '100.10 * (1 - 0.05)',
  '1 - 0.05',
  '0.1 + 0.2',
  '0.1::float8 + 0.2::float8',
  '5 * 1.5::float8',
  'round(2.5)',
  'round(2.5::numeric)',
  'round(-2.5::numeric)',
  'round(2.345, 2)',
  'round(1234.5678, -2)',
  'trunc(-2.789, 1)',
  'floor(-2.5::numeric)',
  'ceil(2.1::numeric)',
  'abs(-3)',
  'abs(-3.50)',
  'sign(-3.2)',
  'sqrt(2::numeric)',
  'power(2::numeric, 10)',
  'mod(17, 5)',
  '(2.5)::int',
  '(3.5::float8)::int',
  "'42'::bigint * 2",
  '12345678901234567890 + 1',
  'greatest(1, 2.5, NULL)',
  'least(3, 2)',
  'coalesce(NULL, 2, 3)',
  'nullif(1, 1)',
  "CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' END",
  'CASE 2 WHEN 1 THEN 10 WHEN 2 THEN 20.5 END',
  // strings
  "'abc' || 'def'",
  "'n=' || 42",
  "'ab '::char(3) || 'x'",
  "length('ab '::char(4))",
  "length('ab  ')",
  "upper('abc')",
  "substring('hello', 2, 3)",
  "substring('hello', 0, 3)",
  "position('l' in 'hello')",
  "trim('  x  ')",
  "ltrim('xxaxx', 'x')",
  "lpad('abc', 5, 'xy')",
  "rpad('ab', 4)",
  "left('abcdef', -2)",
  "right('abcdef', 2)",
  "replace('a-b-c', '-', '+')",
  "concat('a', NULL, 1)",
  "'abc' LIKE 'a%'",
  "'50%' LIKE '50\\%'",
  "'ABC' ILIKE 'a_c'",
  "'a_c' LIKE 'a!_c' ESCAPE '!'",
  "'ab '::char(3) = 'ab'",
  "'ab ' = 'ab'",
  "'B' < 'a'",
  // dates and times
  "date '2020-01-31' + 1",
  "date '2020-03-01' - date '2020-01-01'",
  "date '2020-01-31' + interval '1 month'",
  "timestamp '2020-01-31 10:00:00' + interval '1' month",
  "timestamp '2020-03-01 00:00:00' - timestamp '2020-02-28 12:00:00'",
  "date '1995-03-01' < '1995-03-02'",
  "date '1998-01-01' = timestamp '1998-01-01 00:00:00'",
  "extract(year from date '1995-03-15')",
  "extract(second from timestamp '2020-01-01 10:00:12.5')",
  "extract(dow from date '2020-01-05')",
  "date_part('doy', date '2020-03-01')",
  "date_trunc('month', timestamp '2020-05-17 10:11:12')",
  "date_trunc('week', timestamp '2020-05-17 10:11:12')",
  'make_date(2024, 2, 29)',
  "'1995-03-01'::date",
  "'2020-01-01 10:00:00.123456'::timestamp",
  // logic and nulls
  'NULL::int IS NULL',
  '1 IS DISTINCT FROM NULL',
  'NULL::int IS NOT DISTINCT FROM NULL',
  'true AND NULL',
  'false AND NULL',
  'true OR NULL',
  'NOT (1 = NULL::int) IS NULL',
  '3 BETWEEN 1 AND 5',
  '3 NOT BETWEEN 1 AND 2',
  '2 IN (1, 2, NULL)',
  '3 IN (1, 2, NULL)',
  '3 NOT IN (1, 2)',
  '1.0 IN (1, 2)',
  // more traps: constants, typmods, intervals, NULL concatenation
  '1e3',
  '.5 + 1',
  '-9223372036854775808',
  '2 ^ 3',
  '5.0 % 3',
  '1::numeric / 7',
  '123.456::numeric(5,1)',
  "'  42'::int",
  "'t'::boolean",
  'true::text',
  '1.5::float8 * 3',
  "'abc' || NULL",
  "interval '1 day 2 hours'",
  "interval '90 minutes'",
  "timestamp '2020-01-01 00:00:00' - interval '1 day'",
  "date '2020-02-29' + interval '1 year'",
  "extract(epoch from timestamp '1970-01-02 00:00:01')",
  "extract(quarter from date '2020-08-01')",
  "'2020-01-01 10:00:00.5'::timestamp",
];

/** PostgreSQL's type names → the kind Junction must infer. */
const PG_KIND: Record<string, string> = {
  integer: 'int32',
  bigint: 'int64',
  smallint: 'int16',
  numeric: 'decimal',
  'double precision': 'float64',
  text: 'text',
  character: 'char',
  boolean: 'bool',
  date: 'date',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
  interval: 'interval',
};

function kindOf(t: JType): string {
  if (t.kind === 'string') return t.fixed ? 'char' : 'text';
  return t.kind === 'decimal' ? 'decimal' : formatType({ kind: t.kind });
}

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query("SET TIME ZONE 'UTC'");
});
afterAll(async () => {
  await client?.end();
});

describe('expressions agree with PostgreSQL 15 (value as text, and type)', () => {
  const catalog = jdvCatalog();
  it.each(EXPRESSIONS)('%s', async (expr) => {
    const res = await client.query({
      text: `SELECT (${expr})::text AS v, pg_typeof(${expr})::text AS t`,
      rowMode: 'array',
    });
    const [pgText, pgType] = res.rows[0] as [string | null, string];
    const bound = bind(`SELECT ${expr}`, catalog);
    const project = bound.plan as Extract<LogicalPlan, { kind: 'Project' }>;
    const e = project.exprs[0].expr;
    const value = compileExpr(e, new Map())([], []);
    const text = value === null ? null : valueToText(value, e.type);
    expect({ text, kind: kindOf(bound.columns[0].type) }).toEqual({ text: pgText, kind: PG_KIND[pgType] ?? pgType });
  });
});

/** Aggregates: accumulators (one pass, and split + merged) against PostgreSQL over the same values. */
const AGGREGATE_CASES: { sql: string; fn: AggFn; type: JType; values: Value[]; distinct?: boolean }[] = [
  { sql: 'sum(x)', fn: 'sum', type: t.int32, values: [2147483647, 2147483647, 5, null] },
  { sql: 'sum(x)', fn: 'sum', type: t.int64, values: [9223372036854775807n, 10n] },
  { sql: 'sum(x)', fn: 'sum', type: t.decimal(12, 3), values: ['1.125', '-0.5', '3', null] },
  { sql: 'avg(x)', fn: 'avg', type: t.int32, values: [1, 2, 2] },
  { sql: 'avg(x)', fn: 'avg', type: t.int64, values: [10n, 20n, 25n] },
  { sql: 'avg(x)', fn: 'avg', type: t.decimal(15, 2), values: ['100.10', '200.25', '0.01'] },
  { sql: 'avg(x)', fn: 'avg', type: t.decimal(15, 2), values: ['123456789.12', '0.01'] },
  { sql: 'avg(x)', fn: 'avg', type: t.float64, values: [0.1, 0.2, 0.4] },
  { sql: 'count(x)', fn: 'count', type: t.int32, values: [1, null, 3] },
  {
    sql: 'count(DISTINCT x)',
    fn: 'count',
    type: t.decimal(5, 2),
    values: ['1.00', '1.00', '2.50', null],
    distinct: true,
  },
  { sql: 'sum(DISTINCT x)', fn: 'sum', type: t.int32, values: [1, 1, 2], distinct: true },
  { sql: 'min(x)', fn: 'min', type: t.char(5), values: ['b    ', 'a    ', null] },
  { sql: 'max(x)', fn: 'max', type: t.string, values: ['a', 'B', 'ä'] },
  { sql: 'bool_and(x)', fn: 'bool_and', type: t.bool, values: [true, null, false] },
  { sql: 'sum(x)', fn: 'sum', type: t.int32, values: [null, null] },
];

function sqlLiteral(v: Value, type: JType): string {
  if (v === null) return `NULL::${pgType(type)}`;
  return `'${String(v).replace(/'/g, "''")}'::${pgType(type)}`;
}

function pgType(type: JType): string {
  switch (type.kind) {
    case 'int32':
      return 'integer';
    case 'int64':
      return 'bigint';
    case 'decimal':
      return `numeric(${type.precision},${type.scale})`;
    case 'float64':
      return 'float8';
    case 'string':
      return type.fixed ? `char(${type.length})` : 'text';
    case 'bool':
      return 'boolean';
    default:
      return type.kind;
  }
}

describe('aggregates agree with PostgreSQL 15', () => {
  it.each(AGGREGATE_CASES.map((c) => [`${c.sql} over ${c.values.map(String).join(', ')}`, c] as const))(
    '%s',
    async (_name, c) => {
      const rows = c.values.map((v) => `(${sqlLiteral(v, c.type)})`).join(', ');
      const res = await client.query({ text: `SELECT (${c.sql})::text FROM (VALUES ${rows}) v(x)`, rowMode: 'array' });
      const expected = (res.rows[0] as [string | null])[0];
      const acc = makeAccumulator(c.fn, c.type, { distinct: c.distinct });
      let one = acc.init();
      for (const v of c.values) one = acc.add(one, v);
      let a = acc.init();
      let b = acc.init();
      c.values.forEach((v, i) => {
        if (i % 2) a = acc.add(a, v);
        else b = acc.add(b, v);
      });
      // ::text semantics: char(n) loses its padding, as PostgreSQL's bpchar → text cast does
      const text = (v: Value) => (v === null ? null : (castValue(v, acc.resultType, t.string) as string));
      expect(text(acc.finish(one))).toBe(expected);
      const merged = text(acc.finish(acc.merge(a, b)));
      // float sums depend on addition order, in PostgreSQL's parallel aggregation too; exact types must merge exactly
      if (c.type.kind === 'float64') expect(Number(merged)).toBeCloseTo(Number(expected), 12);
      else expect(merged).toBe(expected);
    },
  );
});
