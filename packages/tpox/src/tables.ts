import { t, type ColumnMeta, type DocumentTableSpec, type JType, type Row } from '@junction/connectors';
import { FIXML_NS, type Customer, type Order, type Security } from './generate.js';

/**
 * The five relational tables the documents shred into, defined once: the documents connector's
 * table specs (row path and column paths, XMLTABLE style) and the PostgreSQL baseline's tables
 * come from the same list, with the same names and types, so one SQL text runs on both and
 * their answers compare row for row. Ancestor keys (an account's customer, a position's account
 * and customer) are columns of their own, as an XMLTABLE over the nested rows would give them.
 */
export type Collection = 'customers' | 'orders' | 'securities';
/** 'collection': one file per collection under a wrapper root; 'files': one file per document */
export type Layout = 'collection' | 'files';

export interface TpoxColumn {
  readonly name: string;
  /** SQL type text, as the documents connector takes it */
  readonly type: string;
  readonly jtype: JType;
  /** relative to the row element */
  readonly path: string;
  readonly nullable?: boolean;
}

export interface TpoxTable {
  readonly name: 'customer_account' | 'account' | 'position' | 'orders' | 'security';
  readonly collection: Collection;
  /** the row element below the document root, e.g. 'Customer/Accounts/Account' */
  readonly rowBelowRoot: string;
  readonly columns: readonly TpoxColumn[];
  readonly primaryKey: readonly string[];
  readonly indexes: readonly (readonly string[])[];
}

const int = (name: string, path: string): TpoxColumn => ({ name, type: 'integer', jtype: t.int32, path });
const text = (name: string, path: string, nullable = false): TpoxColumn => ({
  name,
  type: 'text',
  jtype: t.string,
  path,
  nullable,
});
const date = (name: string, path: string): TpoxColumn => ({ name, type: 'date', jtype: t.date, path });
const dec = (name: string, path: string, p: number, s: number): TpoxColumn => ({
  name,
  type: `decimal(${p},${s})`,
  jtype: t.decimal(p, s),
  path,
});

export const TPOX_TABLES: readonly TpoxTable[] = [
  {
    name: 'customer_account',
    collection: 'customers',
    rowBelowRoot: 'Customer',
    columns: [
      int('customer_id', '@id'),
      text('first_name', 'Name/FirstName'),
      text('last_name', 'Name/LastName'),
      date('date_of_birth', 'DateOfBirth'),
      text('gender', 'Gender'),
      text('nationality', 'Nationality'),
      text('country_of_residence', 'CountryOfResidence'),
      text('premium_customer', 'PremiumCustomer'),
    ],
    primaryKey: ['customer_id'],
    indexes: [],
  },
  {
    name: 'account',
    collection: 'customers',
    rowBelowRoot: 'Customer/Accounts/Account',
    columns: [
      int('account_id', '@id'),
      int('customer_id', '../../@id'),
      text('category', 'Category'),
      text('account_title', 'AccountTitle'),
      text('currency', 'Currency'),
      date('opening_date', 'OpeningDate'),
      dec('online_actual_bal', 'Balance/OnlineActualBal', 15, 2),
    ],
    primaryKey: ['account_id'],
    indexes: [['customer_id']],
  },
  {
    name: 'position',
    collection: 'customers',
    rowBelowRoot: 'Customer/Accounts/Account/Holdings/Position',
    columns: [
      // self-contained: relative to the Position element (an XPath up to its Customer), not a file
      int('customer_id', '../../../../@id'),
      int('account_id', '../../@id'),
      text('symbol', 'Symbol'),
      text('name', 'Name'),
      text('type', 'Type'),
      int('qty', 'Qty'),
    ],
    primaryKey: ['account_id', 'symbol'],
    indexes: [['customer_id'], ['symbol']],
  },
  {
    name: 'orders',
    collection: 'orders',
    rowBelowRoot: 'f:FIXML/f:Order',
    columns: [
      int('order_id', '@ID'),
      int('account_id', '@Acct'),
      int('side', '@Side'),
      date('trade_date', '@TrdDt'),
      dec('price', '@Px', 10, 2),
      text('symbol', 'f:Instrmt/@Sym'),
      int('quantity', 'f:OrdQty/@Qty'),
    ],
    primaryKey: ['order_id'],
    indexes: [['account_id'], ['symbol']],
  },
  {
    name: 'security',
    collection: 'securities',
    rowBelowRoot: 'Security',
    columns: [
      text('symbol', 'Symbol'),
      text('name', 'Name'),
      text('security_type', 'SecurityType'),
      text('sector', 'SecurityInformation/StockInformation/Sector', true),
      text('industry', 'SecurityInformation/StockInformation/Industry', true),
      text('fund_family', 'SecurityInformation/FundInformation/FundFamily', true),
      dec('last_trade', 'Price/LastTrade', 10, 2),
    ],
    primaryKey: ['symbol'],
    indexes: [],
  },
];

