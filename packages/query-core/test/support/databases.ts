import pg from 'pg';
import mysql from 'mysql2/promise';
import { createConnector, type Connector, type EngineName, type SourceConfig } from '@junction/connectors';
import type { RegisteredSource } from '../../src/api.js';

export const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
export const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';

export function sourceFromUrl(url: string, name: string, database?: string): SourceConfig {
  const u = new URL(url);
  const engine: EngineName = u.protocol.startsWith('postgres') ? 'postgresql' : 'mysql';
  return {
    name,
    engine,
    host: u.hostname,
    port: u.port ? Number(u.port) : undefined,
    database: database ?? (decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    options: { pool: { max: 6 } },
  };
}

export function uniqueName(area: string): string {
  return `jt_${area}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A fresh database on a real server for one test file, dropped by `drop()`. */
export interface TestDatabase {
  readonly name: string;
  readonly config: (sourceName: string) => SourceConfig;
  /** a probed connector on the database */
  connector(sourceName: string): Promise<Connector>;
  exec(sql: string): Promise<void>;
  drop(): Promise<void>;
}

/** The database as a source for Engine.addSource: a connector, its catalog and its probed semantics. */
export async function registered(db: TestDatabase, name: string, extra: Partial<RegisteredSource> = {}): Promise<RegisteredSource> {
  const connector = await db.connector(name);
  return { name, connector, catalog: await connector.introspect(), semantics: await connector.probe(), ...extra };
}

export async function createPgDatabase(area: string): Promise<TestDatabase> {
  const name = uniqueName(area);
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const conns: Connector[] = [];
  const u = new URL(PG_URL);
  u.pathname = '/' + name;
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  return {
    name,
    config: (s) => sourceFromUrl(PG_URL, s, name),
    async connector(s) {
      const c = createConnector(sourceFromUrl(PG_URL, s, name));
      await c.probe();
      conns.push(c);
      return c;
    },
    async exec(sql) {
      await client.query(sql);
    },
    async drop() {
      for (const c of conns) await c.close().catch(() => undefined);
      await client.end().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export async function createMysqlDatabase(area: string): Promise<TestDatabase> {
  const name = uniqueName(area);
  const admin = await mysql.createConnection({ uri: MYSQL_URL, multipleStatements: true });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.query(`USE ${name}`);
  const conns: Connector[] = [];
  return {
    name,
    config: (s) => sourceFromUrl(MYSQL_URL, s, name),
    async connector(s) {
      const c = createConnector(sourceFromUrl(MYSQL_URL, s, name));
      await c.probe();
      conns.push(c);
      return c;
    },
    async exec(sql) {
      await admin.query(sql);
    },
    async drop() {
      for (const c of conns) await c.close().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}

/** Admin connection to the PostgreSQL server itself (pg_stat_activity checks). */
export async function pgAdmin(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  return c;
}
