import { JunctionError } from '../contract/errors.js';
import type { ResolvedTable } from './files.js';
import { overrideType } from './type-map.js';

export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

export function quoteString(s: string): string {
  return "'" + s.replace(/'/g, "''") + "'";
}

const list = (xs: readonly string[]): string => `[${xs.map(quoteString).join(', ')}]`;
const struct = (entries: readonly (readonly [string, string])[]): string =>
  `{${entries.map(([k, v]) => `${quoteString(k)}: ${quoteString(v)}`).join(', ')}}`;

function oneChar(source: string, table: string, what: string, s: string): string {
  // DuckDB takes multi-byte delimiters, but a quote or escape of more than one character is a mistake
  if (s.length === 0 || (what !== 'delimiter' && [...s].length !== 1))
    throw new JunctionError(
      'file_csv_option_invalid',
      'user',
      `Source "${source}": the CSV ${what} of table "${table}" must be one character, not "${s}".`,
      {
        details: { source, table },
      },
    );
  return s;
}

/** Column name → DuckDB type text, from the table's overrides, validated. */
export function overrides(source: string, table: ResolvedTable): [string, string][] {
  return Object.entries(table.spec.columns ?? {}).map(([c, type]) => [c, overrideType(source, table.name, c, type)]);
}

/**
 * The table function reading a table's files. CSV and JSON get the overridden types from the
 * reader itself, so a decimal is parsed from the file's text and never passes through a
 * double; `jsonColumns` is the full column list read_json needs for that (it has no partial form).
 */
export function readerSql(
  source: string,
  table: ResolvedTable,
  jsonColumns?: readonly (readonly [string, string])[],
): string {
  const files = list(table.files);
  const many = table.files.length > 1 ? ', union_by_name = true' : '';
  switch (table.format) {
    case 'parquet':
      return `read_parquet(${files}${many})`;
    case 'json': {
      const format = table.spec.json?.format ?? 'auto';
      const cols = jsonColumns ? `, columns = ${struct(jsonColumns)}` : '';
      return `read_json(${files}, format = ${quoteString(format)}${cols}${many})`;
    }
    case 'csv': {
      const o = table.spec.csv ?? {};
      // a quoted field is text even when it spells a NULL marker, as in PostgreSQL's COPY
      const parts = [files, `header = ${o.header === false ? 'false' : 'true'}`, 'allow_quoted_nulls = false'];
      if (o.delimiter !== undefined)
        parts.push(`delim = ${quoteString(oneChar(source, table.name, 'delimiter', o.delimiter))}`);
      if (o.quote !== undefined) parts.push(`quote = ${quoteString(oneChar(source, table.name, 'quote', o.quote))}`);
      if (o.escape !== undefined)
        parts.push(`escape = ${quoteString(oneChar(source, table.name, 'escape', o.escape))}`);
      if (o.nullValues !== undefined) parts.push(`nullstr = ${list(o.nullValues)}`);
      const types = overrides(source, table);
      // without a header the overrides name the columns, in order
      if (types.length > 0) parts.push(o.header === false ? `columns = ${struct(types)}` : `types = ${struct(types)}`);
      return `read_csv(${parts.join(', ')}${many})`;
    }
  }
}

/** DuckDB types read as JSON text: lists, arrays, structs, maps, unions. */
export function isNested(duckType: string): boolean {
  return /\]$/.test(duckType) || /^(STRUCT|MAP|UNION)\s*\(/i.test(duckType);
}

/**
 * The view's SELECT over the reader: nested columns become JSON text, Parquet's overridden
 * columns are cast (its values are typed already, nothing is parsed).
 */
export function viewSelect(
  reader: string,
  columns: readonly { name: string; type: string }[],
  casts: ReadonlyMap<string, string>,
): string {
  const replace: string[] = [];
  for (const c of columns) {
    const cast = casts.get(c.name);
    if (cast) replace.push(`CAST(${quoteIdent(c.name)} AS ${cast}) AS ${quoteIdent(c.name)}`);
    else if (isNested(c.type)) replace.push(`to_json(${quoteIdent(c.name)}) AS ${quoteIdent(c.name)}`);
  }
  return `SELECT *${replace.length ? ` REPLACE (${replace.join(', ')})` : ''} FROM ${reader}`;
}
