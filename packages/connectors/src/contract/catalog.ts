import type { JType } from './types.js';

export interface ColumnInfo {
  readonly name: string;
  readonly type: JType;
  /** the source's own spelling, e.g. "character varying(25)" */
  readonly nativeType: string;
  readonly nullable: boolean;
  readonly default?: string | null;
  /** what the source's own statistics say about the column; absent when it keeps none */
  readonly stats?: ColumnStats;
}

/**
 * A column's statistics as the source keeps them (pg_stats, MariaDB's engine-independent
 * mysql.column_stats or index cardinality, sqlite_stat1, SQL Server's histograms), read with
 * the catalog and refreshed with it. Estimates only, never correctness: values are the
 * source's text for them (char(n) padding trimmed), every field optional.
 */
export interface ColumnStats {
  /** distinct non-NULL values */
  readonly distinct?: number;
  /** fraction of rows where the column is NULL, 0…1 */
  readonly nullFraction?: number;
  /** smallest and largest values, as text (numbers and ISO dates compare once parsed) */
  readonly min?: string;
  readonly max?: string;
  /** the most common values and the fraction of rows holding each, most common first */
  readonly mostCommon?: readonly { readonly value: string; readonly frequency: number }[];
}

/** Most-common values kept per column: enough for the skewed few, small enough for a stored catalog. */
export const MAX_MOST_COMMON = 25;

export interface ForeignKeyInfo {
  readonly name: string;
  readonly columns: readonly string[];
  readonly refSchema: string;
  readonly refTable: string;
  readonly refColumns: readonly string[];
}

export interface IndexInfo {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
}

export interface TableInfo {
  /** SQL Server database; absent elsewhere */
  readonly catalog?: string;
  readonly schema: string;
  readonly name: string;
  readonly kind: 'table' | 'view';
  readonly columns: readonly ColumnInfo[];
  readonly primaryKey?: readonly string[];
  readonly foreignKeys: readonly ForeignKeyInfo[];
  readonly indexes: readonly IndexInfo[];
  /** estimate from the engine's statistics; absent when the engine has none */
  readonly rowCount?: number;
}

/**
 * Tables whose names start with this hold Junction's own bookkeeping inside a source (the TPC-H
 * loader's marker): no catalog lists them. A leading underscore keeps user tables out of it.
 */
export const BOOKKEEPING_PREFIX = '_junction_';

/** The snapshot without Junction's bookkeeping tables. */
export function withoutBookkeeping<T extends { readonly tables: readonly TableInfo[] }>(snap: T): T {
  return { ...snap, tables: snap.tables.filter((t) => !t.name.startsWith(BOOKKEEPING_PREFIX)) };
}

export interface CatalogSnapshot {
  /** the schema `source.table` resolves in (public, the MySQL database, dbo, main) */
  readonly defaultSchema: string;
  /** SQL Server: the connected database */
  readonly defaultCatalog?: string;
  readonly tables: readonly TableInfo[];
  readonly introspectedAt: string;
  /** things read with less fidelity, e.g. 'public.t.c: type "point" is read as text: …' */
  readonly warnings?: readonly string[];
}

/** Measured at registration and stored with the source. */
export interface SourceSemantics {
  readonly serverVersion: string;
  readonly defaultCollation: string;
  readonly caseSensitive: boolean;
  readonly accentSensitive: boolean;
  /** 'a' = 'a ' is true for varchar */
  readonly padSpace: boolean;
  readonly timeZone: string;
  readonly maxBindParams: number;
  readonly maxIdentifierLength: number;
}
