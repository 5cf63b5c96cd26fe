import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, JunctionError, TrinoConnector, t, type Connector, type Row, type SourceConfig, type SourceSemantics } from '@junction/connectors';
import { collect, sourceFromUrl } from '../../../../packages/connectors/test/support/sources.js';
import { trinoConfig, trinoForTests } from '../../../../packages/connectors/test/support/trino.js';
import { catalogDefinition, TrinoCatalogs, trinoCatalogName, type TrinoStatements } from './trino-catalogs.js';

const MARIADB: SourceSemantics = {
  serverVersion: '11.8.3-MariaDB-0+deb13u1',
  defaultCollation: 'utf8mb4_general_ci',
  caseSensitive: false,
  accentSensitive: false,
  padSpace: true,
  timeZone: 'UTC',
  maxBindParams: 65535,
  maxIdentifierLength: 64,
};

describe('Trino catalogs for Junction sources', () => {
  it('names catalogs deterministically, with a hash when the source name had to change', () => {
    expect(trinoCatalogName('dba')).toBe('junction_dba');
    expect(trinoCatalogName('sales_2024')).toBe('junction_sales_2024');
    expect(trinoCatalogName('Sales-DB')).toMatch(/^junction_sales_db_[0-9a-f]{8}$/);
    expect(trinoCatalogName('Sales-DB')).toBe(trinoCatalogName('Sales-DB'));
    expect(trinoCatalogName('sales')).not.toBe(trinoCatalogName('Sales'));
    expect(trinoCatalogName('ünïcode name')).toMatch(/^junction_n_code_name_[0-9a-f]{8}$/);
  });

  it('writes CREATE CATALOG with every property value escaped', () => {
    const pg: SourceConfig = { name: 'dba', engine: 'postgresql', host: 'db.example.com', port: 5433, database: 'sales db', user: "o'brien", password: "p'w\\\"--" };
    expect(catalogDefinition(pg)).toEqual({
      name: 'junction_dba',
      connector: 'postgresql',
      schema: 'public',
      sql: `CREATE CATALOG junction_dba USING postgresql WITH ("connection-url" = 'jdbc:postgresql://db.example.com:5433/sales%20db', "connection-user" = 'o''brien', "connection-password" = 'p''w\\"--', "case-insensitive-name-matching" = 'true', "dynamic-filtering.wait-timeout" = '1s')`,
    });
    const maria: SourceConfig = { name: 'dbb', engine: 'mysql', host: '10.0.0.5', database: 'shop', user: 'u', password: 'x', options: { tls: { enabled: true } } };
    expect(catalogDefinition(maria, MARIADB)).toMatchObject({
      connector: 'mariadb',
      schema: 'shop',
      sql: `CREATE CATALOG junction_dbb USING mariadb WITH ("connection-url" = 'jdbc:mariadb://10.0.0.5:3306?sslMode=verify-full', "connection-user" = 'u', "connection-password" = 'x', "case-insensitive-name-matching" = 'true', "dynamic-filtering.wait-timeout" = '1s')`,
    });
    expect(catalogDefinition(maria, { ...MARIADB, serverVersion: '8.0.39' })).toMatchObject({ connector: 'mysql' });
    const mssql: SourceConfig = { name: 'ms', engine: 'sqlserver', host: 'sql', database: 'a;b}c', user: 'sa', password: 'p' };
    expect(catalogDefinition(mssql)).toMatchObject({
      schema: 'dbo',
      sql: `CREATE CATALOG junction_ms USING sqlserver WITH ("connection-url" = 'jdbc:sqlserver://sql:1433;databaseName={a;b}}c};encrypt=false', "connection-user" = 'sa', "connection-password" = 'p', "case-insensitive-name-matching" = 'true', "dynamic-filtering.wait-timeout" = '1s')`,
    });
    expect(() => catalogDefinition({ ...pg, host: 'evil/x?y' })).toThrow(/cannot be passed to Trino in a JDBC URL/);
  });

  it('keeps SQLite sources local, and every source when the cluster refuses CREATE CATALOG', async () => {
    const seen: string[] = [];
    const staticTrino: TrinoStatements = {
      execute: async (sql) => {
        seen.push(sql);
        if (sql === 'SHOW CATALOGS') return { rows: [['system']] };
        throw new JunctionError('source_error', 'external', 'CREATE CATALOG is not supported by the static catalog store', { details: { errorName: 'NOT_SUPPORTED' } });
      },
    };
    const catalogs = new TrinoCatalogs(staticTrino, DIGEST);
    expect(await catalogs.ensure({ name: 'dbc', engine: 'sqlite', file: '/x.db' })).toEqual({
      local: true,
      reason: 'Trino has no connector for SQLite: queries reading source "dbc" run in Junction.',
    });
    const pg: SourceConfig = { name: 'dba', engine: 'postgresql', database: 'x', user: 'u', password: 'p' };
    expect(await catalogs.ensure(pg)).toMatchObject({ local: true, reason: expect.stringMatching(/does not allow CREATE CATALOG .*trinoCatalog/) });
    expect(await catalogs.ensure({ ...pg, name: 'other' })).toMatchObject({ local: true });
    expect(seen.map((x) => x.split(' USING')[0])).toEqual(['SHOW CATALOGS', `CREATE CATALOG ${versioned(pg)}`]);
  });

  it('keeps file and document sources local without asking Trino, even mapped to a catalog', async () => {
    const seen: string[] = [];
    const catalogs = new TrinoCatalogs({ execute: async (sql) => (seen.push(sql), { rows: [] }) }, DIGEST);
    const files = { name: 'csvs', engine: 'duckdb', options: { trinoCatalog: 'hive' } } as unknown as SourceConfig;
    expect(await catalogs.ensure(files)).toEqual({
      local: true,
      reason: `Source "csvs" reads files on Junction's own host: queries reading it run in Junction.`,
    });
    expect(await catalogs.ensure({ name: 'feeds', engine: 'documents', options: { documents: { tables: [] } } })).toEqual({
      local: true,
      reason: `Source "feeds" reads documents on Junction's own host: queries reading it run in Junction.`,
    });
    expect(seen).toEqual([]);
  });
});

