import type { CatalogSnapshot, TableInfo } from '@junction/connectors';
import type { TableRef } from '../plan/logical.js';

/** A scanned table's entry in its source's catalog snapshot. */
export function findTable(catalog: CatalogSnapshot | undefined, table: TableRef): TableInfo | undefined {
  return catalog?.tables.find((t) => t.name === table.table && t.schema === table.schema && (table.catalog === undefined || t.catalog === table.catalog));
}

/** Whether `columns` include all of the table's primary key or of one unique index: they then take a distinct value per row. */
export function coversUniqueKey(info: TableInfo | undefined, columns: ReadonlySet<string>): boolean {
  return uniqueKeys(info).some((k) => k.length > 0 && k.every((c) => columns.has(c)));
}

/**
 * Whether `columns` include a key no two rows share, NULL included: the primary key, or a
 * unique index on NOT NULL columns (a unique index lets several rows hold NULL). A primary
 * key column the catalog reports nullable does not count either: SQLite lets a primary key
 * other than an INTEGER one hold NULL in several rows.
 */
export function coversRowKey(info: TableInfo | undefined, columns: ReadonlySet<string>): boolean {
  const nullable = (c: string): boolean | undefined => info?.columns.find((x) => x.name === c)?.nullable;
  return uniqueKeys(info).some(
    (k) => k.length > 0 && k.every((c) => columns.has(c) && (k === info?.primaryKey ? nullable(c) !== true : nullable(c) === false)),
  );
}

function uniqueKeys(info: TableInfo | undefined): (readonly string[])[] {
  return [...(info?.primaryKey?.length ? [info.primaryKey] : []), ...(info?.indexes ?? []).filter((x) => x.unique).map((x) => x.columns)];
}
