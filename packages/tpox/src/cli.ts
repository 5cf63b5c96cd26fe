/**
 * npx tsx packages/tpox/src/cli.ts --sf 0.01 --out <dir> [--layout collection|files] [--seed N] [--no-parquet]
 *                                  [--shred postgres://user:pass@host:5432/database]
 *
 * Writes the TPoX-like documents (customers.xml, orders.xml, securities.xml, or one file per
 * document) and prices.parquet into --out; with --shred, also loads the same data as relational
 * tables into that PostgreSQL database (which must exist).
 */
import { parseArgs } from 'node:util';
import { createConnector } from '@junction/connectors';
import { DEFAULT_SEED, MAX_SF, MIN_SF } from './generate.js';
import { shredTpox } from './shred.js';
import { writeTpox } from './write.js';

export const USAGE = `usage: npx tsx packages/tpox/src/cli.ts --out <dir> [options]
  --sf <n>                scale factor ${MIN_SF}..${MAX_SF} (default 0.01: 1,500 customers, as TPC-H's c_custkey)
  --out <dir>             folder to write into (created)
  --layout <name>         collection (one file per collection, default) | files (one file per document)
  --seed <n>              generator seed (default ${DEFAULT_SEED})
  --no-parquet            skip prices.parquet
  --shred <postgres url>  also load the shredded tables into this PostgreSQL database
  --force                 with --shred: reload even when already loaded
`;

class UsageError extends Error {}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      sf: { type: 'string', default: '0.01' },
      out: { type: 'string' },
      layout: { type: 'string', default: 'collection' },
      seed: { type: 'string' },
      parquet: { type: 'boolean', default: true },
      shred: { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowNegative: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const sf = Number(values.sf);
  if (!(sf >= MIN_SF && sf <= MAX_SF)) throw new UsageError(`--sf must be a number in [${MIN_SF}, ${MAX_SF}]`);
  if (!values.out) throw new UsageError('--out is required');
  const layout = values.layout;
  if (layout !== 'collection' && layout !== 'files') throw new UsageError('--layout must be collection or files');
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  if (!Number.isInteger(seed)) throw new UsageError('--seed must be an integer');

  const t0 = Date.now();
  const r = await writeTpox(values.out, { sf, seed, layout, parquet: values.parquet });
  process.stderr.write(
    `tpox sf ${sf}: ${r.documents.customers} customers (${r.accounts} accounts, ${r.positions} positions), ` +
      `${r.documents.orders} orders, ${r.documents.securities} securities${values.parquet ? `, ${r.prices} daily prices` : ''} ` +
      `→ ${values.out} (${r.files.length} files, ${((Date.now() - t0) / 1000).toFixed(1)}s)\n`,
  );
  if (values.shred) {
    const u = new URL(values.shred);
    const database = u.pathname.replace(/^\//, '');
    if (!database) throw new UsageError('--shred needs a database in its URL');
    const connector = createConnector({
      name: 'tpox',
      engine: 'postgresql',
      host: u.hostname,
      port: u.port ? Number(u.port) : undefined,
      database,
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
    });
    try {
      const s = await shredTpox(connector, { sf, seed, force: values.force });
      process.stderr.write(
        s.skipped
          ? `shredded tables in ${database}: already loaded\n`
          : `shredded tables in ${database}: ${Object.entries(s.rows)
              .map(([t, n]) => `${t} ${n}`)
              .join(', ')} (${s.seconds.toFixed(1)}s)\n`,
      );
    } finally {
      await connector.close();
    }
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`\ntpox failed: ${err instanceof Error ? err.message : String(err)}\n`);
    if (err instanceof UsageError) process.stderr.write(USAGE);
    process.exit(1);
  },
);
