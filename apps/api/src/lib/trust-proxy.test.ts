import { describe, expect, it } from 'vitest';
import { fastifyTrustProxy, parseSecureCookies, parseTrustProxy } from './trust-proxy.js';

describe('parseTrustProxy (JUNCTION_TRUST_PROXY)', () => {
  it('reads a number of hops or a list of proxy addresses, and never trusts every hop', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1,::1, fd00::/8,loopback')).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['true', 'yes', '10.0.0.0/33', 'proxy.example.com', '1.2.3', ','])
      expect(() => parseTrustProxy(bad), bad).toThrow(/JUNCTION_TRUST_PROXY must be/);
  });

  it('turns hops into a function trusting the socket peer and the entries the proxies appended', () => {
    const fn = fastifyTrustProxy(2) as (addr: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => fn('x', hop))).toEqual([true, true, false]);
    expect(fastifyTrustProxy(false)).toBe(false);
    expect(fastifyTrustProxy(['10.0.0.1'])).toEqual(['10.0.0.1']);
  });
});

describe('parseSecureCookies (JUNCTION_SECURE_COOKIES)', () => {
  it('is 1, 0 or unset (automatic)', () => {
    expect(parseSecureCookies(undefined)).toBeUndefined();
    expect(parseSecureCookies('1')).toBe(true);
    expect(parseSecureCookies('0')).toBe(false);
    expect(() => parseSecureCookies('yes')).toThrow(/JUNCTION_SECURE_COOKIES must be/);
  });
});
