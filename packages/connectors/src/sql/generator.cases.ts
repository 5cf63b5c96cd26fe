import type { SourceSemantics } from '../contract/catalog.js';
import type { SourceEngineName } from '../contract/connector.js';
import type { RemoteQuery } from '../contract/remote-query.js';
import { t } from '../contract/types.js';
import { agg, call, col, lit, table } from './ir-builders.js';

/** The engines these cases compare: DuckDB's SQL is checked in duckdb/dialect.test.ts, documents renders no SQL. */
export type GeneratorEngine = Extract<SourceEngineName, 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite'>;
export const ENGINES: readonly GeneratorEngine[] = ['postgresql', 'mysql', 'sqlserver', 'sqlite'];

const semantics = (serverVersion: string, defaultCollation: string): SourceSemantics => ({
  serverVersion,
  defaultCollation,
  caseSensitive: true,
  accentSensitive: true,
  padSpace: false,
  timeZone: 'UTC',
  maxBindParams: 65535,
  maxIdentifierLength: 64,
});

/** The semantics each engine is probed with in the generator tests. */
export const PROBED: Record<GeneratorEngine, SourceSemantics | undefined> = {
  postgresql: semantics('15.18', 'C.UTF-8'),
  mysql: { ...semantics('10.11.6-MariaDB-0+deb12u1', 'utf8mb4_general_ci'), caseSensitive: false, padSpace: true },
  sqlserver: undefined,
  sqlite: semantics('3.51.2', 'BINARY'),
};
export const PG_LINGUISTIC = semantics('15.18', 'en_US.UTF-8');

const c = (name: string, type = t.int32) => col('c', name, type);
const o = (name: string, type = t.int32) => col('o', name, type);
const customer = table('customer', 'c');

