import { describe, expect, it } from 'vitest';
import { mvStoreFromEnv, sourceConfigFromUrl } from './config.js';

describe('where materialized views live', () => {
  it('with the metadata by default: PostgreSQL metadata means the junction_mv schema of that database', () => {
    expect(mvStoreFromEnv({})).toBeUndefined();
    expect(mvStoreFromEnv({ DATABASE_URL: 'postgres://u:p@db:5432/meta' })).toEqual({ url: 'postgres://u:p@db:5432/meta', schema: 'junction_mv' });
    expect(mvStoreFromEnv({ DATABASE_URL: 'postgres://u:p@db/meta', JUNCTION_MV_STORE: 'sqlite' })).toBeUndefined();
    expect(mvStoreFromEnv({ JUNCTION_MV_STORE: 'warehouse', JUNCTION_MV_SCHEMA: 'mv' })).toEqual({ source: 'warehouse', schema: 'mv' });
    expect(() => mvStoreFromEnv({ JUNCTION_MV_SCHEMA: 'Bad-Name' })).toThrow(
      'JUNCTION_MV_SCHEMA must be a lower-case PostgreSQL name (letters, digits, _), not "Bad-Name".',
    );
  });

  it("reads a postgres:// URL as the connector's settings", () => {
    expect(sourceConfigFromUrl('postgresql://ju%40n:p%2Fw@db.example.com:6543/meta?sslmode=verify-full')).toEqual({
      name: 'junction_mv',
      engine: 'postgresql',
      host: 'db.example.com',
      port: 6543,
      database: 'meta',
      user: 'ju@n',
      password: 'p/w',
      options: { tls: { enabled: true, rejectUnauthorized: true } },
    });
    expect(sourceConfigFromUrl('postgres://u@localhost/meta?host=/var/run/postgresql')).toEqual({
      name: 'junction_mv',
      engine: 'postgresql',
      host: '/var/run/postgresql',
      database: 'meta',
      user: 'u',
      options: {},
    });
  });
});
