import type { Engine, FileEngine, NewSource, SourceDetail, SourceOptions } from './api.js';

export const DEFAULT_PORTS: Record<Engine, number | undefined> = {
  postgresql: 5432,
  mysql: 3306,
  sqlserver: 1433,
  sqlite: undefined,
  duckdb: undefined,
  documents: undefined,
};

export const ENGINE_LABELS: Record<Engine, string> = {
  postgresql: 'PostgreSQL',
  mysql: 'MySQL / MariaDB',
  sqlserver: 'SQL Server',
  sqlite: 'SQLite',
  duckdb: 'Files (CSV, Parquet, JSON)',
  documents: 'Documents (XML, JSON)',
};

/** Sources that are files and documents on Junction's host: no server, user or pool to set. */
export function isFileEngine(e: Engine): e is FileEngine {
  return e === 'duckdb' || e === 'documents';
}

/**
 * The connection options of the register form (TLS, pool size, connect timeout): only those set,
 * so a source registered without touching them keeps the server's defaults. Checkboxes arrive
 * as "on" when ticked and not at all otherwise, as FormData has them.
 */
export function connectionOptions(f: Record<string, string | undefined>): SourceOptions {
  const out: SourceOptions = {};
  if (f.tls === 'on') {
    const ca = f.ca?.trim() ?? '';
    out.tls = { enabled: true, rejectUnauthorized: f.verify === 'on', ...(ca !== '' ? { ca } : {}) };
  }
  const max = f.poolMax?.trim() ?? '';
  if (max !== '') out.pool = { max: Number(max) };
  const timeout = f.connectTimeoutMs?.trim() ?? '';
  if (timeout !== '') out.connectTimeoutMs = Number(timeout);
  return out;
}

/** Form fields → request body; SQLite takes a file path (typed in the database field) and no server fields. */
export function toNewSource(f: Record<string, string>): NewSource {
  const engine = f.engine as Engine;
  const name = f.name.trim();
  if (engine === 'sqlite') return { name, engine, file: f.database.trim() };
  const port = f.port.trim() === '' ? DEFAULT_PORTS[engine] : Number(f.port);
  const options = connectionOptions(f);
  return {
    name,
    engine,
    host: f.host.trim(),
    ...(port !== undefined ? { port } : {}),
    database: f.database.trim(),
    user: f.user.trim(),
    ...(f.password !== '' ? { password: f.password } : {}),
    ...(Object.keys(options).length > 0 ? { options: { ...options } } : {}),
  };
}

export interface Diagnosis {
  readonly ok: boolean;
  readonly serverVersion?: string;
  readonly latencyMs?: number;
  readonly code?: string;
  readonly message?: string;
  readonly hint?: string;
}

/** One line for the connection test result: what happened and what to do next. */
export function describeDiagnosis(d: Diagnosis): string {
  if (d.ok) {
    const version = d.serverVersion ? ` to ${d.serverVersion}` : '';
    const latency = d.latencyMs !== undefined ? ` in ${Math.round(d.latencyMs)} ms` : '';
    return `Connected${version}${latency}.`;
  }
  const parts = [d.message?.trim() || 'The connection failed.'];
  if (d.hint) parts.push(d.hint.trim());
  if (d.code) parts.push(`(${d.code})`);
  return parts.join(' ');
}

/**
 * user@host:port/database, the file of a SQLite source, or the root folder (else the tables) of a
 * file or document source; there is no password to show.
 */
export function connectionLabel(
  d: Pick<SourceDetail, 'engine' | 'host' | 'port' | 'database' | 'user' | 'file'> &
    Pick<Partial<SourceDetail>, 'options'>,
): string {
  if (d.engine === 'sqlite') return d.file ?? '';
  if (d.engine === 'duckdb' || d.engine === 'documents') {
    const spec = d.engine === 'duckdb' ? d.options?.files : d.options?.documents;
    const n = spec?.tables?.length ?? 0;
    const where = spec?.root ?? d.file ?? '';
    const tables = n ? `${n} table${n === 1 ? '' : 's'}` : '';
    return [where, tables].filter((x) => x !== '').join(', ');
  }
  return `${d.user ? `${d.user}@` : ''}${d.host ?? ''}${d.port ? `:${d.port}` : ''}/${d.database ?? ''}`;
}
