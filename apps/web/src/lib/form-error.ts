import { ApiError } from './api-error.js';

/**
 * A message a person can act on. The API's schema validation speaks JSON-pointer
 * ("body/port must be <= 65535"); forms know their fields' labels, so they say "Port must be at most 65535."
 */
export function friendlyError(err: unknown, labels: Record<string, string> = {}): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  if (err.code !== 'validation') return err.message;
  const m = /^(?:body|querystring|params)\/([\w/]+) (.*)$/.exec(err.message);
  const field = m?.[1] ?? String(err.details?.field ?? '').replace(/^(body|querystring|params)\./, '');
  const leaf = field.split(/[./]/).pop() ?? '';
  const label = labels[leaf] ?? (leaf ? leaf[0].toUpperCase() + leaf.slice(1) : 'A field');
  const rule = (m?.[2] ?? err.message)
    .replace(/^must be <= (\S+)$/, 'must be at most $1')
    .replace(/^must be >= (\S+)$/, 'must be at least $1')
    .replace(/^must NOT have fewer than (\d+) characters$/, 'must have at least $1 characters')
    .replace(/^must NOT have more than (\d+) characters$/, 'must have at most $1 characters')
    .replace(/^must have required property '(\w+)'$/, (_, p: string) => `needs ${labels[p] ?? p}`)
    .replace(/^must match pattern .*$/, 'has characters that are not allowed');
  return `${label} ${rule}.`;
}
