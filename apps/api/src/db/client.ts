import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as SqliteClient } from '../generated/prisma/client.js';
import { PrismaClient as PgClient } from '../generated/prisma-pg/client.js';
import { migratePostgres, migrateSqlite, type MetadataProvider } from './migrate.js';

/** Both generated clients share one model API; the SQLite one's types stand for both. */
export type Db = SqliteClient;

export interface MetadataConfig {
  /** postgres://… when set (DATABASE_URL), else SQLite at `sqliteFile` */
  readonly databaseUrl?: string;
  readonly sqliteFile: string;
}

export interface OpenedDb {
  readonly db: Db;
  readonly provider: MetadataProvider;
  readonly applied: string[];
  close(): Promise<void>;
}

/** What a checkpointed WAL of the metadata database shrinks back to. */
const WAL_LIMIT_BYTES = 4 * 2 ** 20;

/** Applies pending migrations, then opens the Prisma client through a driver adapter (no native engine). */
export async function openMetadata(config: MetadataConfig): Promise<OpenedDb> {
  if (config.databaseUrl && /^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    const applied = await migratePostgres(config.databaseUrl);
    const db = new PgClient({
      adapter: new PrismaPg({ connectionString: config.databaseUrl, max: 5 }),
    }) as unknown as Db;
    return { db, provider: 'postgresql', applied, close: () => db.$disconnect() };
  }
  ownerOnly(config.sqliteFile);
  const applied = await migrateSqlite(config.sqliteFile);
  const db = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: config.sqliteFile }) });
  // A WAL keeps its largest size after a checkpoint unless limited: after one burst of writes that
  // space stays taken from a disk that may be filling (issue 26, disk faults)
  await db.$queryRawUnsafe(`PRAGMA journal_size_limit = ${WAL_LIMIT_BYTES}`);
  return { db, provider: 'sqlite', applied, close: () => db.$disconnect() };
}

/**
 * Which database a metadata client talks to. The two generated clients are not told apart by
 * instanceof (Prisma returns another object from the constructor); `_activeProvider` is what
 * Prisma itself reads. The record writer's tests run on both providers, so a Prisma upgrade that
 * changed this would fail them.
 */
export function providerOf(db: Db): MetadataProvider {
  return (db as unknown as { _activeProvider?: string })._activeProvider === 'postgresql' ? 'postgresql' : 'sqlite';
}

/**
 * The metadata file holds password hashes and encrypted source credentials: owner-only (0600),
 * created so and tightened when an older start left it readable to others. SQLite gives its
 * -wal and -shm files the database file's mode.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}
