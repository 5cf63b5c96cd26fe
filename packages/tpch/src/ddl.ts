import { BOOKKEEPING_PREFIX, JunctionError, type EngineName, type JType, type SourceEngineName } from '@junction/connectors';
import knex, { type Knex } from 'knex';
import type { TableDef } from './schema.js';

/**
 * CREATE TABLE / INDEX text per engine, rendered by Knex's schema builder without a
 * connection. Column types are spelled as dbgen's reference DDL spells them (integer,
 * decimal(15,2), char(n), varchar(n), date) in every engine: Knex's own type helpers
 * would turn decimal into float on SQLite and varchar into nvarchar on SQL Server.
 */

/** The engines TPC-H tables are loaded into; file and document sources are read-only. */
type LoadableEngine = Extract<SourceEngineName, 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite'>;

const KNEX_CLIENT: Readonly<Record<LoadableEngine, string>> = {
  postgresql: 'pg',
  mysql: 'mysql2',
  sqlserver: 'mssql',
  sqlite: 'better-sqlite3',
};

const builders = new Map<EngineName, Knex>();

/** Trino only executes queries over sources, and file and document sources are read-only: TPC-H tables are loaded into database sources. */
function notASource(engine: EngineName): JunctionError {
  return new JunctionError(
    'engine_unsupported',
    'unsupported',
    engine === 'trino'
      ? 'TPC-H tables cannot be created through Trino: load them into the sources it reads.'
      : `TPC-H tables cannot be created in a ${engine} source: it reads files, load them into a database source.`,
  );
}

export function sqlBuilder(engine: EngineName): Knex {
  let k = builders.get(engine);
  if (!k) {
    if (engine === 'trino' || engine === 'duckdb' || engine === 'documents') throw notASource(engine);
    k = knex({ client: KNEX_CLIENT[engine], useNullAsDefault: true });
    builders.set(engine, k);
  }
  return k;
}

export function nativeType(type: JType): string {
  switch (type.kind) {
    case 'int32':
      return 'integer';
    case 'decimal':
      return `decimal(${type.precision},${type.scale})`;
    case 'string':
      return `${type.fixed ? 'char' : 'varchar'}(${type.length})`;
    case 'date':
      return 'date';
    default:
      throw new Error(`tpch: no DDL type for ${type.kind}`);
  }
}

export interface TableDdl {
  /** drop any previous copy of the table */
  readonly drop: readonly string[];
  /** before loading */
  readonly create: readonly string[];
  /** after loading: primary key (PostgreSQL) and secondary indexes */
  readonly afterLoad: readonly string[];
  /** refresh the optimizer statistics */
  readonly analyze: readonly string[];
}

/**
 * PostgreSQL gets its primary key after the load (building a btree once is much cheaper
 * than maintaining it during COPY). MySQL/InnoDB and SQL Server cluster rows by the
 * primary key, and SQLite cannot add one later, so there it is part of CREATE TABLE;
 * rows arrive in key order either way.
 */
export function renderTableDdl(engine: EngineName, def: TableDef): TableDdl {
  const k = sqlBuilder(engine);
  const pkLater = engine === 'postgresql';
  const create = k.schema
    .createTable(def.name, (tb) => {
      for (const c of def.columns) {
        const column = tb.specificType(c.name, nativeType(c.type));
        if (c.nullable) column.nullable();
        else column.notNullable();
      }
      if (!pkLater) tb.primary([...def.primaryKey], `${def.name}_pkey`);
    })
    .toSQL()
    .map((q) => q.sql);

  const afterLoad: string[] = [];
  if (pkLater) {
    afterLoad.push(
      ...k.schema
        .alterTable(def.name, (tb) => tb.primary([...def.primaryKey], `${def.name}_pkey`))
        .toSQL()
        .map((q) => q.sql),
    );
  }
  for (const index of def.indexes) {
    // CREATE INDEX is one plain statement everywhere; Knex's alterTable on SQLite would
    // first read the table's structure, which needs a connection.
    afterLoad.push(
      ...k.schema
        .table(def.name, (tb) => tb.index([...index.columns], index.name))
        .toSQL()
        .map((q) => q.sql)
        .filter((sql) => !sql.startsWith('PRAGMA')),
    );
  }

  return {
    drop: k.schema
      .dropTableIfExists(def.name)
      .toSQL()
      .map((q) => q.sql),
    create,
    afterLoad,
    analyze: [analyzeSql(engine, def.name)],
  };
}

