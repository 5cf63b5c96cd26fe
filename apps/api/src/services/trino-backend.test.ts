import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type RenderedQuery, type Row, type SourceConfig } from '@junction/connectors';
import { createPgDatabase, pgExec } from '../../test/harness.js';
import { SourceGate } from './source-gate.js';
import { openTrinoBackend, tablesFromPlacements, trinoSettingsFromEnv } from './trino-backend.js';

describe('trinoSettingsFromEnv', () => {
  it('is undefined without JUNCTION_TRINO_URL, and reads the engine settings beside the connection', () => {
    expect(trinoSettingsFromEnv({})).toBeUndefined();
    const s = trinoSettingsFromEnv({
      JUNCTION_TRINO_URL: 'http://trino.local:8088',
      JUNCTION_TRINO_AUTO_ROWS: '250000',
      JUNCTION_TRINO_DEFAULT_ENGINE: 'Auto',
    });
    expect(s).toMatchObject({
      config: { name: 'trino', engine: 'trino', host: 'trino.local', port: 8088 },
      autoRowsThreshold: 250000,
      defaultEngine: 'auto',
    });
    expect(trinoSettingsFromEnv({ JUNCTION_TRINO_URL: 'http://trino.local:8088' })).toEqual({
      config: expect.objectContaining({ host: 'trino.local' }),
    });
  });

  it('refuses settings it would have to guess at', () => {
    expect(() => trinoSettingsFromEnv({ JUNCTION_TRINO_URL: 'http://t:1', JUNCTION_TRINO_AUTO_ROWS: '1e6' })).toThrow(
      /JUNCTION_TRINO_AUTO_ROWS must be a positive whole number/,
    );
    expect(() =>
      trinoSettingsFromEnv({ JUNCTION_TRINO_URL: 'http://t:1', JUNCTION_TRINO_DEFAULT_ENGINE: 'trino' }),
    ).toThrow(/must be local or auto, not "trino"/);
  });
});

/**
 * The backend opened through the source gate, on a real PostgreSQL database standing where Trino
 * would (the factory hands the gate that connector for Trino's settings, with an EXPLAIN of its own).
 */
describe('tablesFromPlacements', () => {
  it("names a source's tables by the catalog Trino reads it through, and keeps the others local with why", () => {
    const tables = tablesFromPlacements(
      new Map([
        ['pg', { local: false, managed: true, catalog: 'junction_pg', schema: 'public' }],
        ['my', { local: false, managed: false, catalog: 'mariadb', schema: '' }],
        ['lite', { local: true, reason: 'Trino has no SQLite connector' }],
      ] as const),
    );
    expect(['pg', 'my', 'lite', 'new'].map((s) => tables.tableOf(s))).toEqual([
      { catalog: 'junction_pg', schema: 'public' },
      { catalog: 'mariadb' },
      { local: true, reason: 'Trino has no SQLite connector' },
      { local: true, reason: 'its Trino catalog has not been set up yet' },
    ]);
  });
});

describe('openTrinoBackend', () => {
  let db: Awaited<ReturnType<typeof createPgDatabase>>;
  let inner: Connector;
  const asked: SourceConfig[] = [];
  const explained: string[] = [];

  beforeAll(async () => {
    db = await createPgDatabase('api_trino_backend');
    await pgExec(db.url, 'CREATE TABLE public.t (id int); INSERT INTO public.t VALUES (7);');
    const u = new URL(db.url);
    const pgConnector = createConnector({
      name: 'trino',
      engine: 'postgresql',
      host: u.hostname,
      port: Number(u.port),
      database: db.name,
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
    });
    inner = Object.assign(Object.create(pgConnector) as Connector, {
      explainDistributed: async (sql: string) => {
        explained.push(sql);
        return `Fragment 0 [SINGLE]\n    ${sql}`;
      },
    });
  });
  afterAll(async () => {
    await inner?.close();
    await db?.drop();
  });

  it('streams only with a statement authority naming it, explains through the connector, maps tables through the catalogs', async () => {
    const gate = new SourceGate(
      (config) => {
        asked.push(config);
        return inner;
      },
      { mayRunNative: async () => false, mayReadSource: async () => false },
      new Set(),
    );
    const settings = trinoSettingsFromEnv({
      JUNCTION_TRINO_URL: 'http://127.0.0.1:8088',
      JUNCTION_TRINO_AUTO_ROWS: '10',
    })!;
    const backend = await openTrinoBackend(gate, settings, {
      tableOf: (s) =>
        s === 'pg'
          ? { catalog: 'pg', schema: 'public' }
          : { local: true, reason: 'SQLite files are not reachable from Trino' },
    });
    expect(asked.map((c) => [c.engine, c.host, c.port])).toEqual([['trino', '127.0.0.1', 8088]]);
    expect([backend.name, backend.autoRowsThreshold, backend.defaultEngine]).toEqual(['trino', 10, undefined]);
    expect([backend.tableOf('pg'), backend.tableOf('lite')]).toEqual([
      { catalog: 'pg', schema: 'public' },
      { local: true, reason: 'SQLite files are not reachable from Trino' },
    ]);

    const q: RenderedQuery = {
      sql: 'SELECT id FROM public.t',
      params: [],
      columns: [{ name: 'id', type: { kind: 'int32' }, nullable: true }],
    };
    expect(await backend.explain!(q)).toBe('Fragment 0 [SINGLE]\n    SELECT id FROM public.t');
    expect(explained).toEqual(['SELECT id FROM public.t']);

    const read = async (access?: { canReadSource(s: string): boolean }): Promise<Row[]> => {
      const out: Row[] = [];
      for await (const b of backend.connector.stream(q, access ? { access } : {})) out.push(...b.rows);
      return out;
    };
    expect(await read({ canReadSource: (s) => s === 'trino' })).toEqual([[7]]);
    await expect(read({ canReadSource: (s) => s === 'pg' })).rejects.toMatchObject({ code: 'source_forbidden' });
    await expect(read()).rejects.toMatchObject({ code: 'source_forbidden' });
    await expect(backend.connector.execute('SELECT 1')).rejects.toMatchObject({ code: 'source_statement_refused' });
  });
});
