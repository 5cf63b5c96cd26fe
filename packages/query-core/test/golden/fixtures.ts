import {
  JunctionError,
  capabilitiesForEngine,
  renderFor,
  type CatalogSnapshot,
  type Connector,
  type EngineName,
  type SourceSemantics,
  type TableInfo,
} from '@junction/connectors';
import { TABLES, rowCount, type TableName } from '@junction/tpch';
import type { RegisteredSource } from '../../src/api.js';

/**
 * Sources for plan-only golden tests: the real capabilities and the real SQL dialects of the
 * connectors package, fed with the semantics a probe of each server reports, and a catalog
 * with the TPC-H tables' types and SF 1 row counts. Nothing here reaches a database: a golden
 * plan shows what Junction would send, the SLT suite runs it.
 */
export const PG_SEMANTICS: SourceSemantics = {
  serverVersion: '15.10',
  defaultCollation: 'C.UTF-8',
  caseSensitive: true,
  accentSensitive: true,
  padSpace: false,
  timeZone: 'UTC',
  maxBindParams: 65535,
  maxIdentifierLength: 63,
};

export const MARIADB_SEMANTICS: SourceSemantics = {
  serverVersion: '10.11.6-MariaDB-0+deb12u1',
  defaultCollation: 'utf8mb4_general_ci',
  caseSensitive: false,
  accentSensitive: false,
  padSpace: true,
  timeZone: 'UTC',
  maxBindParams: 65535,
  maxIdentifierLength: 64,
};

/** An old MySQL without a NO PAD binary collation: string comparisons are not exact there. */
export const MYSQL57_SEMANTICS: SourceSemantics = { ...MARIADB_SEMANTICS, serverVersion: '5.7.44' };

export interface SourceFixture {
  readonly name: string;
  readonly engine: EngineName;
  readonly semantics: SourceSemantics;
  readonly schema: string;
  readonly tables: readonly TableName[];
}

export const LAYOUTS: Readonly<Record<string, readonly SourceFixture[]>> = {
  'pg-mariadb': [
    { name: 'dbA', engine: 'postgresql', semantics: PG_SEMANTICS, schema: 'public', tables: ['orders', 'lineitem'] },
    { name: 'dbB', engine: 'postgresql', semantics: PG_SEMANTICS, schema: 'public', tables: ['customer'] },
    {
      name: 'dbC',
      engine: 'mysql',
      semantics: MARIADB_SEMANTICS,
      schema: 'jdv_c',
      tables: ['part', 'supplier', 'partsupp'],
    },
    {
      name: 'dbD',
      engine: 'mysql',
      semantics: MARIADB_SEMANTICS,
      schema: 'jdv_d',
      tables: ['nation', 'region', 'customer'],
    },
  ],
  'pg-mysql57': [
    { name: 'dbA', engine: 'postgresql', semantics: PG_SEMANTICS, schema: 'public', tables: ['orders', 'lineitem'] },
    { name: 'dbB', engine: 'postgresql', semantics: PG_SEMANTICS, schema: 'public', tables: ['customer'] },
    {
      name: 'dbC',
      engine: 'mysql',
      semantics: MYSQL57_SEMANTICS,
      schema: 'jdv_c',
      tables: ['part', 'supplier', 'partsupp'],
    },
    {
      name: 'dbD',
      engine: 'mysql',
      semantics: MYSQL57_SEMANTICS,
      schema: 'jdv_d',
      tables: ['nation', 'region', 'customer'],
    },
  ],
};

export function tableInfo(name: TableName, schema: string, sf = 1): TableInfo {
  const def = TABLES[name];
  return {
    schema,
    name,
    kind: 'table',
    columns: def.columns.map((c) => ({ name: c.name, type: c.type, nativeType: c.type.kind, nullable: c.nullable })),
    primaryKey: def.primaryKey,
    foreignKeys: [],
    indexes: def.indexes.map((i) => ({ name: i.name, columns: i.columns, unique: false })),
    rowCount: name === 'lineitem' ? Math.round(6_000_000 * sf) : rowCount(name, sf),
  };
}

/** A connector that can only describe and render: enough to plan, never to run. */
function planOnlyConnector(f: SourceFixture): Connector {
  const unused = (): never => {
    throw new JunctionError('plan_only', 'internal', `Source ${f.name} is a plan-only fixture and cannot run queries.`);
  };
  return {
    name: f.name,
    engine: f.engine,
    capabilities: () => capabilitiesForEngine(f.engine, f.semantics),
    render: (q) => renderFor(f.engine, q, f.semantics),
    test: unused,
    probe: async () => f.semantics,
    introspect: unused,
    stream: unused,
    execute: unused,
    bulkLoad: unused,
    close: async () => undefined,
  };
}

export function registeredSources(layout: string): RegisteredSource[] {
  return LAYOUTS[layout].map((f) => {
    const catalog: CatalogSnapshot = {
      defaultSchema: f.schema,
      tables: f.tables.map((t) => tableInfo(t, f.schema)),
      introspectedAt: '2026-01-01T00:00:00Z',
    };
    return { name: f.name, connector: planOnlyConnector(f), catalog, semantics: f.semantics };
  });
}
