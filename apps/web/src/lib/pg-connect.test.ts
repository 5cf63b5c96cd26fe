import { describe, expect, it } from 'vitest';
import type { CatalogSource } from './catalog.js';
import {
  exampleQuery,
  exampleTable,
  exampleVirtualSchema,
  pgConnectStrings,
  type ConnectionInfo,
} from './pg-connect.js';

const info = (over: Partial<ConnectionInfo['pgWire']> = {}, username = 'ana'): ConnectionInfo => ({
  pgWire: { enabled: true, host: '127.0.0.1', port: 5433, tls: false, database: 'junction', ...over },
  username,
  canQuery: true,
});

describe('pgConnectStrings', () => {
  it('writes psql, JDBC and libpq forms without TLS', () => {
    expect(pgConnectStrings(info())).toEqual({
      psql: 'psql "host=127.0.0.1 port=5433 dbname=junction user=ana sslmode=disable"',
      jdbc: 'jdbc:postgresql://127.0.0.1:5433/junction?sslmode=disable',
      uri: 'postgresql://ana@127.0.0.1:5433/junction?sslmode=disable',
    });
  });

  it('requires TLS when the listener offers it', () => {
    expect(pgConnectStrings(info({ host: 'db.example.com', port: 6543, tls: true }, 'bo.b@corp'))).toEqual({
      psql: 'psql "host=db.example.com port=6543 dbname=junction user=bo.b@corp sslmode=require"',
      jdbc: 'jdbc:postgresql://db.example.com:6543/junction?sslmode=require',
      uri: 'postgresql://bo.b%40corp@db.example.com:6543/junction?sslmode=require',
    });
  });

  it('puts an IPv6 address in brackets in URLs only', () => {
    const s = pgConnectStrings(info({ host: 'fd00::5' }));
    expect(s.psql).toBe('psql "host=fd00::5 port=5433 dbname=junction user=ana sslmode=disable"');
    expect(s.jdbc).toBe('jdbc:postgresql://[fd00::5]:5433/junction?sslmode=disable');
    expect(s.uri).toBe('postgresql://ana@[fd00::5]:5433/junction?sslmode=disable');
  });

  it('quotes a user name that libpq or the shell would split', () => {
    // libpq's user='o\'neil $x', in shell double quotes: the backslash doubled, the $ escaped
    expect(pgConnectStrings(info({}, `o'neil $x`)).psql).toBe(
      String.raw`psql "host=127.0.0.1 port=5433 dbname=junction user='o\\'neil \$x' sslmode=disable"`,
    );
  });
});

describe('the example query', () => {
  const catalog: CatalogSource[] = [
    {
      name: 'aview',
      engine: 'virtual',
      defaultSchema: 'aview',
      schemas: [{ name: 'aview', tables: [{ name: 'v', kind: 'view' }] }],
    },
    { name: 'empty', engine: 'postgresql', defaultSchema: 'public', schemas: [] },
    {
      name: 'dbA',
      engine: 'postgresql',
      defaultSchema: 'public',
      schemas: [
        { name: 'other', tables: [{ name: 'zzz', kind: 'table' }] },
        {
          name: 'public',
          tables: [
            { name: 'lineitem', kind: 'table' },
            { name: 'orders', kind: 'table' },
          ],
        },
      ],
    },
  ];

  it("names the first table of the user's first source, quoted", () => {
    const t = exampleTable(catalog);
    expect(t).toEqual({ schema: 'dbA', table: 'lineitem' });
    expect(exampleQuery(t)).toBe('SELECT * FROM "dbA"."lineitem" LIMIT 10;');
    expect(exampleVirtualSchema(catalog)).toBe('aview');
  });

  it('falls back to the demo\'s "dbA"."region" without a catalog', () => {
    expect(exampleTable(undefined)).toEqual({ schema: 'dbA', table: 'region' });
    expect(exampleQuery(exampleTable([]))).toBe('SELECT * FROM "dbA"."region" LIMIT 10;');
    expect(exampleVirtualSchema([])).toBeUndefined();
  });
});
