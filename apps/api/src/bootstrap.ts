import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { SourceConfig } from '@junction/connectors';
import type { Db } from './db/client.js';
import { hashPassword, randomToken } from './lib/secrets.js';

/**
 * Creates `admin` when no user exists. Returns the generated password when none was given, so
 * the caller can print it once; it is stored only as a hash.
 */
export async function ensureAdmin(
  db: Db,
  password?: string,
): Promise<{ created: boolean; generatedPassword?: string }> {
  if ((await db.user.count()) > 0) return { created: false };
  const generated = password ? undefined : randomToken(15);
  await db.user.create({
    data: {
      id: randomUUID(),
      username: 'admin',
      role: 'admin',
      passwordHash: await hashPassword(password ?? (generated as string)),
    },
  });
  return { created: true, ...(generated ? { generatedPassword: generated } : {}) };
}

const JDV_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'demo', 'jdv');
export const JDV_EXAMPLES: readonly { letter: string; title: string; params?: unknown[] }[] = [
  { letter: 'A', title: 'single-user DSS: first 100 customers' },
  { letter: 'B', title: '8-table federated inner join (TPC-H Q2-like)' },
  { letter: 'C', title: 'join + group by + order by (revenue per order)' },
  { letter: 'D', title: 'left outer join + group by (TPC-H Q13-like)' },
  { letter: 'E', title: 'dependent join (orders of selected customers)' },
  { letter: 'F', title: 'federated union of two customer tables' },
  { letter: 'G', title: 'multi-user analytic (query B)' },
  // the study draws c_custkey at random; 1 exists at every scale factor
  { letter: 'H', title: 'OLTP 8-table join for one customer', params: [1] },
];

/**
 * Registers the demo's sources (or points stored ones at where the demo runs now), lets analysts
 * and viewers read them, and saves the JDV study's federated queries as examples. Idempotent.
 */
export async function registerDemo(app: FastifyInstance, sources: readonly SourceConfig[]): Promise<void> {
  for (const s of sources) {
    const existing = await app.db.source.findUnique({ where: { name: s.name } });
    if (!existing) {
      await app.junction.createSource(
        { ...s, options: s.options as Record<string, unknown> | undefined },
        { demo: true },
      );
    } else if (existing.demo) {
      const stored = app.junction.configOf(existing);
      const moved =
        stored.host !== s.host ||
        stored.port !== s.port ||
        stored.database !== s.database ||
        stored.user !== s.user ||
        stored.file !== s.file ||
        stored.password !== s.password;
      if (moved)
        await app.junction.updateSource(existing.id, {
          host: s.host,
          port: s.port,
          database: s.database,
          user: s.user,
          password: s.password,
          file: s.file,
        });
    }
    for (const role of ['analyst', 'viewer']) {
      if (!(await app.db.grant.findFirst({ where: { role, sourceName: s.name } }))) {
        await app.db.grant.create({ data: { id: randomUUID(), role, sourceName: s.name } });
      }
    }
  }
  for (const ex of JDV_EXAMPLES) {
    const name = `JDV ${ex.letter}: ${ex.title}`;
    if (await app.db.savedQuery.findFirst({ where: { example: true, name } })) continue;
    const sql = readFileSync(path.join(JDV_DIR, `${ex.letter}.federated.sql`), 'utf8').trim();
    await app.db.savedQuery.create({
      data: {
        id: randomUUID(),
        name,
        description: `JBoss DV study query ${ex.letter}, federated form`,
        sql,
        params: ex.params ? JSON.stringify(ex.params) : null,
        example: true,
        shared: true,
      },
    });
  }
}
