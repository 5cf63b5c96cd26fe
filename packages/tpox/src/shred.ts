import type { Connector, JType, Row } from '@junction/connectors';
import { DEFAULT_SEED, customers, orders, priceHistory, scaleOf, securities, type Scale } from './generate.js';
import {
  PRICES_TABLE,
  TPOX_TABLES,
  accountRows,
  customerAccountRow,
  orderRow,
  positionRows,
  securityRow,
  type TpoxTable,
} from './tables.js';

/**
 * The relational baseline: the same documents shredded into PostgreSQL tables (customer_account,
 * account, position, orders, security) through the connector's bulk load, then keyed, indexed and
 * analyzed as a DBA would for the lookups TPoX runs. Rows come from the generator's objects, not
 * from parsing the XML, so the tests comparing both prove the documents and the tables agree.
 */
export interface ShredOptions {
  readonly sf: number;
  readonly seed?: number;
  /** reload even when the marker says this data is there */
  readonly force?: boolean;
  readonly batchSize?: number;
  /** also load `prices` (prices.parquet's rows), for queries joining the daily closes; default false */
  readonly prices?: boolean;
}

type Loaded = TpoxTable['name'] | 'prices';

export interface ShredResult {
  readonly skipped: boolean;
  readonly rows: Readonly<Partial<Record<Loaded, number>>>;
  readonly seconds: number;
}

/** Bump whenever the generated documents change: a load of an older version is redone. */
export const TPOX_GENERATOR_VERSION = '1';
export const TPOX_MARKER_TABLE = 'tpox_loaded';

export async function shredTpox(connector: Connector, options: ShredOptions): Promise<ShredResult> {
  if (connector.engine !== 'postgresql')
    throw new Error(`tpox: the shredded tables are PostgreSQL's; got ${connector.engine}`);
  const scale = scaleOf(options.sf);
  const seed = options.seed ?? DEFAULT_SEED;
  const started = Date.now();
  const marker = `${options.sf}|${seed}|${TPOX_GENERATOR_VERSION}${options.prices ? '|prices' : ''}`;
  const tables: ShreddedTable[] = [...TPOX_TABLES, ...(options.prices ? [PRICES_TABLE] : [])];
  if (!options.force) {
    const got = await connector.execute(`SELECT marker FROM ${TPOX_MARKER_TABLE}`).catch(() => undefined);
    if (got && got.rows.length === 1 && got.rows[0][0] === marker) {
      return { skipped: true, rows: await countRows(connector, tables), seconds: 0 };
    }
  }
  await connector.execute(`DROP TABLE IF EXISTS ${TPOX_MARKER_TABLE}`);
  await connector.execute(`DROP TABLE IF EXISTS "${PRICES_TABLE.name}"`);
  for (const def of tables) {
    await connector.execute(`DROP TABLE IF EXISTS "${def.name}"`);
    await connector.execute(
      `CREATE TABLE "${def.name}" (${def.columns.map((c) => `"${c.name}" ${c.type}${c.nullable ? '' : ' NOT NULL'}`).join(', ')})`,
    );
  }
  const rows: Partial<Record<Loaded, number>> = {};
  for (const def of tables) {
    const columns = def.columns.map((c) => ({
      name: c.name,
      type: c.jtype,
      nullable: 'nullable' in c ? (c.nullable ?? false) : false,
    }));
    rows[def.name] = await connector.bulkLoad(
      { name: def.name, columns },
      batches(rowsOf(def.name, seed, scale), options.batchSize ?? 4096),
    );
  }
  for (const def of tables) {
    await connector.execute(
      `ALTER TABLE "${def.name}" ADD PRIMARY KEY (${def.primaryKey.map((c) => `"${c}"`).join(', ')})`,
    );
    for (const cols of def.indexes)
      await connector.execute(
        `CREATE INDEX "${def.name}_${cols.join('_')}_idx" ON "${def.name}" (${cols.map((c) => `"${c}"`).join(', ')})`,
      );
    await connector.execute(`ANALYZE "${def.name}"`);
  }
  await connector.execute(`CREATE TABLE ${TPOX_MARKER_TABLE} (marker text NOT NULL)`);
  await connector.execute(`INSERT INTO ${TPOX_MARKER_TABLE} VALUES ('${marker}')`);
  return { skipped: false, rows, seconds: (Date.now() - started) / 1000 };
}

type ShreddedTable = Pick<TpoxTable, 'primaryKey' | 'indexes'> & {
  readonly name: Loaded;
  readonly columns: readonly {
    readonly name: string;
    readonly type: string;
    readonly jtype: JType;
    readonly nullable?: boolean;
  }[];
};

/** A table's rows, in document order. */
export function* rowsOf(table: Loaded, seed: number, scale: Scale): Generator<Row> {
  switch (table) {
    case 'customer_account':
      for (const c of customers(seed, scale)) yield customerAccountRow(c);
      return;
    case 'account':
      for (const c of customers(seed, scale)) yield* accountRows(c);
      return;
    case 'position':
      for (const c of customers(seed, scale)) yield* positionRows(c);
      return;
    case 'orders':
      for (const o of orders(seed, scale)) yield orderRow(o);
      return;
    case 'security':
      for (const s of securities(seed)) yield securityRow(s);
      return;
    case 'prices':
      for (let i = 1; i <= scale.securities; i++)
        for (const p of priceHistory(seed, i)) yield [p.symbol, p.day, p.close, BigInt(p.volume)];
      return;
  }
}

async function* batches(rows: Iterable<Row>, size: number): AsyncGenerator<Row[]> {
  let batch: Row[] = [];
  for (const r of rows) {
    batch.push(r);
    if (batch.length >= size) {
      yield batch;
      batch = [];
      // let the driver's socket writes interleave with generation
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (batch.length) yield batch;
}

async function countRows(
  connector: Connector,
  tables: readonly ShreddedTable[],
): Promise<Partial<Record<Loaded, number>>> {
  const rows: Partial<Record<Loaded, number>> = {};
  for (const def of tables)
    rows[def.name] = Number((await connector.execute(`SELECT count(*) FROM "${def.name}"`)).rows[0][0]);
  return rows;
}
