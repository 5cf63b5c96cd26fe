import type { EngineName, SourceConfig } from '@junction/connectors';

const ENGINE_OF_SCHEME: Readonly<Record<string, EngineName>> = {
  'postgres:': 'postgresql',
  'postgresql:': 'postgresql',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
  'mssql:': 'sqlserver',
  'sqlserver:': 'sqlserver',
  'sqlite:': 'sqlite',
};

const DEFAULT_PORT: Readonly<Record<EngineName, number | undefined>> = {
  postgresql: 5432,
  mysql: 3306,
  sqlserver: 1433,
  sqlite: undefined,
  duckdb: undefined,
  documents: undefined,
  trino: 8080,
};

/**
 * A SourceConfig from a connection URL: postgres://user:pass@host:5432/db,
 * mysql://…/db, mssql://…/db, sqlite:/abs/file.db (or sqlite:relative.db).
 * `database` replaces the URL's database. TLS from the query string: sslmode=disable|require|
 * verify-full (PostgreSQL's words) or encrypt=false / trustServerCertificate=true (SQL Server's).
 */
export function sourceFromUrl(name: string, url: string, database?: string): SourceConfig {
  const u = new URL(url);
  const engine = ENGINE_OF_SCHEME[u.protocol];
  if (!engine) throw new Error(`tpch: unsupported URL scheme "${u.protocol}" (postgres, mysql, mssql or sqlite)`);
  if (engine === 'sqlite') {
    const file = decodeURIComponent(u.host ? `${u.host}${u.pathname}` : u.pathname);
    return { name, engine, file };
  }
  const db = database ?? decodeURIComponent(u.pathname.replace(/^\//, ''));
  const tls = tlsFromQuery(u.searchParams);
  return {
    name,
    engine,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : DEFAULT_PORT[engine],
    ...(db ? { database: db } : {}),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    ...(tls ? { options: { tls } } : {}),
  };
}

function tlsFromQuery(q: URLSearchParams): { enabled: boolean; rejectUnauthorized?: boolean } | undefined {
  const sslmode = q.get('sslmode');
  const encrypt = q.get('encrypt');
  const trust = q.get('trustServerCertificate');
  if (sslmode === 'disable' || encrypt === 'false') return { enabled: false };
  if (sslmode === 'require' || trust === 'true') return { enabled: true, rejectUnauthorized: false };
  if (sslmode === 'verify-full' || sslmode === 'verify-ca' || encrypt === 'true')
    return { enabled: true, rejectUnauthorized: true };
  return undefined;
}

/** The URL with its credentials hidden, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
