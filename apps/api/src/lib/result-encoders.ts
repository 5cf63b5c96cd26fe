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

/**
 * RFC 4180: CRLF line ends, a header row of column names, fields quoted when they hold a comma,
 * quote, CR or LF. NULL is an empty field and an empty string is `""`, so the two stay apart.
 * Values are the API's exact text (int64 and decimals unrounded, binary base64).
 */
export function csvEncoder(): ResultEncoder {
  return {
    contentType: 'text/csv; charset=utf-8',
    head: (_queryId, columns) => columns.map((c) => csvField(c.name)).join(',') + '\r\n',
    rows(batch) {
      let chunk = '';
      for (const row of batch) chunk += row.map(csvValue).join(',') + '\r\n';
      return chunk;
    },
    tail: () => '',
    error: () => undefined,
  };
}

function csvValue(v: Value): string {
  if (v === null) return '';
  const j = jsonValue(v);
  const text = typeof j === 'string' ? j : String(j);
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

export function exportEncoder(format: ExportFormat): ResultEncoder {
  return format === 'csv' ? csvEncoder() : jsonExportEncoder();
}
