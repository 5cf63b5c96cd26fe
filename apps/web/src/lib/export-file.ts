import { request } from './http.js';
import { saveBlob } from './download.js';
import type { EngineChoice } from './engine-choice.js';

export type ExportFormat = 'csv' | 'json';

/** What to export: ad hoc SQL, or a saved query by id (viewers may only do the latter). */
export type ExportSource =
  | { readonly sql: string; readonly params?: readonly unknown[]; readonly engine?: EngineChoice }
  | { readonly savedId: string; readonly params?: readonly unknown[] };

/**
 * Runs the query again on the server, which streams the whole result (not only the rows the
 * grid holds) as the file; the browser saves it under `filename`.
 */
export async function downloadExport(what: ExportSource, format: ExportFormat, filename: string): Promise<number> {
  const params = what.params && what.params.length > 0 ? { params: what.params } : {};
  const res =
    'savedId' in what
      ? await request(`/saved-queries/${encodeURIComponent(what.savedId)}/export`, { body: { format, ...params } })
      : await request('/query/export', {
          body: { sql: what.sql, format, ...params, ...(what.engine ? { engine: what.engine } : {}) },
        });
  // a failure after the first byte cuts the stream: reading it then throws, and nothing is saved
  const blob = await res.blob();
  saveBlob(filename, blob);
  return blob.size;
}

/** A file name from a saved query's name or the tab title: letters, digits, dashes. */
export function exportFileName(title: string, format: ExportFormat): string {
  const base =
    title
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'result';
  return `${base}.${format}`;
}
