/**
 * npm run load -- --sf 0.1 --layout jdv [--pg URL] [--mysql URL] [--mssql URL] [--single URL]
 *
 *   --layout jdv     dbA (orders, lineitem) → database jdv_a and dbB (customer) → jdv_b on --pg;
 *                    dbC (part, supplier, partsupp) → jdv_c and dbD (nation, region, customer) → jdv_d
 *                    on --mysql (dbC goes to SQL Server instead when --mssql is given, as in the study)
 *   --layout single  all eight tables in one database: --single URL, default tpch_direct on --pg
 *   --layout all     both
 */
import { parseArgs } from 'node:util';
import { createConnector, type Connector, type EngineName, type SourceConfig } from '@junction/connectors';
import { MAX_SF, MIN_SF, DEFAULT_SEED } from './generate.js';
import { LAYOUTS, TARGET_DATABASES, type LayoutName } from './layouts.js';
import { loadTpch, type LoadTarget } from './load.js';
import { ProgressBars } from './progress.js';
import { redactUrl, sourceFromUrl } from './source-url.js';

const DEFAULT_PG_URL = 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const DEFAULT_MYSQL_URL = 'mysql://junction:junction@127.0.0.1:3306/junction_test';

const USAGE = `usage: npm run load -- [options]
  --sf <n>           scale factor ${MIN_SF}..${MAX_SF} (default 0.1)
  --layout <name>    jdv | single | all (default jdv)
  --pg <url>         PostgreSQL server (default $TEST_PG_URL or ${DEFAULT_PG_URL})
  --mysql <url>      MySQL/MariaDB server (default $TEST_MYSQL_URL or ${DEFAULT_MYSQL_URL})
  --mssql <url>      SQL Server: when given, dbC (part, supplier, partsupp) is loaded there
  --single <url>     database for the single layout (default: tpch_direct on --pg)
  --seed <n>         generator seed (default ${DEFAULT_SEED})
  --concurrency <n>  bulk loads at once (default 2)
  --force            reload even when already loaded at this scale factor
`;

interface Placement {
  readonly name: string;
  readonly engine: EngineName;
  readonly serverUrl: string;
  readonly database: string;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      sf: { type: 'string', default: '0.1' },
      layout: { type: 'string', default: 'jdv' },
      pg: { type: 'string' },
      mysql: { type: 'string' },
      mssql: { type: 'string' },
      single: { type: 'string' },
      seed: { type: 'string' },
      concurrency: { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const sf = Number(values.sf);
  if (!(sf >= MIN_SF && sf <= MAX_SF)) throw new UsageError(`--sf must be a number in [${MIN_SF}, ${MAX_SF}]`);
  const layouts: LayoutName[] =
    values.layout === 'all'
      ? ['jdv', 'single']
      : values.layout === 'jdv' || values.layout === 'single'
        ? [values.layout]
        : [];
  if (layouts.length === 0) throw new UsageError('--layout must be jdv, single or all');
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  if (!Number.isInteger(seed)) throw new UsageError('--seed must be an integer');
  const concurrency = values.concurrency === undefined ? 2 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError('--concurrency must be a positive integer');

  const pgUrl = values.pg ?? process.env.TEST_PG_URL ?? DEFAULT_PG_URL;
  const mysqlUrl = values.mysql ?? process.env.TEST_MYSQL_URL ?? DEFAULT_MYSQL_URL;

  const placements: Placement[] = [];
  for (const layout of layouts) {
    for (const target of LAYOUTS[layout]) {
      if (layout === 'single' && values.single) {
        const db = new URL(values.single).pathname.replace(/^\//, '');
        if (!db) throw new UsageError('--single needs a database in its URL');
        placements.push({
          name: target.name,
          engine: sourceFromUrl('x', values.single).engine,
          serverUrl: values.single,
          database: db,
        });
        continue;
      }
      const onMssql = target.name === 'dbC' && values.mssql !== undefined;
      const serverUrl = onMssql ? (values.mssql as string) : target.engine === 'postgresql' ? pgUrl : mysqlUrl;
      placements.push({
        name: target.name,
        engine: sourceFromUrl('x', serverUrl).engine,
        serverUrl,
        database: TARGET_DATABASES[target.name],
      });
    }
  }

  const connectors: Connector[] = [];
  const started = Date.now();
  const bars = new ProgressBars(process.stderr);
  try {
    const targets: LoadTarget[] = [];
    for (const p of placements) {
      await ensureDatabase(p);
      const connector = createConnector(sourceFromUrl(p.name, p.serverUrl, p.database));
      connectors.push(connector);
      const tables = LAYOUTS[p.name === 'direct' ? 'single' : 'jdv'].find((t) => t.name === p.name)?.tables ?? [];
      targets.push({ name: p.name, connector, tables });
      process.stderr.write(`${p.name} → ${p.engine} ${redactUrl(p.serverUrl)} database ${p.database}\n`);
    }
    const results = await loadTpch(targets, { sf, seed, concurrency, force: values.force, onProgress: bars.onEvent });
    bars.done();
    for (const r of results) {
      const rows = Object.entries(r.rows)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ');
      process.stderr.write(
        r.skipped ? `${r.target}: already loaded\n` : `${r.target}: ${rows} (${r.seconds.toFixed(1)}s)\n`,
      );
    }
    process.stderr.write(
      `tpch load sf ${sf} (${layouts.join(', ')}) finished in ${((Date.now() - started) / 1000).toFixed(1)}s\n`,
    );
    return 0;
  } finally {
    await Promise.allSettled(connectors.map((c) => c.close()));
  }
}

/** Creates the target database through a connection to the server's own database. */
async function ensureDatabase(p: Placement): Promise<void> {
  if (p.engine === 'sqlite') return;
  if (!/^[A-Za-z0-9_]+$/.test(p.database))
    throw new UsageError(`database name "${p.database}" must be letters, digits and _`);
  const base = sourceFromUrl(`${p.name}-admin`, p.serverUrl);
  const admin: SourceConfig =
    p.engine === 'postgresql'
      ? { ...base, database: base.database && base.database !== p.database ? base.database : 'postgres' }
      : p.engine === 'sqlserver'
        ? { ...base, database: 'master' }
        : { ...base, database: undefined };
  const connector = createConnector(admin);
  try {
    switch (p.engine) {
      case 'postgresql': {
        const exists = await connector.execute(`select 1 from pg_database where datname = '${p.database}'`);
        if (exists.rows.length === 0) {
          try {
            await connector.execute(`create database "${p.database}"`);
          } catch (err) {
            // a concurrent load may have created it first
            const again = await connector.execute(`select 1 from pg_database where datname = '${p.database}'`);
            if (again.rows.length === 0) throw err;
          }
        }
        break;
      }
      case 'mysql':
        await connector.execute(`create database if not exists \`${p.database}\``);
        break;
      case 'sqlserver':
        await connector.execute(`if db_id('${p.database}') is null create database [${p.database}]`);
        break;
    }
  } finally {
    await connector.close();
  }
}

class UsageError extends Error {}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`\ntpch load failed: ${message}\n`);
    if (err instanceof UsageError) process.stderr.write(USAGE);
    process.exit(1);
  },
);
