import { JunctionError, type SourceConfig } from '@junction/connectors';
import { STORE_SOURCE } from '../internal-sources.js';

/**
 * Where materialized views live when not in the single server's SQLite file: a schema of the
 * metadata database (its URL) or of a registered PostgreSQL source (its name).
 */
export type MvStoreChoice = { readonly url: string; readonly schema?: string } | { readonly source: string; readonly schema?: string };

export const DEFAULT_MV_SCHEMA = 'junction_mv';

/**
 * JUNCTION_MV_STORE and JUNCTION_MV_SCHEMA (README, Configuration). Unset, the views live with the
 * metadata: in PostgreSQL when DATABASE_URL is one (every replica reads them), else in the SQLite
 * file. `sqlite` keeps them in the file whatever the metadata; any other value names a registered
 * PostgreSQL source. Undefined: the SQLite file.
 */
export function mvStoreFromEnv(env: NodeJS.ProcessEnv): MvStoreChoice | undefined {
  const schema = env.JUNCTION_MV_SCHEMA?.trim() || DEFAULT_MV_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new JunctionError('invalid_configuration', 'user', `JUNCTION_MV_SCHEMA must be a lower-case PostgreSQL name (letters, digits, _), not "${schema}".`);
  const store = env.JUNCTION_MV_STORE?.trim();
  if (store === 'sqlite') return undefined;
  if (store) return { source: store, schema };
  if (env.DATABASE_URL && /^postgres(ql)?:\/\//.test(env.DATABASE_URL)) return { url: env.DATABASE_URL, schema };
  return undefined;
}

/** A postgres:// URL as the PostgreSQL connector's settings (host, port, database, user, password, sslmode). */
export function sourceConfigFromUrl(url: string): SourceConfig {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new JunctionError('invalid_configuration', 'user', 'The materialized view store URL is not a valid postgres:// URL.');
  }
  const q = u.searchParams;
  // a socket folder or host given as a parameter wins, as in libpq
  const host = q.get('host') ?? (u.hostname ? decodeURIComponent(u.hostname).replace(/^\[|\]$/g, '') : undefined);
  const sslmode = q.get('sslmode');
  return {
    name: STORE_SOURCE,
    engine: 'postgresql',
    ...(host ? { host } : {}),
    ...(u.port ? { port: Number(u.port) } : {}),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    ...(u.username ? { user: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    options: sslmode && sslmode !== 'disable' && sslmode !== 'prefer' && sslmode !== 'allow'
      ? { tls: { enabled: true, rejectUnauthorized: sslmode === 'verify-full' || sslmode === 'verify-ca' } }
      : {},
  };
}
