import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { SourceConfig } from '@junction/connectors';
import { jdvWorkload } from '@junction/tpch/workload';
import type { Db } from './db/client.js';
import { hashPassword, randomToken } from './lib/secrets.js';
import { scramVerifier } from './pg-wire/auth.js';

/**
 * Creates `admin` when no user exists. Returns the generated password when none was given, so
 * the caller can print it once; it is stored only as hashes (scrypt, and a SCRAM verifier).
 */
export async function ensureAdmin(
  db: Db,
  password?: string,
): Promise<{ created: boolean; generatedPassword?: string }> {
  if ((await db.user.count()) > 0) return { created: false };
  const generated = password ? undefined : randomToken(15);
  const initial = password ?? (generated as string);
  try {
    await db.user.create({
      data: {
        id: randomUUID(),
        username: 'admin',
        role: 'admin',
        passwordHash: await hashPassword(initial),
        // for SCRAM sign-in on the PostgreSQL port (pg-wire/auth.ts)
        scramVerifier: await scramVerifier(initial),
      },
    });
  } catch (e) {
    // servers started together on a new metadata database: another one created it first
    if ((e as { code?: unknown }).code === 'P2002') return { created: false };
    throw e;
  }
  return { created: true, ...(generated ? { generatedPassword: generated } : {}) };
}

/**
 * The demo's examples: the JDV workload's queries in their federated form, with the constants
 * for the demo's scale (the study's select nothing at small scales), named by what they do and
 * the sources they read. The letter keeps the study's order and name.
 */
export function demoExamples(sf: number): { name: string; description: string; sql: string; params: number[] | null }[] {
  return jdvWorkload(sf)
    .queries.filter((q) => q.example)
    .map((q) => ({
      name: `${q.id} · ${q.title} · ${[...q.sources].sort().join(' + ')}`,
      description: [
        `JBoss Data Virtualization study, query ${q.id}: ${q.kind}; federated form.`,
        ...(q.params.length ? [`$1 is ${q.params.map((p) => p.name).join(', ')}.`] : []),
        ...(q.adjusted.length
          ? [`Constants set for the demo's scale (SF ${sf}): ${q.adjusted.map(([a, b]) => `${a} → ${b}`).join('; ')}.`]
          : []),
      ].join(' '),
      sql: q.federated,
      params: q.params.length ? q.params.map((p) => p.example) : null,
    }));
}

/**
 * Registers the demo's sources (or points stored ones at where the demo runs now), lets analysts
 * and viewers read them, and saves the JDV workload's queries as examples. Idempotent.
 */
/** Sources and examples the demo adds beside the TPC-H federation (the TPoX documents). */
export interface DemoExtras {
  readonly sources: readonly SourceConfig[];
  readonly examples: readonly { name: string; description: string; sql: string }[];
}

export async function registerDemo(
  app: FastifyInstance,
  tpchSources: readonly SourceConfig[],
  sf: number,
  extras?: DemoExtras,
): Promise<void> {
  const sources = [...tpchSources, ...(extras?.sources ?? [])];
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
        stored.password !== s.password ||
        JSON.stringify(stored.options ?? {}) !== JSON.stringify(s.options ?? {});
      if (moved)
        await app.junction.updateSource(existing.id, {
          host: s.host,
          port: s.port,
          database: s.database,
          user: s.user,
          password: s.password,
          file: s.file,
          ...(s.options ? { options: s.options as Record<string, unknown> } : {}),
        });
    }
    for (const role of ['analyst', 'viewer']) {
      if (!(await app.db.grant.findFirst({ where: { role, sourceName: s.name } }))) {
        await app.db.grant.create({ data: { id: randomUUID(), role, sourceName: s.name } });
      }
    }
  }
  await app.junction.invalidateAccess();
  // examples follow the workload: a renamed or changed one replaces what an earlier version saved
  const examples = [...demoExamples(sf), ...(extras?.examples ?? []).map((e) => ({ ...e, params: null }))];
  await app.db.savedQuery.deleteMany({ where: { example: true, name: { notIn: examples.map((e) => e.name) } } });
  for (const ex of examples) {
    const data = { description: ex.description, sql: ex.sql, params: ex.params ? JSON.stringify(ex.params) : null };
    const stored = await app.db.savedQuery.findFirst({ where: { example: true, name: ex.name } });
    if (!stored) {
      await app.db.savedQuery.create({ data: { id: randomUUID(), name: ex.name, ...data, example: true, shared: true } });
    } else if (stored.sql !== data.sql || stored.params !== data.params || stored.description !== data.description) {
      await app.db.savedQuery.update({ where: { id: stored.id }, data });
    }
  }
}