/**
 * prices.parquet's table (not a document collection): the daily closes, as the files connector
 * reads them and as the baseline loads them when asked (ShredOptions.prices).
 */
export const PRICES_TABLE = {
  name: 'prices',
  columns: [
    { name: 'symbol', type: 'text', jtype: t.string, path: 'symbol' },
    { name: 'day', type: 'date', jtype: t.date, path: 'day' },
    { name: 'close', type: 'decimal(10,2)', jtype: t.decimal(10, 2), path: 'close' },
    { name: 'volume', type: 'bigint', jtype: t.int64, path: 'volume' },
  ],
  primaryKey: ['symbol', 'day'],
  indexes: [],
} as const satisfies Omit<TpoxTable, 'name' | 'collection' | 'rowBelowRoot'> & { name: string };

/** the wrapper root of each collection file */
export const WRAPPER: Readonly<Record<Collection, string>> = {
  customers: 'Customers',
  orders: 'Orders',
  securities: 'Securities',
};
/** collection file names, and the folders of the one-file-per-document layout */
export const COLLECTION_FILE: Readonly<Record<Collection, string>> = {
  customers: 'customers.xml',
  orders: 'orders.xml',
  securities: 'securities.xml',
};
export const DOCUMENT_FOLDER: Readonly<Record<Collection, string>> = {
  customers: 'custacc',
  orders: 'order',
  securities: 'security',
};
export const PRICE_FILE = 'prices.parquet';

export function tpoxTable(name: TpoxTable['name']): TpoxTable {
  const def = TPOX_TABLES.find((x) => x.name === name);
  if (!def) throw new Error(`tpox: no table ${name}`);
  return def;
}

export function columnsOf(def: TpoxTable): ColumnMeta[] {
  return def.columns.map((c) => ({ name: c.name, type: c.jtype, nullable: c.nullable ?? false }));
}

/**
 * The documents connector's tables over data written by writeTpox at `layout`, paths relative
 * to the folder it wrote (the source's documents.root).
 */
export function documentTables(layout: Layout): DocumentTableSpec[] {
  return TPOX_TABLES.map((def) => ({
    name: def.name,
    format: 'xml',
    from: {
      path: layout === 'collection' ? COLLECTION_FILE[def.collection] : `${DOCUMENT_FOLDER[def.collection]}/*.xml`,
    },
    rowPath: layout === 'collection' ? `/${WRAPPER[def.collection]}/${def.rowBelowRoot}` : `/${def.rowBelowRoot}`,
    ...(def.collection === 'orders' ? { namespaces: { f: FIXML_NS } } : {}),
    columns: def.columns.map((c) => ({ name: c.name, path: c.path, type: c.type })),
  }));
}

// ---------------------------------------------------------------- shredded rows

export function customerAccountRow(c: Customer): Row {
  return [
    c.id,
    c.firstName,
    c.lastName,
    c.dateOfBirth,
    c.gender,
    c.nationality,
    c.countryOfResidence,
    c.premium ? 'Yes' : 'No',
  ];
}

export function accountRows(c: Customer): Row[] {
  return c.accounts.map((a) => [a.id, c.id, a.category, a.title, a.currency, a.openingDate, a.balance]);
}

export function positionRows(c: Customer): Row[] {
  return c.accounts.flatMap((a) => a.positions.map((p): Row => [c.id, a.id, p.symbol, p.name, p.type, p.qty]));
}

export function orderRow(o: Order): Row {
  return [o.id, o.accountId, o.side, o.tradeDate, o.price, o.symbol, o.quantity];
}

export function securityRow(s: Security): Row {
  return [s.symbol, s.name, s.type, s.sector ?? null, s.industry ?? null, s.fundFamily ?? null, s.lastTrade];
}
