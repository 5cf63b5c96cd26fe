import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp, type AppOptions } from '../src/app.js';
import { openMetadata, type OpenedDb } from '../src/db/client.js';
import { hashPassword } from '../src/lib/secrets.js';

export const TEST_PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test';

export type RoleName = 'admin' | 'analyst' | 'viewer';

export interface Harness {
  app: FastifyInstance;
  meta: OpenedDb;
  dir: string;
  /** a Bearer token with every scope of the role */
  tokens: Record<RoleName, string>;
  userIds: Record<RoleName, string>;
  passwords: Record<RoleName, string>;
  as(
    role: RoleName | null,
    opts: { method: string; url: string; payload?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A real app on a fresh SQLite metadata file, with one user per role and a token for each. */
export async function startHarness(opts: Partial<AppOptions> & { metadataUrl?: string } = {}): Promise<Harness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-api-'));
  const meta = await openMetadata({ sqliteFile: path.join(dir, 'junction.db'), databaseUrl: opts.metadataUrl });
  const app = await buildApp({ db: meta.db, secretKey: randomBytes(32), webDist: null, ...opts });
  await app.ready();
  const tokens = {} as Record<RoleName, string>;
  const userIds = {} as Record<RoleName, string>;
  const passwords = {} as Record<RoleName, string>;
  for (const role of ['admin', 'analyst', 'viewer'] as const) {
    const id = randomUUID();
    passwords[role] = `pw-${role}-${randomUUID()}`;
    userIds[role] = id;
    await meta.db.user.create({
      data: { id, username: role, role, passwordHash: await hashPassword(passwords[role]) },
    });
    const token = `jct_test_${role}_${randomUUID()}`;
    const { sha256 } = await import('../src/lib/secrets.js');
    const scopes =
      role === 'admin'
        ? ['read', 'query', 'run', 'design', 'admin', 'tokens']
        : role === 'analyst'
          ? ['read', 'query', 'run', 'design', 'tokens']
          : ['read', 'run', 'tokens'];
    await meta.db.apiToken.create({
      data: {
        id: randomUUID(),
        userId: id,
        name: 'test',
        tokenHash: sha256(token),
        prefix: token.slice(0, 10),
        scopes: JSON.stringify(scopes),
      },
    });
    tokens[role] = token;
  }
  return {
    app,
    meta,
    dir,
    tokens,
    userIds,
    passwords,
    as: (role, r) =>
      app.inject({
        method: r.method as 'GET',
        url: r.url,
        ...(r.payload !== undefined ? { payload: r.payload as object } : {}),
        headers: { ...(role ? { authorization: `Bearer ${tokens[role]}` } : {}), ...(r.headers ?? {}) },
      }),
    close: async () => {
      await app.close();
      await meta.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A throwaway PostgreSQL database on TEST_PG_URL's server, dropped by `drop()`. */
export async function createPgDatabase(prefix: string): Promise<{
  name: string;
  url: string;
  host: string;
  port: number;
  user: string;
  password: string;
  drop(): Promise<void>;
}> {
  const name = `jt_${prefix}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function pgExec(url: string, sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Log lines the app wrote, to prove secrets never reach them. */
export function logCapture(): { lines: string[]; logger: { level: string; stream: { write(s: string): void } } } {
  const lines: string[] = [];
  return { lines, logger: { level: 'trace', stream: { write: (s: string) => void lines.push(s) } } };
}

/** The body of `POST /api/v1/sources` registering a test database as a PostgreSQL source. */
export function pgSourcePayload(
  name: string,
  db: { name: string; host: string; port: number; user: string; password: string },
): Record<string, unknown> {
  return {
    name,
    engine: 'postgresql',
    host: db.host,
    port: db.port,
    database: db.name,
    user: db.user,
    password: db.password,
  };
}
