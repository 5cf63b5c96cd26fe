import { mkdirSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import type { SourceConfig } from '@junction/connectors';
import type { EngineOptions } from '@junction/query-core';
import { buildApp } from './app.js';
import { sourceCheckMs, startSourceMonitor } from './services/source-monitor.js';
import { ensureAdmin, registerDemo, type DemoExtras } from './bootstrap.js';
import { openMetadata } from './db/client.js';
import { defaultEngineFactory } from './services/junction.js';
import { mvStoreFromEnv } from './services/mv-store/config.js';
import { trinoSettingsFromEnv } from './services/trino-backend.js';
import { envInteger, limitsFromEnv } from './lib/limits.js';
import { parseLockout } from './lib/login-throttle.js';
import { loadSecretKey } from './lib/secrets.js';
import { parseSecureCookies, parseTrustProxy } from './lib/trust-proxy.js';
import { pgWireFromEnv } from './pg-wire/config.js';
import { startPgWire, type PgWireServer } from './pg-wire/server.js';

// Entry point: `node --import tsx apps/api/src/main.ts` (npm start runs it through scripts/start.mjs).

// V8 lets a busy server's heap grow to several times what is live before it collects; under a
// steady query load that slack alone took the process from ~320 MB to ~650 MB. A 25% growth
// factor keeps it near what is live, at no measurable cost in throughput (bench/rest.ts), and
// without a hard cap that a large query within its memory budget could hit.
if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent')))
  v8.setFlagsFromString('--heap-growing-percent=25');
const dataDir = path.resolve(process.env.JUNCTION_DATA_DIR ?? './data');
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8080);
const pgWireConfig = pgWireFromEnv(process.env);
mkdirSync(dataDir, { recursive: true });
// where file and document sources read by default (JUNCTION_FILE_ROOTS): there to drop files into
if (!process.env.JUNCTION_FILE_ROOTS?.trim()) mkdirSync(path.join(dataDir, 'files'), { recursive: true });
// spilled joins, sorts and aggregates and large cached results: a disk of their own keeps a
// spilling query from filling the one the metadata and materialized views live on
const spillDir = process.env.JUNCTION_SPILL_DIR ? path.resolve(process.env.JUNCTION_SPILL_DIR) : undefined;
if (spillDir) mkdirSync(spillDir, { recursive: true, mode: 0o700 });

const meta = await openMetadata({
  databaseUrl: process.env.DATABASE_URL,
  sqliteFile: path.join(dataDir, 'junction.db'),
});
const secretKey = loadSecretKey(dataDir);
const app = await buildApp({
  db: meta.db,
  secretKey,
  // read per request: the PostgreSQL port opens after the HTTP one, and may fail to
  pgWire: () => (pgWire ? { host, port: pgWire.port, tls: Boolean(pgWireConfig?.tls) } : null),
  materializeFile: path.join(dataDir, 'materialized.db'),
  // with PostgreSQL metadata, in its junction_mv schema so every replica reads them (README)
  materializeStore: mvStoreFromEnv(process.env),
  trino: trinoSettingsFromEnv(process.env),
  ...(spillDir ? { engineFactory: (o: EngineOptions) => defaultEngineFactory({ ...o, spillDir }) } : {}),
  dataDir,
  sourceAllow: process.env.JUNCTION_SOURCE_ALLOW,
  fileRoots: process.env.JUNCTION_FILE_ROOTS,
  urlHosts: process.env.JUNCTION_URL_HOSTS,
  // JUNCTION_MAX_CONCURRENT etc. (README, Configuration); an admin may override them through /api/v1/limits
  limits: limitsFromEnv(process.env),
  signInsPerMinute: envInteger(process.env, 'JUNCTION_SIGNIN_RATE', 1),
  trustProxy: parseTrustProxy(process.env.JUNCTION_TRUST_PROXY),
  secureCookies: parseSecureCookies(process.env.JUNCTION_SECURE_COOKIES),
  signInLockout: parseLockout(process.env.JUNCTION_SIGNIN_LOCKOUT),
  corsOrigins: process.env.JUNCTION_CORS_ORIGINS ? process.env.JUNCTION_CORS_ORIGINS.split(',') : undefined,
  // PostgreSQL metadata may be shared by several servers behind a load balancer: they keep in step
  ...(meta.provider === 'postgresql' && process.env.DATABASE_URL
    ? {
        cluster: {
          databaseUrl: process.env.DATABASE_URL,
          replicaName: process.env.JUNCTION_REPLICA_NAME,
          replicaUrl: process.env.JUNCTION_REPLICA_URL,
        },
      }
    : {}),
  logger: {
    level: process.env.LOG_LEVEL ?? 'info',
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.body.password',
        // a preview's settings carry a document source's secret headers as its password
        'req.body.source.password',
        'res.headers["set-cookie"]',
      ],
      censor: '[redacted]',
    },
  },
});

