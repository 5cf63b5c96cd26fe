import type { Engine, NewSource } from './api.js';

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

/** Form fields → request body; SQLite takes a file path in `database` and no server fields. */
export function toNewSource(f: Record<string, string>): NewSource {
  const engine = f.engine as Engine;
  const name = f.name.trim();
  if (engine === 'sqlite') return { name, engine, database: f.database.trim() };
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
