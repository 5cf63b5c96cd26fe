import { t, type ColumnMeta, type JType } from '@junction/connectors';

/**
 * The eight TPC-H tables with the column types of dbgen's reference DDL (dss.ddl):
 * INTEGER keys (int32, enough for o_orderkey up to SF 10 = 60,000,000), DECIMAL(15,2)
 * money and quantities, CHAR(n)/VARCHAR(n) as the specification declares them, DATE dates.
 */
export type TableName = 'region' | 'nation' | 'supplier' | 'part' | 'partsupp' | 'customer' | 'orders' | 'lineitem';

export const TABLE_NAMES: readonly TableName[] = [
  'region',
  'nation',
  'supplier',
  'part',
  'partsupp',
  'customer',
  'orders',
  'lineitem',
];

export interface IndexDef {
  readonly name: string;
  readonly columns: readonly string[];
}

export interface TableDef {
  readonly name: TableName;
  readonly columns: readonly ColumnMeta[];
  readonly primaryKey: readonly string[];
  /** secondary indexes from workload/jdv/layout.json */
  readonly indexes: readonly IndexDef[];
}

const money: JType = t.decimal(15, 2);

function col(name: string, type: JType, nullable = false): ColumnMeta {
  return { name, type, nullable };
}

function index(table: string, column: string): IndexDef {
  return { name: `${table}_${column}_idx`, columns: [column] };
}

export const TABLES: Readonly<Record<TableName, TableDef>> = {
  region: {
    name: 'region',
    columns: [col('r_regionkey', t.int32), col('r_name', t.char(25)), col('r_comment', t.varchar(152), true)],
    primaryKey: ['r_regionkey'],
    indexes: [],
  },
  nation: {
    name: 'nation',
    columns: [
      col('n_nationkey', t.int32),
      col('n_name', t.char(25)),
      col('n_regionkey', t.int32),
      col('n_comment', t.varchar(152), true),
    ],
    primaryKey: ['n_nationkey'],
    indexes: [index('nation', 'n_regionkey')],
  },
  supplier: {
    name: 'supplier',
    columns: [
      col('s_suppkey', t.int32),
      col('s_name', t.char(25)),
      col('s_address', t.varchar(40)),
      col('s_nationkey', t.int32),
      col('s_phone', t.char(15)),
      col('s_acctbal', money),
      col('s_comment', t.varchar(101)),
    ],
    primaryKey: ['s_suppkey'],
    indexes: [index('supplier', 's_nationkey')],
  },
  part: {
    name: 'part',
    columns: [
      col('p_partkey', t.int32),
      col('p_name', t.varchar(55)),
      col('p_mfgr', t.char(25)),
      col('p_brand', t.char(10)),
      col('p_type', t.varchar(25)),
      col('p_size', t.int32),
      col('p_container', t.char(10)),
      col('p_retailprice', money),
      col('p_comment', t.varchar(23)),
    ],
    primaryKey: ['p_partkey'],
    indexes: [],
  },
  partsupp: {
    name: 'partsupp',
    columns: [
      col('ps_partkey', t.int32),
      col('ps_suppkey', t.int32),
      col('ps_availqty', t.int32),
      col('ps_supplycost', money),
      col('ps_comment', t.varchar(199)),
    ],
    primaryKey: ['ps_partkey', 'ps_suppkey'],
    indexes: [index('partsupp', 'ps_partkey'), index('partsupp', 'ps_suppkey')],
  },
  customer: {
    name: 'customer',
    columns: [
      col('c_custkey', t.int32),
      col('c_name', t.varchar(25)),
      col('c_address', t.varchar(40)),
      col('c_nationkey', t.int32),
      col('c_phone', t.char(15)),
      col('c_acctbal', money),
      col('c_mktsegment', t.char(10)),
      col('c_comment', t.varchar(117)),
    ],
    primaryKey: ['c_custkey'],
    indexes: [index('customer', 'c_nationkey')],
  },
  orders: {
    name: 'orders',
    columns: [
      col('o_orderkey', t.int32),
      col('o_custkey', t.int32),
      col('o_orderstatus', t.char(1)),
      col('o_totalprice', money),
      col('o_orderdate', t.date),
      col('o_orderpriority', t.char(15)),
      col('o_clerk', t.char(15)),
      col('o_shippriority', t.int32),
      col('o_comment', t.varchar(79)),
    ],
    primaryKey: ['o_orderkey'],
    indexes: [index('orders', 'o_custkey')],
  },
  lineitem: {
    name: 'lineitem',
    columns: [
      col('l_orderkey', t.int32),
      col('l_partkey', t.int32),
      col('l_suppkey', t.int32),
      col('l_linenumber', t.int32),
      col('l_quantity', money),
      col('l_extendedprice', money),
      col('l_discount', money),
      col('l_tax', money),
      col('l_returnflag', t.char(1)),
      col('l_linestatus', t.char(1)),
      col('l_shipdate', t.date),
      col('l_commitdate', t.date),
      col('l_receiptdate', t.date),
      col('l_shipinstruct', t.char(25)),
      col('l_shipmode', t.char(10)),
      col('l_comment', t.varchar(44)),
    ],
    primaryKey: ['l_orderkey', 'l_linenumber'],
    indexes: [index('lineitem', 'l_orderkey'), index('lineitem', 'l_partkey'), index('lineitem', 'l_suppkey')],
  },
};

/** Rows of each table at a scale factor (dbgen's cardinalities; fixed tables do not scale). */
export function rowCount(table: Exclude<TableName, 'lineitem'>, sf: number): number {
  switch (table) {
    case 'region':
      return 5;
    case 'nation':
      return 25;
    case 'supplier':
      return scaled(10_000, sf);
    case 'part':
      return scaled(200_000, sf);
    case 'partsupp':
      return scaled(200_000, sf) * 4;
    case 'customer':
      return scaled(150_000, sf);
    case 'orders':
      return scaled(150_000, sf) * 10;
  }
}

function scaled(base: number, sf: number): number {
  return Math.max(1, Math.floor(base * sf + 1e-9));
}