let demo: { sources: SourceConfig[]; sf: number; stop(): Promise<void> } | undefined;
let stopping = false;
let stopMonitor = (): void => undefined;
let pgWire: PgWireServer | undefined;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.log.info(`${signal}: stopping`);
  const force = setTimeout(() => process.exit(1), 20_000);
  force.unref();
  stopMonitor();
  try {
    await pgWire?.close();
    await app.close(); // closes the engine and the source pools (engine plugin's onClose)
    await demo?.stop();
    await meta.close();
  } catch (e) {
    app.log.error({ err: e }, 'error while stopping');
    process.exitCode = 1;
  }
  clearTimeout(force);
  process.exit();
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
// Started by scripts/start.mjs (npm start), the launcher holds an IPC channel to this process:
// it closes when the launcher is gone, however it died, and then this server stops too.
if (process.channel) {
  process.channel.unref();
  process.on('disconnect', () => void shutdown('launcher gone'));
}

try {
  if (meta.applied.length) app.log.info(`metadata migrations applied: ${meta.applied.join(', ')}`);
  // each server's own key file would encrypt source passwords the others cannot read
  if (meta.provider === 'postgresql' && !process.env.JUNCTION_SECRET_KEY)
    app.log.warn(
      'PostgreSQL metadata without JUNCTION_SECRET_KEY: the key file in the data directory is used; servers sharing this metadata database need the same key (set JUNCTION_SECRET_KEY on all of them)',
    );
  const admin = await ensureAdmin(meta.db, process.env.JUNCTION_ADMIN_PASSWORD || undefined);
  if (admin.generatedPassword) {
    process.stdout.write(
      `\n  First start: user "admin" created with password ${admin.generatedPassword}\n  (shown once; set JUNCTION_ADMIN_PASSWORD to choose it)\n\n`,
    );
  }
  await app.junction.start();
  // restores the materialized views of the last run and starts their schedules
  await app.materializer.ready();
  // in the background: a Trino that is down or slow to answer does not hold up the studio
  void app.trino?.start();
  /**
 * The demo's document and file sources (TPoX-like XML, a Parquet file) beside the TPC-H ones,
 * written into the default file root. Admins who moved JUNCTION_FILE_ROOTS elsewhere get the
 * database demo only: the documents would sit outside what sources may read.
 */
async function documentDemo(sf: number): Promise<DemoExtras | undefined> {
  const dir = path.join(dataDir, 'files', 'demo');
  if (process.env.JUNCTION_FILE_ROOTS?.trim()) {
    app.log.info('demo: JUNCTION_FILE_ROOTS is set, so the document and file sources of the demo (docs, files) are not added');
    return undefined;
  }
  try {
    const { prepareTpoxDemo } = await import('@junction/tpox');
    return await prepareTpoxDemo(dir, { sf, log: (m) => app.log.info(m) });
  } catch (e) {
    app.log.error(`demo: the document sources could not be prepared, the database demo runs without them: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
    return undefined;
  }
}

if (process.env.JUNCTION_DEMO !== '0') {
    const { startDemo } = (await import('@junction/tpch')) as unknown as {
      startDemo(
        dir: string,
        opts: { log: (m: string) => void },
      ): Promise<{ sources: SourceConfig[]; sf: number; stop(): Promise<void> }>;
    };
    try {
      demo = await startDemo(dataDir, { log: (m) => app.log.info(m) });
      if (stopping) await demo.stop();
      else await registerDemo(app, demo.sources, demo.sf, await documentDemo(demo.sf));
    } catch (e) {
      // the studio stays useful without its demo: say why in one line and carry on (the
      // details, a stack included, only at debug level)
      const reason = (e instanceof Error ? e.message : String(e)).split('\n')[0];
      app.log.error(
        `the demo federation could not start, so Junction runs without it: ${reason} (JUNCTION_DEMO=0 skips the demo)`,
      );
      app.log.debug({ err: e }, 'demo start failure');
    }
  }
  // a source that went away shows as offline within this interval, not at the next query or Test
  stopMonitor = startSourceMonitor(app, sourceCheckMs(process.env.JUNCTION_SOURCE_CHECK_MS));
  await app.listen({ host, port });
  const bound = app.server.address();
  const actualPort = bound && typeof bound === 'object' ? bound.port : port;
  process.stdout.write(`Junction is running on http://${host}:${actualPort} (API docs: /api/docs)\n`);
  if (pgWireConfig) {
    try {
      pgWire = await startPgWire(app, { host, ...pgWireConfig, secret: secretKey });
      process.stdout.write(
        `PostgreSQL clients connect to ${host}:${pgWire.port}, database junction (psql "host=${host} port=${pgWire.port} dbname=junction user=admin")\n`,
      );
    } catch (e) {
      // the studio is useful without its PostgreSQL port (another server may hold 5433)
      app.log.error(
        `the PostgreSQL port ${pgWireConfig.port} could not open, so Junction runs without it: ${(e as Error).message} (JUNCTION_PG_PORT chooses another; 0 turns it off)`,
      );
    }
  }
} catch (e) {
  app.log.error({ err: e }, 'startup failed');
  await demo?.stop().catch(() => undefined);
  await app.close().catch(() => undefined);
  await meta.close().catch(() => undefined);
  process.exit(1);
}
