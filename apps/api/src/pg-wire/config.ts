import { readFileSync } from 'node:fs';

export interface PgWireConfig {
  readonly port: number;
  readonly maxConnections: number;
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
}

/**
 * JUNCTION_PG_PORT (default 5433; 0 turns the port off) and JUNCTION_PG_TLS_CERT/KEY (PEM files;
 * both or neither). Null: no PostgreSQL port.
 */
export function pgWireFromEnv(env: NodeJS.ProcessEnv): PgWireConfig | null {
  const raw = env.JUNCTION_PG_PORT ?? '5433';
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 65535)
    throw new Error(`JUNCTION_PG_PORT must be a port number (0 turns the PostgreSQL port off), not "${raw}"`);
  const port = Number(raw);
  if (port === 0) return null;
  const certFile = env.JUNCTION_PG_TLS_CERT;
  const keyFile = env.JUNCTION_PG_TLS_KEY;
  if (!certFile !== !keyFile)
    throw new Error('JUNCTION_PG_TLS_CERT and JUNCTION_PG_TLS_KEY go together: set both or neither');
  const max = env.JUNCTION_PG_MAX_CONNECTIONS ?? '200';
  if (!/^\d+$/.test(max.trim()) || Number(max) < 1)
    throw new Error(`JUNCTION_PG_MAX_CONNECTIONS must be a positive integer, not "${max}"`);
  return {
    port,
    maxConnections: Number(max),
    ...(certFile && keyFile ? { tls: { cert: readFileSync(certFile), key: readFileSync(keyFile) } } : {}),
  };
}
