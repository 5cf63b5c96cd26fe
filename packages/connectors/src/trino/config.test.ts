import { describe, expect, it } from 'vitest';
import { trinoConfigFromEnv } from './config.js';

describe('the Trino backend from the environment', () => {
  it('is absent without JUNCTION_TRINO_URL', () => {
    expect(trinoConfigFromEnv({})).toBeUndefined();
    expect(trinoConfigFromEnv({ JUNCTION_TRINO_URL: '  ' })).toBeUndefined();
  });

  it('reads host, port, user, password and TLS', () => {
    expect(trinoConfigFromEnv({ JUNCTION_TRINO_URL: 'http://trino.local:8088' })).toEqual({
      name: 'trino', engine: 'trino', host: 'trino.local', port: 8088, user: 'junction', password: undefined, options: undefined,
    });
    expect(
      trinoConfigFromEnv({ JUNCTION_TRINO_URL: 'https://ana:p%40ss@[::1]', JUNCTION_TRINO_CA: 'PEM', JUNCTION_TRINO_TLS_VERIFY: '0' }),
    ).toEqual({
      name: 'trino', engine: 'trino', host: '::1', port: 443, user: 'ana', password: 'p@ss',
      options: { tls: { enabled: true, rejectUnauthorized: false, ca: 'PEM' } },
    });
    expect(trinoConfigFromEnv({ JUNCTION_TRINO_URL: 'https://h:8443', JUNCTION_TRINO_USER: 'svc', JUNCTION_TRINO_PASSWORD: 'pw' })).toMatchObject({
      user: 'svc', password: 'pw', options: { tls: { enabled: true, rejectUnauthorized: true } },
    });
  });

  it('refuses what is not an http(s) URL', () => {
    expect(() => trinoConfigFromEnv({ JUNCTION_TRINO_URL: 'trino:8080' })).toThrow(/must start with http:\/\/ or https:\/\//);
    expect(() => trinoConfigFromEnv({ JUNCTION_TRINO_URL: 'not a url' })).toThrow(/is not a URL/);
  });
});
