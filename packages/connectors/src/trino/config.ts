import { JunctionError } from '../contract/errors.js';
import type { TrinoConfig } from './connector.js';

/**
 * The Trino backend from the environment, or undefined when JUNCTION_TRINO_URL is unset:
 * JUNCTION_TRINO_URL (http://host:8080 or https://…), JUNCTION_TRINO_USER (default junction),
 * JUNCTION_TRINO_PASSWORD, JUNCTION_TRINO_CA (PEM text of a private CA) and
 * JUNCTION_TRINO_TLS_VERIFY=0 to accept any certificate (test servers only).
 */
export function trinoConfigFromEnv(env: Readonly<Record<string, string | undefined>>): TrinoConfig | undefined {
  const raw = env.JUNCTION_TRINO_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new JunctionError('trino_config_invalid', 'user', `JUNCTION_TRINO_URL "${raw}" is not a URL (expected http://host:port or https://host:port).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new JunctionError('trino_config_invalid', 'user', `JUNCTION_TRINO_URL must start with http:// or https://, not ${url.protocol}//.`);
  const tls = url.protocol === 'https:';
  return {
    name: 'trino',
    engine: 'trino',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : tls ? 443 : 80,
    user: env.JUNCTION_TRINO_USER || decodeURIComponent(url.username) || 'junction',
    password: env.JUNCTION_TRINO_PASSWORD || (url.password ? decodeURIComponent(url.password) : undefined),
    options: tls
      ? { tls: { enabled: true, rejectUnauthorized: env.JUNCTION_TRINO_TLS_VERIFY !== '0', ...(env.JUNCTION_TRINO_CA ? { ca: env.JUNCTION_TRINO_CA } : {}) } }
      : undefined,
  };
}