export const CASES: Record<string, RemoteQuery> = {
  filterProject: {
    select: [
      { expr: c('c_custkey'), alias: 'c_custkey' },
      { expr: c('c_name', t.varchar(25)), alias: 'c_name' },
    ],
    from: table('customer', 'c', 'tpch'),
    where: call('and', [
      call('le', [c('c_custkey'), lit(100, t.int32)]),
      call('gt', [c('c_acctbal', t.decimal(15, 2)), lit('5.50', t.decimal(3, 2))]),
    ]),
  },
  joins: {
    select: [
      { expr: c('c_custkey'), alias: 'k' },
      { expr: o('o_orderdate', t.date), alias: 'd' },
      { expr: col('n', 'n_name', t.char(25)), alias: 'n' },
    ],
    from: {
      kind: 'join',
      type: 'full',
      left: { kind: 'join', type: 'left', left: customer, right: table('orders', 'o'), on: call('eq', [c('c_custkey'), o('o_custkey')]) },
      right: table('nation', 'n'),
      on: call('eq', [c('c_nationkey'), col('n', 'n_nationkey', t.int32)]),
    },
  },
  innerRightNested: {
    select: [{ expr: c('c_custkey'), alias: 'k' }],
    from: {
      kind: 'join',
      type: 'inner',
      left: customer,
      right: { kind: 'join', type: 'cross', left: table('orders', 'o'), right: table('nation', 'n') },
      on: call('eq', [c('c_custkey'), o('o_custkey')]),
    },
  },
  groupByHaving: {
    select: [
      { expr: o('o_custkey'), alias: 'ck' },
      { expr: agg('sum', [o('o_totalprice', t.decimal(15, 2))], t.decimal(undefined, 2)), alias: 'total' },
      { expr: agg('count_star', [], t.int64), alias: 'n' },
      { expr: agg('count', [o('o_clerk', t.char(15))], t.int64, true), alias: 'clerks' },
      { expr: agg('min', [o('o_comment', t.varchar(79))], t.varchar(79)), alias: 'first_comment' },
    ],
    from: table('orders', 'o'),
    where: call('lt', [o('o_orderdate', t.date), lit('1995-03-01', t.date)]),
    groupBy: [o('o_custkey')],
    having: call('gt', [agg('count_star', [], t.int64), lit(2n, t.int64)]),
    orderBy: [{ expr: agg('sum', [o('o_totalprice', t.decimal(15, 2))], t.decimal(undefined, 2)), desc: true, nullsFirst: true }],
  },
  sumOfIntegers: {
    select: [
      { expr: agg('sum', [o('o_shippriority', t.int32)], t.int64), alias: 's32' },
      { expr: agg('sum', [o('o_orderkey', t.int64)], t.decimal()), alias: 's64' },
    ],
    from: table('orders', 'o'),
  },
  nullsOrdering: {
    select: [
      { expr: c('a'), alias: 'a' },
      { expr: c('b', t.varchar(10)), alias: 'b' },
    ],
    from: customer,
    orderBy: [
      { expr: c('a'), desc: false, nullsFirst: false },
      { expr: c('a'), desc: false, nullsFirst: true },
      { expr: c('a'), desc: true, nullsFirst: true },
      { expr: c('a'), desc: true, nullsFirst: false },
      { expr: c('b', t.varchar(10)), desc: false, nullsFirst: false },
    ],
    limit: 10,
    offset: 20,
  },
  limitOnly: { select: [{ expr: c('a'), alias: 'a' }], from: customer, limit: 5 },
  offsetOnly: { select: [{ expr: c('a'), alias: 'a' }], from: customer, orderBy: [{ expr: c('a'), desc: false, nullsFirst: false }], offset: 7 },
  distinctOrdered: {
    select: [{ expr: c('c_mktsegment', t.char(10)), alias: 'seg' }],
    distinct: true,
    from: customer,
    orderBy: [{ expr: c('c_mktsegment', t.char(10)), desc: false, nullsFirst: false }],
    limit: 3,
  },
  inList: {
    select: [{ expr: c('c_custkey'), alias: 'k' }],
    from: customer,
    where: call('or', [
      { kind: 'in', expr: c('c_custkey'), list: [lit(1, t.int32), lit(2, t.int32), lit(3, t.int32)], negated: false, type: t.bool },
      { kind: 'in', expr: c('c_name', t.varchar(25)), list: [lit('Al', t.string), lit('Bo', t.string)], negated: true, type: t.bool },
    ]),
  },
  /** a dependent join's key sets: one array parameter where the dialect binds one (PostgreSQL), IN lists elsewhere */
  keySets: {
    select: [{ expr: c('c_custkey'), alias: 'k' }],
    from: customer,
    where: call('and', [
      call('and', [
        { kind: 'keySet', expr: c('c_custkey'), values: [1, 2, 3], type: t.bool },
        { kind: 'keySet', expr: c('c_big', t.int64), values: [9007199254740993n], type: t.bool },
      ]),
      call('and', [
        call('and', [
          { kind: 'keySet', expr: c('c_acctbal', t.decimal(15, 2)), values: ['-1.50', '10.00'], type: t.bool },
          { kind: 'keySet', expr: c('c_since', t.date), values: ['1995-03-01'], type: t.bool },
        ]),
        call('and', [
          { kind: 'keySet', expr: c('c_name', t.varchar(25)), values: ['Al', 'a,"b"\\ {NULL}'], type: t.bool },
          { kind: 'keySet', expr: c('c_mktsegment', t.char(10)), values: ['AUTO'], type: t.bool },
        ]),
      ]),
    ]),
  },
  caseAndCast: {
    select: [
      {
        expr: {
          kind: 'case',
          whens: [
            { when: call('lt', [c('c_acctbal', t.decimal(15, 2)), lit('0', t.decimal(1, 0))]), then: lit('debt', t.string) },
            { when: call('is_null', [c('c_acctbal', t.decimal(15, 2))]), then: lit(null, t.string) },
          ],
          else: lit('ok', t.string),
          type: t.string,
        },
        alias: 'status',
      },
      {
        expr: { kind: 'case', operand: c('c_nationkey'), whens: [{ when: lit(1, t.int32), then: lit(10, t.int32) }], type: t.int32 },
        alias: 'mapped',
      },
      { expr: { kind: 'cast', expr: c('c_since', t.timestamp), type: t.date }, alias: 'since' },
    ],
    from: customer,
  },
  likeAndStrings: {
    select: [
      { expr: call('concat', [c('c_name', t.varchar(25)), lit('/', t.string), c('c_phone', t.char(15))], t.string), alias: 'label' },
      { expr: call('length', [c('c_name', t.varchar(25))], t.int32), alias: 'len' },
    ],
    from: customer,
    where: call('and', [
      call('like', [c('c_name', t.varchar(25)), lit('Cust%_1\\%', t.string)]),
      call('like', [c('c_mktsegment', t.char(10)), lit('AUTO%', t.string)]),
    ]),
  },
  dateParts: {
    select: [
      { expr: call('date_part', [lit('year', t.string), o('o_orderdate', t.date)], t.float64), alias: 'y' },
      { expr: call('date_part', [lit('dow', t.string), o('o_orderdate', t.date)], t.float64), alias: 'dow' },
    ],
    from: table('orders', 'o'),
    where: call('eq', [call('date_part', [lit('month', t.string), o('o_orderdate', t.date)], t.float64), lit(3, t.float64)]),
  },
  arithmetic: {
    select: [
      { expr: call('div', [o('o_a'), lit(2, t.int32)], t.int32), alias: 'idiv' },
      { expr: call('mod', [o('o_a'), lit(3, t.int32)], t.int32), alias: 'imod' },
      {
        expr: call('mul', [o('l_extendedprice', t.decimal(15, 2)), call('sub', [lit('1', t.decimal(1, 0)), o('l_discount', t.decimal(15, 2))], t.decimal(16, 2))], t.decimal(32, 4)),
        alias: 'revenue',
      },
    ],
    from: table('lineitem', 'o'),
  },
  distinctFrom: {
    select: [{ expr: call('is_distinct_from', [c('a'), c('b')]), alias: 'differs' }],
    from: customer,
    where: call('is_not_distinct_from', [c('a'), lit(null, t.int32)]),
  },
  booleans: {
    select: [
      { expr: c('active', t.bool), alias: 'active' },
      { expr: call('and', [c('active', t.bool), call('gt', [c('a'), lit(1, t.int32)])]), alias: 'both' },
    ],
    from: customer,
    where: call('or', [c('active', t.bool), lit(true, t.bool)]),
  },
  subqueryInFrom: {
    select: [
      { expr: col('s', 'k', t.int32), alias: 'k' },
      { expr: agg('count_star', [], t.int64), alias: 'n' },
    ],
    from: {
      kind: 'subquery',
      alias: 's',
      query: {
        select: [{ expr: o('o_custkey'), alias: 'k' }],
        from: table('orders', 'o'),
        where: call('gt', [o('o_totalprice', t.decimal(15, 2)), lit('1000.00', t.decimal(6, 2))]),
        orderBy: [{ expr: o('o_totalprice', t.decimal(15, 2)), desc: true, nullsFirst: true }],
        limit: 100,
      },
    },
    where: call('gt', [col('s', 'k', t.int32), lit(0, t.int32)]),
    groupBy: [col('s', 'k', t.int32)],
  },
  /** mark joins: IN and EXISTS as select-list values (a predicate where the dialect needs a value) */
  inSubqueryMark: {
    select: [
      { expr: c('c_custkey'), alias: 'k' },
      {
        expr: {
          kind: 'inSubquery',
          expr: c('c_nationkey'),
          query: { select: [{ expr: o('o_custkey'), alias: 'y' }], from: table('orders', 'o'), where: call('gt', [o('o_totalprice'), lit(10, t.int32)]) },
          type: t.bool,
        },
        alias: 'hit',
      },
      {
        expr: {
          kind: 'exists',
          negated: false,
          query: { select: [{ expr: o('o_orderkey'), alias: 'o_orderkey' }], from: table('orders', 'o'), where: call('eq', [o('o_custkey'), c('c_custkey')]) },
          type: t.bool,
        },
        alias: 'any_order',
      },
    ],
    from: customer,
  },
  existsSemiAnti: {
    select: [{ expr: c('c_custkey'), alias: 'k' }],
    from: customer,
    where: call('and', [
      {
        kind: 'exists',
        negated: false,
        query: { select: [{ expr: o('o_orderkey'), alias: 'o_orderkey' }], from: table('orders', 'o'), where: call('eq', [o('o_custkey'), c('c_custkey')]) },
        type: t.bool,
      },
      {
        kind: 'exists',
        negated: true,
        query: {
          select: [{ expr: col('l', 'l_orderkey', t.int32), alias: 'l_orderkey' }],
          from: table('lineitem', 'l'),
          where: call('and', [call('eq', [col('l', 'l_suppkey', t.int32), c('c_nationkey')]), call('gt', [col('l', 'l_quantity', t.int32), lit(40, t.int32)])]),
          orderBy: [{ expr: col('l', 'l_orderkey', t.int32), desc: false, nullsFirst: false }],
        },
        type: t.bool,
      },
    ]),
  },
  setOpUnionAll: {
    select: [
      { expr: col('u', 'k', t.int32), alias: 'k' },
      { expr: agg('count_star', [], t.int64), alias: 'n' },
    ],
    from: {
      kind: 'setop',
      alias: 'u',
      op: 'union',
      all: true,
      left: {
        select: [{ expr: o('o_custkey'), alias: 'k' }],
        from: table('orders', 'o'),
        orderBy: [{ expr: o('o_totalprice', t.decimal(15, 2)), desc: true, nullsFirst: true }],
        limit: 10,
      },
      right: { select: [{ expr: c('c_custkey'), alias: 'c_custkey' }], from: customer, where: call('lt', [c('c_custkey'), lit(5, t.int32)]) },
    },
    groupBy: [col('u', 'k', t.int32)],
  },
  windows: {
    select: [
      { expr: o('o_orderkey'), alias: 'k' },
      {
        expr: {
          kind: 'window',
          fn: 'row_number',
          args: [],
          partitionBy: [o('o_custkey')],
          orderBy: [{ expr: o('o_totalprice', t.decimal(15, 2)), desc: true, nullsFirst: false }],
          type: t.int64,
        },
        alias: 'rn',
      },
      { expr: { kind: 'window', fn: 'sum', args: [o('o_totalprice', t.decimal(15, 2))], partitionBy: [], orderBy: [], type: t.decimal(undefined, 2) }, alias: 'total' },
    ],
    from: table('orders', 'o'),
  },
  derivedOrderDropped: {
    select: [{ expr: col('s', 'k', t.int32), alias: 'k' }],
    from: {
      kind: 'subquery',
      alias: 's',
      query: { select: [{ expr: o('o_custkey'), alias: 'k' }], from: table('orders', 'o'), orderBy: [{ expr: o('o_custkey'), desc: false, nullsFirst: false }] },
    },
  },
  hostileNames: {
    select: [{ expr: col('a"b`c]d', 'x"; DROP TABLE t; --', t.int32), alias: 'we`ird"]' }],
    from: table('t]a`b"le', 'a"b`c]d', 's"c`h]'),
  },
  argumentOrder: {
    select: [{ expr: call('position', [lit('b', t.string), lit('abc', t.string)], t.int32), alias: 'p' }],
    from: customer,
  },
};
