import type { ColumnMeta, Value } from '@junction/connectors';
import { jsonColumns, jsonLines, jsonRow, jsonValue } from './values.js';

/** Downloadable formats of a whole result (POST /query/export, POST /saved-queries/:id/export). */
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * How a streamed result is written: a head, each batch of rows, a tail. `error` returns the last
 * line for a failure after the head, or undefined when the format has no way to say it (CSV):
 * then the response is cut off, so a download fails rather than ending as a shorter, valid file.
 */
export interface ResultEncoder {
  readonly contentType: string;
  head(queryId: string, columns: readonly ColumnMeta[]): string;
  rows(batch: readonly (readonly Value[])[]): string;
  tail(stats: unknown): string;
  error(body: unknown): string | undefined;
}

export function ndjsonEncoder(): ResultEncoder {
  return {
    contentType: 'application/x-ndjson; charset=utf-8',
    head: (queryId, columns) => JSON.stringify({ queryId, columns: jsonColumns(columns) }) + '\n',
    rows: jsonLines,
    tail: (stats) => JSON.stringify({ stats }) + '\n',
    error: (body) => JSON.stringify({ error: body }) + '\n',
  };
}

export interface ExportOptions {
  /** CSV: text cells that a spreadsheet would run as a formula get a leading `'` (default true) */
  formulaSafe?: boolean;
}

/**
 * RFC 4180: CRLF line ends, a header row of column names, fields quoted when they hold a comma,
 * quote, CR or LF. NULL is an empty field and an empty string is `""`, so the two stay apart.
 * Values are the API's exact text (int64 and decimals unrounded, binary base64).
 *
 * formulaSafe (default): text from the data (and column names, which a query chooses) starting
 * with = + - @ tab or CR is prefixed with `'`, so a spreadsheet shows it rather than running it
 * (CSV injection). Only text columns: numbers, decimals and dates are never formulas, and a -5
 * must stay a number.
 */
export function csvEncoder(opts: ExportOptions = {}): ResultEncoder {
  const safe = opts.formulaSafe ?? true;
  let textual: boolean[] = [];
  return {
    contentType: 'text/csv; charset=utf-8',
    head(_queryId, columns) {
      textual = columns.map((c) => safe && TEXT_KINDS.has(c.type.kind));
      return columns.map((c) => csvField(safe ? defuse(c.name) : c.name)).join(',') + '\r\n';
    },
    rows(batch) {
      let chunk = '';
      for (const row of batch) chunk += row.map((v, i) => csvValue(v, textual[i])).join(',') + '\r\n';
      return chunk;
    },
    tail: () => '',
    error: () => undefined,
  };
}

/** Kinds whose values are free text; decimal, date, uuid… are strings too but of a fixed form. */
const TEXT_KINDS: ReadonlySet<string> = new Set(['string', 'json', 'unknown']);

const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell as a spreadsheet will show it, never run it. */
export function defuse(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function csvValue(v: Value, textual = false): string {
  if (v === null) return '';
  const j = jsonValue(v);
  const text = typeof j === 'string' ? (textual ? defuse(j) : j) : String(j);
  return text === '' ? '""' : csvField(text);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A JSON array with one object per row, keyed by column name with the API's exact values. A
 * name seen before in the same result gets `_2`, `_3`… (`SELECT a.id, b.id` would lose a column).
 */
export function jsonExportEncoder(): ResultEncoder {
  let keys: string[] = [];
  let first = true;
  return {
    contentType: 'application/json; charset=utf-8',
    head(_queryId, columns) {
      keys = uniqueKeys(columns.map((c) => c.name)).map((k) => JSON.stringify(k));
      return '[';
    },
    rows(batch) {
      let chunk = '';
      for (const row of batch) {
        const values = jsonRow(row);
        chunk += `${first ? '\n' : ',\n'}{${keys.map((k, i) => `${k}:${JSON.stringify(values[i])}`).join(',')}}`;
        first = false;
      }
      return chunk;
    },
    tail: () => (first ? ']\n' : '\n]\n'),
    error: () => undefined,
  };
}

export function uniqueKeys(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let key = name;
    for (let n = 2; seen.has(key); n++) key = `${name}_${n}`;
    seen.add(key);
    return key;
  });
}

export function exportEncoder(format: ExportFormat, opts: ExportOptions = {}): ResultEncoder {
  return format === 'csv' ? csvEncoder(opts) : jsonExportEncoder();
}
