import type { CatalogSnapshot, Connector, TableInfo } from '@junction/connectors';
import { TABLES } from '@junction/tpch';
import type { TableName } from '@junction/tpch';
import type { RegisteredSource, ViewDefinition } from '../api.js';
import { Catalog } from '../catalog/catalog.js';

/**
 * Binder test catalog: the JDV layout (layout.json) with TPC-H tables; dbC looks like a
 * SQL Server database (catalog "tpch", schema "dbo") so 4-part names resolve. Binding
 * never contacts a source, so the connectors are inert.
 */
function table(name: TableName, schema: string, catalog?: string): TableInfo {
  const def = TABLES[name];
  return {
    ...(catalog ? { catalog } : {}),
    schema,
    name,
    kind: 'table',
    columns: def.columns.map((c) => ({ name: c.name, type: c.type, nativeType: c.type.kind, nullable: c.nullable })),
    primaryKey: def.primaryKey,
    foreignKeys: [],
    indexes: [],
  };
}

function source(name: string, snapshot: CatalogSnapshot): RegisteredSource {
  return { name, connector: { name } as unknown as Connector, catalog: snapshot };
}

export function jdvSources(): RegisteredSource[] {
  const at = '2026-01-01T00:00:00Z';
  return [
    source('dbA', {
      defaultSchema: 'public',
      tables: [table('orders', 'public'), table('lineitem', 'public')],
      introspectedAt: at,
    }),
    source('dbB', { defaultSchema: 'public', tables: [table('customer', 'public')], introspectedAt: at }),
    source('dbC', {
      defaultSchema: 'dbo',
      defaultCatalog: 'tpch',
      tables: [table('part', 'dbo', 'tpch'), table('supplier', 'dbo', 'tpch'), table('partsupp', 'dbo', 'tpch')],
      introspectedAt: at,
    }),
    source('dbD', {
      defaultSchema: 'jdv_d',
      tables: [table('nation', 'jdv_d'), table('region', 'jdv_d'), table('customer', 'jdv_d')],
      introspectedAt: at,
    }),
  ];
}

export function jdvCatalog(views: ViewDefinition[] = []): Catalog {
  return new Catalog(jdvSources(), views);
}