/** a keyed digest as the server's SecretBox makes it, with a test key */
const DIGEST = (text: string): string => createHmac('sha256', 'test key').update(text).digest('hex');
/** the catalog name ensure() gives a source: its base name and the version of its definition */
const versioned = (source: SourceConfig, semantics?: SourceSemantics): string => {
  const def = catalogDefinition(source, semantics);
  if ('local' in def) throw new Error('unreachable');
  return `${def.name}_v${DIGEST(def.sql).slice(0, 8)}`;
};

const trino = await trinoForTests();
const tag = `${process.pid}_${Math.random().toString(36).slice(2, 6)}`;

describe.skipIf(trino.skip !== undefined)('Trino catalogs against a live Trino, PostgreSQL and MariaDB', () => {
  const pgUrl = process.env.TEST_PG_URL!;
  const myUrl = process.env.TEST_MYSQL_URL!;
  const schema = `jt_cat_${tag}`;
  const myTable = `jt_cat_${tag}`;
  const statements: string[] = [];
  let tc: TrinoConnector;
  let pg: Connector;
  let my: Connector;
  let maria: SourceSemantics;
  let catalogs: TrinoCatalogs;
  const pgSource = (): SourceConfig => ({ ...sourceFromUrl(pgUrl, `Sales PG ${tag}`), options: { schema } });
  const mySource = (): SourceConfig => sourceFromUrl(myUrl, `crm_${tag}`);

  beforeAll(async () => {
    tc = new TrinoConnector(trinoConfig(trino.url!));
    // every statement the catalogs send, passed on to the real Trino
    catalogs = new TrinoCatalogs({ execute: (sql) => (statements.push(sql), tc.execute(sql)) }, DIGEST);
    pg = createConnector(sourceFromUrl(pgUrl, 'pg'));
    my = createConnector(sourceFromUrl(myUrl, 'my'));
    maria = await my.probe();
    await pg.execute(`CREATE SCHEMA ${schema}`);
    await pg.execute(`CREATE TABLE ${schema}.orders (id integer, cust integer, amount numeric(12,2))`);
    await pg.execute(`INSERT INTO ${schema}.orders VALUES (1, 10, 1909572716.10), (2, 20, NULL), (3, 99, -0.05)`);
    await my.execute(`CREATE TABLE ${myTable} (id int PRIMARY KEY, name varchar(20))`);
    await my.execute(`INSERT INTO ${myTable} VALUES (10, 'Mixed Case'), (20, 'trailing  ')`);
  });

  afterAll(async () => {
    for (const s of [pgSource(), mySource()]) await catalogs?.drop(s).catch(() => undefined);
    await tc?.execute(`DROP CATALOG IF EXISTS jt_admin_${tag}`).catch(() => undefined);
    await pg?.execute(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await my?.execute(`DROP TABLE IF EXISTS ${myTable}`).catch(() => undefined);
    await Promise.all([tc?.close(), pg?.close(), my?.close()]);
  });

  const catalogList = async (): Promise<string[]> => (await tc.execute('SHOW CATALOGS')).rows.map((r: Row) => String(r[0]));

  it('creates a catalog per source and joins them through the Trino connector', async () => {
    const pgPlace = await catalogs.ensure(pgSource());
    const myPlace = await catalogs.ensure(mySource(), maria);
    expect(pgPlace).toEqual({ local: false, managed: true, catalog: versioned(pgSource()), schema });
    expect(versioned(pgSource())).toMatch(new RegExp(`^${trinoCatalogName(`Sales PG ${tag}`)}_v[0-9a-f]{8}$`));
    expect(myPlace).toEqual({ local: false, managed: true, catalog: versioned(mySource(), maria), schema: 'junction_test' });
    expect(versioned(mySource(), maria)).toMatch(new RegExp(`^junction_crm_${tag}_v[0-9a-f]{8}$`));
    expect(statements.filter((s) => s.startsWith('CREATE CATALOG')).map((s) => / USING (\w+)/.exec(s)?.[1])).toEqual(['postgresql', 'mariadb']);
    if (pgPlace.local || myPlace.local) throw new Error('unreachable');
    const r = tc.render({
      select: [
        { expr: { kind: 'column', table: 'o', column: 'id', type: t.int32 }, alias: 'id' },
        { expr: { kind: 'column', table: 'o', column: 'amount', type: t.decimal(12, 2) }, alias: 'amount' },
        { expr: { kind: 'column', table: 'c', column: 'name', type: t.varchar(20) }, alias: 'name' },
      ],
      from: {
        kind: 'join',
        type: 'left',
        left: { kind: 'table', alias: 'o', catalog: pgPlace.catalog, schema: pgPlace.schema, table: 'orders' },
        right: { kind: 'table', alias: 'c', catalog: myPlace.catalog, schema: myPlace.schema, table: myTable },
        on: { kind: 'call', fn: 'eq', args: [{ kind: 'column', table: 'o', column: 'cust', type: t.int32 }, { kind: 'column', table: 'c', column: 'id', type: t.int32 }], type: t.bool },
      },
      orderBy: [{ expr: { kind: 'column', table: 'o', column: 'amount', type: t.decimal(12, 2) }, desc: true, nullsFirst: true }],
    });
    expect((await collect(tc.stream(r))).rows).toEqual([
      [2, null, 'trailing  '],
      [1, '1909572716.10', 'Mixed Case'],
      [3, '-0.05', null],
    ]);
  });

  it('leaves an unchanged source alone; a changed one gets a new version and the old one goes', async () => {
    statements.length = 0;
    await catalogs.ensure(pgSource());
    expect(statements).toEqual([]);
    const before = versioned(pgSource());
    const wrong = { ...pgSource(), password: 'not-the-password' };
    const err = await catalogs.ensure(wrong).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(JunctionError);
    expect((err as JunctionError).code).toBe('trino_catalog_failed');
    expect((err as JunctionError).message).toMatch(
      new RegExp(`^Trino cannot read source "Sales PG ${tag}" through catalog "${versioned(wrong)}": .*password authentication failed for user "junction"`),
    );
    expect((err as JunctionError).message).not.toContain('not-the-password');
    // a catalog that cannot log in is not left behind, and the working one stays
    expect(await catalogList()).not.toContain(versioned(wrong));
    expect(await catalogList()).toContain(before);

    // another server (or this one after a restart) finds the catalog its settings name: nothing is created again
    const other = new TrinoCatalogs({ execute: (sql) => (statements.push(sql), tc.execute(sql)) }, DIGEST);
    statements.length = 0;
    expect(await other.ensure(pgSource())).toEqual({ local: false, managed: true, catalog: before, schema });
    expect(statements).toEqual(['SHOW CATALOGS']);

    // new settings: a new version, then the old version is dropped
    const moved: SourceConfig = { ...pgSource(), host: pgSource().host === 'localhost' ? '127.0.0.1' : 'localhost' };
    const placed = await other.ensure(moved);
    expect(placed).toMatchObject({ local: false, managed: true });
    if (placed.local) throw new Error('unreachable');
    expect(placed.catalog).not.toBe(before);
    const list = await catalogList();
    expect(list).toContain(placed.catalog);
    expect(list).not.toContain(before);
    expect(await catalogs.ensure(pgSource())).toMatchObject({ catalog: before });
  });

  it("uses an admin's existing catalog as it is and never drops it", async () => {
    const admin = `jt_admin_${tag}`;
    const def = catalogDefinition({ ...pgSource(), name: admin.replace(/^junction_/, '') });
    if ('local' in def) throw new Error('unreachable');
    await tc.execute(def.sql.replace(`CREATE CATALOG ${def.name}`, `CREATE CATALOG ${admin}`));
    const source: SourceConfig = { ...pgSource(), name: `mapped_${tag}`, options: { schema, trinoCatalog: admin } as SourceConfig['options'] };
    expect(await catalogs.ensure(source)).toEqual({ local: false, managed: false, catalog: admin, schema });
    await catalogs.drop(source);
    expect(await catalogList()).toContain(admin);
    const missing: SourceConfig = { ...source, options: { trinoCatalog: `jt_nothing_${tag}` } as SourceConfig['options'] };
    await expect(catalogs.ensure(missing)).rejects.toMatchObject({ code: 'trino_catalog_failed', message: expect.stringMatching(/Catalog 'jt_nothing_.*' not found|does not exist/) });
    await expect(catalogs.dropCatalog(admin)).rejects.toMatchObject({ code: 'trino_catalog_invalid' });
    expect(await catalogList()).toContain(admin);
  });

  it('drops the catalog of a removed source by its name', async () => {
    const name = versioned(mySource(), maria);
    expect(await catalogList()).toContain(name);
    await catalogs.dropCatalog(name);
    expect(await catalogList()).not.toContain(name);
  });
});
