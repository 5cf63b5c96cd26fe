import { isIP } from 'node:net';

/** What Fastify's `trustProxy` is given: no proxy, a number of hops, or the proxies' addresses. */
export type TrustProxy = false | number | string[];

// proxy-addr's names for whole ranges
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * JUNCTION_TRUST_PROXY: unset or `0`: no proxy, the socket's address is the client's. A number N:
 * N proxies in front, so the client is the Nth X-Forwarded-For entry from the right: entries
 * further left were written by the client and are not believed. Otherwise a comma list of the
 * proxies' addresses or CIDRs (or loopback, linklocal, uniquelocal): entries are believed while
 * they come from those. `true` (every hop) is refused: any client could then pick its address.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const v = value?.trim() ?? '';
  if (v === '' || v === '0') return false;
  if (/^\d{1,2}$/.test(v)) return Number(v);
  const entries = v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (entries.length === 0 || bad.length)
    throw new Error(
      `JUNCTION_TRUST_PROXY must be a number of proxy hops (1 for one proxy) or a comma list of proxy addresses or CIDRs, not "${value}"`,
    );
  return entries;
}

/**
 * Fastify's own hop count trusts nothing (it cannot tell the proxy from a client that connects
 * directly), so hops are a function: the socket peer and the entries the N proxies appended.
 */
export function fastifyTrustProxy(
  tp: TrustProxy | undefined,
): false | string[] | ((addr: string, hop: number) => boolean) {
  if (typeof tp === 'number') return tp > 0 ? (_addr, hop) => hop < tp : false;
  return tp ?? false;
}

/**
 * JUNCTION_SECURE_COOKIES: `1` always marks session cookies Secure, `0` never; unset: when the
 * request came over https or a proxy is trusted (a TLS-terminating proxy that does not send
 * X-Forwarded-Proto would otherwise get cookies a browser sends over plain http too).
 */
export function parseSecureCookies(value: string | undefined): boolean | undefined {
  const v = value?.trim() ?? '';
  if (v === '') return undefined;
  if (v === '1') return true;
  if (v === '0') return false;
  throw new Error(`JUNCTION_SECURE_COOKIES must be 1 or 0 (unset: automatic), not "${value}"`);
}
