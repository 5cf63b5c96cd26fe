import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_SEED, customers, orders, priceHistory, scaleOf, securities, type Scale } from './generate.js';
import { COLLECTION_FILE, DOCUMENT_FOLDER, PRICE_FILE, WRAPPER, type Collection, type Layout } from './tables.js';
import { customerXml, orderXml, securityXml } from './xml.js';

export interface WriteOptions {
  readonly sf: number;
  readonly seed?: number;
  /** default 'collection' */
  readonly layout?: Layout;
  /** also write prices.parquet (daily closes of every security over 2005); default false */
  readonly parquet?: boolean;
  readonly onProgress?: (collection: Collection | 'prices', documents: number, total: number) => void;
}

export interface WriteResult {
  readonly scale: Scale;
  /** written files, relative to the folder */
  readonly files: readonly string[];
  readonly documents: Readonly<Record<Collection, number>>;
  readonly accounts: number;
  readonly positions: number;
  readonly prices: number;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
/** documents are gathered into chunks of about this many characters before a write */
const CHUNK = 1 << 16;

/**
 * Writes the TPoX-like documents into `dir`: one file per collection (customers.xml, orders.xml,
 * securities.xml, each under a wrapper root, one document a line) or one file per document
 * (custacc/<id>.xml, order/<id>.xml, security/<symbol>.xml). Documents are generated and written
 * a chunk at a time, waiting for the stream to drain, so memory stays flat at any scale.
 */
export async function writeTpox(dir: string, options: WriteOptions): Promise<WriteResult> {
  const scale = scaleOf(options.sf);
  const seed = options.seed ?? DEFAULT_SEED;
  const layout = options.layout ?? 'collection';
  const progress = options.onProgress ?? (() => undefined);
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  let accounts = 0;
  let positions = 0;

  const customerDocs = (function* () {
    for (const c of customers(seed, scale)) {
      accounts += c.accounts.length;
      for (const a of c.accounts) positions += a.positions.length;
      yield { key: String(c.id), xml: customerXml(c) };
    }
  })();
  const orderDocs = (function* () {
    for (const o of orders(seed, scale)) yield { key: String(o.id), xml: orderXml(o) };
  })();
  const securityDocs = (function* () {
    for (const s of securities(seed)) yield { key: s.symbol, xml: securityXml(s) };
  })();
  const totals: Record<Collection, number> = {
    customers: scale.customers,
    orders: scale.orders,
    securities: scale.securities,
  };
  const sources: [Collection, Iterable<{ key: string; xml: string }>][] = [
    ['customers', customerDocs],
    ['orders', orderDocs],
    ['securities', securityDocs],
  ];
  const documents = { customers: 0, orders: 0, securities: 0 };
  for (const [collection, docs] of sources) {
    if (layout === 'collection') {
      const file = COLLECTION_FILE[collection];
      documents[collection] = await writeCollection(path.join(dir, file), WRAPPER[collection], docs, (n) =>
        progress(collection, n, totals[collection]),
      );
      files.push(file);
    } else {
      const folder = DOCUMENT_FOLDER[collection];
      await mkdir(path.join(dir, folder), { recursive: true });
      let n = 0;
      for (const d of docs) {
        await writeFile(path.join(dir, folder, `${d.key}.xml`), XML_DECLARATION + d.xml + '\n');
        files.push(`${folder}/${d.key}.xml`);
        if (++n % 1000 === 0) progress(collection, n, totals[collection]);
      }
      documents[collection] = n;
      progress(collection, n, totals[collection]);
    }
  }
  let prices = 0;
  if (options.parquet) {
    prices = await writePrices(dir, seed, (n) => progress('prices', n, scale.securities));
    files.push(PRICE_FILE);
  }
  return { scale, files, documents, accounts, positions, prices };
}

async function writeCollection(
  file: string,
  wrapper: string,
  docs: Iterable<{ xml: string }>,
  progress: (n: number) => void,
): Promise<number> {
  const out = createWriteStream(file);
  let n = 0;
  try {
    await write(out, `${XML_DECLARATION}<${wrapper}>\n`);
    let chunk = '';
    for (const d of docs) {
      chunk += d.xml + '\n';
      n++;
      if (chunk.length >= CHUNK) {
        await write(out, chunk);
        chunk = '';
        progress(n);
      }
    }
    await write(out, `${chunk}</${wrapper}>\n`);
    progress(n);
  } finally {
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  return n;
}

/** resolves when the stream takes more, so generation never runs ahead of the disk */
function write(out: WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    out.once('error', onError);
    const more = out.write(text, (err) => {
      if (err) reject(err);
    });
    const done = (): void => {
      out.off('error', onError);
      resolve();
    };
    if (more) done();
    else out.once('drain', done);
  });
}

/**
 * prices.parquet: (symbol, day, close decimal(10,2), volume bigint) for every security and
 * trading day of 2005. Streamed to a CSV first, then converted by DuckDB with the column types
 * spelled out, so the decimals are exact and nothing is inferred.
 */
async function writePrices(dir: string, seed: number, progress: (n: number) => void): Promise<number> {
  const csv = path.join(dir, 'prices.csv.tmp');
  const out = createWriteStream(csv);
  let rows = 0;
  try {
    await write(out, 'symbol,day,close,volume\n');
    const secs = securities(seed);
    for (let i = 1; i <= secs.length; i++) {
      let chunk = '';
      const history = priceHistory(seed, i);
      for (const p of history) chunk += `${p.symbol},${p.day},${p.close},${p.volume}\n`;
      rows += history.length;
      await write(out, chunk);
      if (i % 100 === 0) progress(i);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const target = path.join(dir, PRICE_FILE);
  try {
    await conn.run(
      `COPY (SELECT * FROM read_csv(${quote(csv)}, header = true, ` +
        `columns = {'symbol': 'VARCHAR', 'day': 'DATE', 'close': 'DECIMAL(10,2)', 'volume': 'BIGINT'}) ORDER BY symbol, day) ` +
        `TO ${quote(target)} (FORMAT parquet)`,
    );
  } finally {
    conn.closeSync();
    db.closeSync();
    await rm(csv, { force: true });
  }
  return rows;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