export function analyzeSql(engine: EngineName, table: string): string {
  const k = sqlBuilder(engine);
  switch (engine) {
    case 'postgresql':
      return k.raw('analyze ??', [table]).toQuery();
    case 'mysql':
      return k.raw('analyze table ??', [table]).toQuery();
    case 'sqlserver':
      return k.raw('update statistics ??', [table]).toQuery();
    case 'sqlite':
      return k.raw('analyze ??', [table]).toQuery();
    case 'trino':
    case 'duckdb':
    case 'documents':
      throw notASource(engine);
  }
}

/**
 * MariaDB's engine-independent statistics (per-column distinct counts, NULL fractions, min and
 * max in mysql.column_stats), which plain ANALYZE TABLE leaves out and Junction's estimates
 * read. MySQL has no such statement and rejects it: the loader treats it as optional.
 */
export function engineStatisticsSql(engine: EngineName, table: string): string | undefined {
  return engine === 'mysql' ? sqlBuilder(engine).raw('analyze table ?? persistent for all', [table]).toQuery() : undefined;
}

/**
 * The marker that makes loading idempotent: one row per loaded target. Its name starts with the
 * connectors' BOOKKEEPING_PREFIX, so no catalog lists it.
 */
export const META_TABLE = `${BOOKKEEPING_PREFIX}tpch_load`;
/** The marker's name before it was hidden from catalogs; dropped when the marker is recreated. */
const LEGACY_META_TABLE = 'junction_tpch_meta';

export interface LoadMarker {
  readonly target: string;
  readonly sf: string;
  readonly seed: number;
  readonly tables: string;
  /** GENERATOR_VERSION of the rows: a changed generator reloads */
  readonly generator: string;
}

export function renderMetaCreate(engine: EngineName): string[] {
  return sqlBuilder(engine)
    .schema.createTable(META_TABLE, (tb) => {
      tb.specificType('target', 'varchar(64)').notNullable();
      tb.specificType('sf', 'varchar(16)').notNullable();
      tb.specificType('seed', 'integer').notNullable();
      tb.specificType('tables', 'varchar(255)').notNullable();
      tb.specificType('generator', 'varchar(16)').notNullable();
      tb.specificType('loaded_at', 'varchar(32)').notNullable();
      tb.primary(['target'], `${META_TABLE}_pkey`);
    })
    .toSQL()
    .map((q) => q.sql);
}

/** Adopts a marker an earlier version wrote under the old name: its data stays loaded. */
export function renderLegacyMetaRename(engine: EngineName): string[] {
  // knex's types declare renameTable a Promise; it is the SchemaBuilder, as for every other call
  const builder = sqlBuilder(engine).schema.renameTable(LEGACY_META_TABLE, META_TABLE) as unknown as Knex.SchemaBuilder;
  return builder.toSQL().map((q) => q.sql);
}

export function renderMetaDrop(engine: EngineName): string[] {
  return sqlBuilder(engine)
    .schema.dropTableIfExists(META_TABLE)
    .dropTableIfExists(LEGACY_META_TABLE)
    .toSQL()
    .map((q) => q.sql);
}

export function renderMarkerDelete(engine: EngineName, target: string): string {
  return sqlBuilder(engine)(META_TABLE).where({ target }).del().toQuery();
}

export function renderMarkerInsert(engine: EngineName, marker: LoadMarker, loadedAt: string): string {
  return sqlBuilder(engine)(META_TABLE)
    .insert({ ...marker, loaded_at: loadedAt })
    .toQuery();
}

export function renderMarkerSelect(engine: EngineName): string {
  return sqlBuilder(engine)(META_TABLE).select('target', 'sf', 'seed', 'tables', 'generator').toQuery();
}
