import type { Engine, NewSource, SourceDetail } from './api.js';

export const DEFAULT_PORTS: Record<Engine, number | undefined> = {
  postgresql: 5432,
  mysql: 3306,
  sqlserver: 1433,
  sqlite: undefined,
};

export const ENGINE_LABELS: Record<Engine, string> = {
  postgresql: 'PostgreSQL',
  mysql: 'MySQL / MariaDB',
  sqlserver: 'SQL Server',
  sqlite: 'SQLite',
};

/** Form fields → request body; SQLite takes a file path (typed in the database field) and no server fields. */
export function toNewSource(f: Record<string, string>): NewSource {
  const engine = f.engine as Engine;
  const name = f.name.trim();
  if (engine === 'sqlite') return { name, engine, file: f.database.trim() };
  const port = f.port.trim() === '' ? DEFAULT_PORTS[engine] : Number(f.port);
  return {
    name,
    engine,
    host: f.host.trim(),
    ...(port !== undefined ? { port } : {}),
    database: f.database.trim(),
    user: f.user.trim(),
    ...(f.password !== '' ? { password: f.password } : {}),
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

/** user@host:port/database, or the file of a SQLite source; there is no password to show. */
export function connectionLabel(
  d: Pick<SourceDetail, 'engine' | 'host' | 'port' | 'database' | 'user' | 'file'>,
): string {
  if (d.engine === 'sqlite') return d.file ?? '';
  return `${d.user ? `${d.user}@` : ''}${d.host ?? ''}${d.port ? `:${d.port}` : ''}/${d.database ?? ''}`;
}
