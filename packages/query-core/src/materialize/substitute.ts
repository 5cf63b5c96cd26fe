import type { CatalogSnapshot, ColumnMeta, JType } from '@junction/connectors';

/** A view's rows stored in a table of a registered source (Engine.setMaterialization). */
export interface Materialization {
  readonly source: string;
  readonly table: string;
  /** when the rows were read (ms since the epoch) */
  readonly refreshedAt: number;
  /** queries use the table while it is at most this old; afterwards the view's own SQL again */
  readonly maxStalenessSeconds: number;
}

const SQL_TYPES: Partial<Record<JType['kind'], (t: JType) => string>> = {
  bool: () => 'boolean',
  int16: () => 'smallint',
  int32: () => 'integer',
  int64: () => 'bigint',
  decimal: (t) => (t.precision !== undefined ? `numeric(${t.precision},${t.scale ?? 0})` : 'numeric'),
  float32: () => 'real',
  float64: () => 'double precision',
  string: (t) => (t.length !== undefined ? `${t.fixed ? 'char' : 'varchar'}(${t.length})` : 'text'),
  date: () => 'date',
  time: () => 'time',
  timestamp: () => 'timestamp',
  timestamptz: () => 'timestamptz',
  binary: () => 'bytea',
  uuid: () => 'uuid',
};

const sameType = (a: JType, b: JType): boolean =>
  a.kind === b.kind && a.precision === b.precision && a.scale === b.scale && a.length === b.length && !!a.fixed === !!b.fixed;

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * The SQL that reads a view from its materialized table, with the view's own column names and
 * types (a column the store keeps in another type is cast back), or undefined when the table is
 * missing or does not match the view (it is then read from its definition).
 */
export function materializedSql(m: Materialization, columns: readonly ColumnMeta[], catalog: CatalogSnapshot | undefined): string | undefined {
  const table = catalog?.tables.find((t) => t.name === m.table);
  if (!table || table.columns.length !== columns.length) return undefined;
  const items: string[] = [];
  for (const [i, c] of columns.entries()) {
    const stored = table.columns[i];
    if (stored.name !== c.name) return undefined;
    if (sameType(stored.type, c.type)) {
      items.push(`m.${quote(c.name)} AS ${quote(c.name)}`);
      continue;
    }
    const target = SQL_TYPES[c.type.kind]?.(c.type);
    if (!target) return undefined;
    items.push(`CAST(m.${quote(c.name)} AS ${target}) AS ${quote(c.name)}`);
  }
  return `SELECT ${items.join(', ')} FROM ${quote(m.source)}.${quote(m.table)} m`;
}
