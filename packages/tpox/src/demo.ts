import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SourceConfig } from '@junction/connectors';
import { DEFAULT_SEED } from './generate.js';
import { TPOX_GENERATOR_VERSION } from './shred.js';
import { PRICE_FILE, PRICES_TABLE, documentTables } from './tables.js';
import { writeTpox } from './write.js';

/**
 * The document half of `npm start`'s demo: TPoX-like brokerage documents (customer accounts,
 * FIXML orders, securities) and 2005's daily closes as Parquet, for the customers of the TPC-H
 * demo (c_custkey 1..1500 at SF 0.01), so they join its tables. Written once into `dir` (inside
 * the server's default file root); a later start with the same generator and scale reuses them.
 */
export interface TpoxDemo {
  readonly sources: SourceConfig[];
  readonly examples: readonly { name: string; description: string; sql: string }[];
}

const MARKER = '.tpox-demo.json';

export async function prepareTpoxDemo(dir: string, options: { sf: number; log?: (line: string) => void }): Promise<TpoxDemo> {
  const stamp = JSON.stringify({ version: TPOX_GENERATOR_VERSION, sf: options.sf, seed: DEFAULT_SEED });
  const marker = path.join(dir, MARKER);
  const written = await readFile(marker, 'utf8').catch(() => undefined);
  if (written !== stamp) {
    const started = Date.now();
    // a half-written folder from an interrupted start is not reused
    await rm(dir, { recursive: true, force: true });
    const r = await writeTpox(dir, { sf: options.sf, parquet: true });
    await writeFile(marker, stamp);
    options.log?.(
      `demo: wrote ${r.documents.customers} customer, ${r.documents.orders} order and ${r.documents.securities} security documents and ${r.prices} daily prices in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  return {
    sources: [
      { name: 'docs', engine: 'documents', options: { documents: { root: dir, tables: documentTables('collection') } } },
      {
        name: 'files',
        engine: 'duckdb',
        options: { files: { root: dir, tables: [{ name: PRICES_TABLE.name, path: PRICE_FILE, format: 'parquet' }] } },
      },
    ],
    examples: [
      {
        name: 'Holdings of BUILDING customers at 2005 close · dbB + docs + files',
        description:
          'XML customer-account documents (docs.account, docs.position: one row per Account and per Position element) joined with the TPC-H customer table in PostgreSQL (dbB) and the daily closes in a Parquet file (files.prices): the ten largest holdings of customers in the BUILDING segment, valued at the close of 2005-12-30.',
        sql: `SELECT c.c_custkey, c.c_name, a.account_id, a.currency, p.symbol, p.qty, pr.close, p.qty * pr.close AS value
FROM dbB.customer c
JOIN docs.account a ON a.customer_id = c.c_custkey
JOIN docs.position p ON p.account_id = a.account_id
JOIN files.prices pr ON pr.symbol = p.symbol
WHERE c.c_mktsegment = 'BUILDING' AND pr.day = DATE '2005-12-30'
ORDER BY value DESC, a.account_id, p.symbol
LIMIT 10`,
      },
    ],
  };
}
