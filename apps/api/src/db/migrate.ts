import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';

const prismaDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../prisma');

export type MetadataProvider = 'sqlite' | 'postgresql';

export interface Migration {
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

/** The committed migrations for a provider, in name order (Prisma's folder layout). */
export function loadMigrations(provider: MetadataProvider): Migration[] {
  const dir =
    provider === 'sqlite' ? path.join(prismaDir, 'migrations') : path.join(prismaDir, 'postgres', 'migrations');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const TABLE = '_junction_migrations';

/**
 * Applies each committed migration once, each in its own transaction, recording it in a
 * migrations table. Prisma's CLI cannot run here (it downloads a native engine first), so this
 * runner replaces `prisma migrate deploy`. A changed, already-applied migration is an error:
 * the database would no longer match the schema the client was generated from.
 */
export async function migrateSqlite(file: string): Promise<string[]> {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(
      `CREATE TABLE IF NOT EXISTS "${TABLE}" (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`,
    );
    const applied = new Map<string, string>(
      (db.prepare(`SELECT name, checksum FROM "${TABLE}"`).all() as { name: string; checksum: string }[]).map((r) => [
        r.name,
        r.checksum,
      ]),
    );
    const done: string[] = [];
    for (const m of loadMigrations('sqlite')) {
      const prior = applied.get(m.name);
      if (prior !== undefined) {
        if (prior !== m.checksum) throw new Error(`migration ${m.name} was changed after it was applied`);
        continue;
      }
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare(`INSERT INTO "${TABLE}" (name, checksum, applied_at) VALUES (?, ?, ?)`).run(
          m.name,
          m.checksum,
          new Date().toISOString(),
        );
      }).immediate();
      done.push(m.name);
    }
    return done;
  } finally {
    db.close();
  }
}

export async function migratePostgres(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Serialises concurrent starts of several instances against one metadata database.
    await client.query('SELECT pg_advisory_lock(7243001)');
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${TABLE}" (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
    );
    const res = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${TABLE}"`);
    const applied = new Map(res.rows.map((r) => [r.name, r.checksum]));
    const done: string[] = [];
    for (const m of loadMigrations('postgresql')) {
      const prior = applied.get(m.name);
      if (prior !== undefined) {
        if (prior !== m.checksum) throw new Error(`migration ${m.name} was changed after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(`INSERT INTO "${TABLE}" (name, checksum, applied_at) VALUES ($1, $2, now())`, [
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
      done.push(m.name);
    }
    await client.query('SELECT pg_advisory_unlock(7243001)');
    return done;
  } finally {
    await client.end();
  }
}
