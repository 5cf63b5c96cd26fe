import type {
  DocumentTableSpec,
  DocumentsOptions,
  FileEngine,
  FileTableSpec,
  FilesOptions,
  NewSource,
  SourceOptions,
} from './api.js';

/**
 * The form state of file (duckdb) and document sources, and what the API gets from it: every
 * field is text as typed, and only what was filled in is sent, so the connector's defaults
 * (format from the extension, a CSV's dialect sniffed) hold for the rest.
 */

export interface FileTableDraft {
  name: string;
  path: string;
  /** '' = from the extension */
  format: '' | 'csv' | 'parquet' | 'json';
  delimiter: string;
  quote: string;
  escape: string;
  /** '' = detected */
  header: '' | 'yes' | 'no';
  /** comma-separated */
  nullValues: string;
  /** '' = detected */
  jsonFormat: '' | 'newline_delimited' | 'array';
  /** one `column: type` per line */
  columns: string;
}

export interface FilesDraft {
  root: string;
  /** an optional .duckdb database file */
  file: string;
  tables: FileTableDraft[];
}

export interface DocColumnDraft {
  name: string;
  path: string;
  type: string;
}

export interface DocTableDraft {
  name: string;
  format: 'xml' | 'json';
  from: 'path' | 'url';
  location: string;
  rowPath: string;
  /** one `prefix = uri` per line */
  namespaces: string;
  columns: DocColumnDraft[];
}

export interface DocumentsDraft {
  root: string;
  tables: DocTableDraft[];
}

export const emptyFileTable = (): FileTableDraft => ({
  name: '',
  path: '',
  format: '',
  delimiter: '',
  quote: '',
  escape: '',
  header: '',
  nullValues: '',
  jsonFormat: '',
  columns: '',
});

export const emptyDocColumn = (): DocColumnDraft => ({ name: '', path: '', type: 'text' });

export const emptyDocTable = (): DocTableDraft => ({
  name: '',
  format: 'xml',
  from: 'path',
  location: '',
  rowPath: '',
  namespaces: '',
  columns: [emptyDocColumn()],
});

export const emptyFilesDraft = (): FilesDraft => ({ root: '', file: '', tables: [emptyFileTable()] });
export const emptyDocumentsDraft = (): DocumentsDraft => ({ root: '', tables: [emptyDocTable()] });

/** What a draft cannot be sent as, each phrased for the field it names. */
export class DraftError extends Error {}

const TABLE_NAME = /^[a-z0-9_]+$/;

/**
 * A table name from a path: its file name without extension, lower-cased, every other run of
 * characters as `_` ('Sales 2024/*.csv' → 'sales_2024'): what to offer while the name is empty.
 */
export function suggestTableName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '' && p !== '**');
  let base = parts.at(-1) ?? '';
  if (/[*?[]/.test(base)) base = parts.length > 1 ? (parts.at(-2) ?? '') : base.replace(/[*?[\]]/g, '');
  base = base.replace(/\.(csv|tsv|parquet|json|jsonl|ndjson|xml|gz|zst)$/gi, '').replace(/\.(csv|tsv|json)$/i, '');
  return base
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** `column: type` lines → overrides; blank lines skipped. */
export function parseTypeOverrides(text: string, table: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const at = line.indexOf(':');
    const col = at < 0 ? '' : line.slice(0, at).trim();
    const type = at < 0 ? '' : line.slice(at + 1).trim();
    if (col === '' || type === '')
      throw new DraftError(`Table "${table}": write each type override as "column: type" (got "${line}").`);
    out[col] = type;
  }
  return Object.keys(out).length ? out : undefined;
}

/** `prefix = uri` lines → namespaces. */
export function parseNamespaces(text: string, table: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const at = line.indexOf('=');
    const prefix = at < 0 ? '' : line.slice(0, at).trim();
    const uri = at < 0 ? '' : line.slice(at + 1).trim();
    if (prefix === '' || uri === '')
      throw new DraftError(`Table "${table}": write each namespace as "prefix = uri" (got "${line}").`);
    out[prefix] = uri;
  }
  return Object.keys(out).length ? out : undefined;
}

function tableName(given: string, path: string, i: number): string {
  const name = given.trim() || suggestTableName(path);
  if (!TABLE_NAME.test(name))
    throw new DraftError(
      name === ''
        ? `Table ${i + 1} needs a name (lower-case letters, digits and _).`
        : `Table name "${name}": use lower-case letters, digits and _ only.`,
    );
  return name;
}

function fileTable(t: FileTableDraft, i: number): FileTableSpec {
  const path = t.path.trim();
  if (path === '') throw new DraftError(`Table ${i + 1} needs a path or glob (e.g. sales/*.csv).`);
  const name = tableName(t.name, path, i);
  const csv: NonNullable<FileTableSpec['csv']> = {};
  if (t.delimiter !== '') csv.delimiter = t.delimiter === '\\t' ? '\t' : t.delimiter;
  if (t.quote !== '') csv.quote = t.quote;
  if (t.escape !== '') csv.escape = t.escape;
  if (t.header !== '') csv.header = t.header === 'yes';
  const nulls = t.nullValues.split(',').map((v) => v.trim());
  if (t.nullValues.trim() !== '') csv.nullValues = nulls;
  const columns = parseTypeOverrides(t.columns, name);
  const isCsv = t.format === 'csv' || (t.format === '' && /\.(csv|tsv)(\.gz)?$/i.test(path));
  const isJson = t.format === 'json' || (t.format === '' && /\.(json|jsonl|ndjson)$/i.test(path));
  return {
    name,
    path,
    ...(t.format !== '' ? { format: t.format } : {}),
    ...(isCsv && Object.keys(csv).length ? { csv } : {}),
    ...(isJson && t.jsonFormat !== '' ? { json: { format: t.jsonFormat } } : {}),
    ...(columns ? { columns } : {}),
  };
}

/** The files option of a file source; no table rows: every file in the root, as the connector lists them. */
export function filesOptions(d: FilesDraft): FilesOptions {
  const root = d.root.trim();
  const tables = d.tables.filter((t) => t.path.trim() !== '' || t.name.trim() !== '').map(fileTable);
  return { ...(root !== '' ? { root } : {}), ...(tables.length ? { tables } : {}) };
}

function docTable(t: DocTableDraft, i: number): DocumentTableSpec {
  const location = t.location.trim();
  if (location === '') throw new DraftError(`Table ${i + 1} needs a ${t.from === 'url' ? 'URL' : 'file path'}.`);
  const name = tableName(t.name, t.from === 'path' ? location : '', i);
  const rowPath = t.rowPath.trim();
  if (rowPath === '')
    throw new DraftError(
      `Table "${name}" needs a row path (${t.format === 'xml' ? 'e.g. /Customer/Accounts/Account' : 'e.g. $.items[*]'}).`,
    );
  const columns = t.columns
    .filter((c) => c.name.trim() !== '' || c.path.trim() !== '')
    .map((c) => {
      const col = c.name.trim();
      if (!TABLE_NAME.test(col))
        throw new DraftError(`Table "${name}": column name "${col}" must be lower-case letters, digits and _.`);
      if (c.path.trim() === '') throw new DraftError(`Table "${name}": column "${col}" needs a path.`);
      return { name: col, path: c.path.trim(), type: c.type.trim() || 'text' };
    });
  if (columns.length === 0) throw new DraftError(`Table "${name}" needs at least one column.`);
  const namespaces = t.format === 'xml' ? parseNamespaces(t.namespaces, name) : undefined;
  return {
    name,
    format: t.format,
    from: t.from === 'url' ? { url: location } : { path: location },
    rowPath,
    ...(namespaces ? { namespaces } : {}),
    columns,
  };
}

export function documentsOptions(d: DocumentsDraft): DocumentsOptions {
  const root = d.root.trim();
  const tables = d.tables.map(docTable);
  if (tables.length === 0) throw new DraftError('Add a table: a document source is the tables it defines.');
  return { ...(root !== '' ? { root } : {}), tables };
}

/**
 * The secret headers as the API stores them (the source's password, write-only): JSON text,
 * checked here so a typo is told before the request. Empty: none (or, when editing, unchanged).
 */
export function secretHeaders(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(t);
  } catch {
    throw new DraftError('Secret headers must be JSON, e.g. {"*": {"Authorization": "Bearer …"}}.');
  }
  const ok =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every(
      (h) =>
        typeof h === 'object' &&
        h !== null &&
        !Array.isArray(h) &&
        Object.values(h).every((v) => typeof v === 'string'),
    );
  if (!ok)
    throw new DraftError(
      'Secret headers map a table name (or "*" for all) to its headers: {"*": {"Authorization": "Bearer …"}}.',
    );
  return t;
}

export type FileDraft =
  { engine: 'duckdb'; files: FilesDraft } | { engine: 'documents'; documents: DocumentsDraft; headers: string };

/** The register body of a file or document source. Throws DraftError for what is not filled in right. */
export function fileSourcePayload(name: string, d: FileDraft): NewSource {
  if (d.engine === 'duckdb') {
    const files = filesOptions(d.files);
    const file = d.files.file.trim();
    if (!files.root && !files.tables?.length && file === '')
      throw new DraftError(
        'Give a root folder (its CSV, Parquet and JSON files become tables), a table or a .duckdb file.',
      );
    return { name, engine: 'duckdb', ...(file !== '' ? { file } : {}), options: { files } };
  }
  const password = secretHeaders(d.headers);
  return {
    name,
    engine: 'documents',
    ...(password ? { password } : {}),
    options: { documents: documentsOptions(d.documents) },
  };
}

/**
 * What the live preview asks for, or undefined while the draft cannot be sent yet (the preview
 * then waits rather than showing an error for a half-typed path). `key` changes exactly when the
 * request would: the panel calls the API only then.
 */
export function previewRequest(
  name: string,
  d: FileDraft,
  table: string | undefined,
): { source: NewSource; table: string | undefined; key: string } | undefined {
  let source: NewSource;
  try {
    source = fileSourcePayload(/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : 'preview', d);
  } catch {
    return undefined;
  }
  return { source, table, key: JSON.stringify([source, table ?? null]) };
}

/** The draft of a stored file source, for the edit form. */
export function filesDraftOf(o: FilesOptions | undefined, file: string | null): FilesDraft {
  const tables = (o?.tables ?? []).map((t): FileTableDraft => ({
    name: t.name,
    path: t.path,
    format: t.format ?? '',
    delimiter: t.csv?.delimiter === '\t' ? '\\t' : (t.csv?.delimiter ?? ''),
    quote: t.csv?.quote ?? '',
    escape: t.csv?.escape ?? '',
    header: t.csv?.header === undefined ? '' : t.csv.header ? 'yes' : 'no',
    nullValues: (t.csv?.nullValues ?? []).join(', '),
    jsonFormat: t.json?.format === undefined || t.json.format === 'auto' ? '' : t.json.format,
    columns: Object.entries(t.columns ?? {})
      .map(([c, ty]) => `${c}: ${ty}`)
      .join('\n'),
  }));
  return { root: o?.root ?? '', file: file ?? '', tables };
}

/** The draft of a stored document source; the headers stay empty (write-only: never shown). */
export function documentsDraftOf(o: DocumentsOptions | undefined): DocumentsDraft {
  return {
    root: o?.root ?? '',
    tables: (o?.tables ?? []).map((t): DocTableDraft => ({
      name: t.name,
      format: t.format,
      from: 'url' in t.from ? 'url' : 'path',
      location: 'url' in t.from ? t.from.url : t.from.path,
      rowPath: t.rowPath,
      namespaces: Object.entries(t.namespaces ?? {})
        .map(([p, u]) => `${p} = ${u}`)
        .join('\n'),
      columns: t.columns.map((c) => ({ ...c })),
    })),
  };
}

/**
 * Edit form → PATCH body of a file or document source: the options when they changed (the
 * others of the source kept), the headers only when typed (blank keeps the stored ones).
 */
export function fileSourcePatch(
  engine: FileEngine,
  old: { options?: SourceOptions; file: string | null },
  payload: NewSource,
): { options?: SourceOptions; file?: string; password?: string } {
  const patch: { options?: SourceOptions; file?: string; password?: string } = {};
  const before = old.options ?? {};
  const key = engine === 'duckdb' ? 'files' : 'documents';
  const next = (payload.options ?? {})[key];
  if (JSON.stringify(before[key] ?? null) !== JSON.stringify(next ?? null)) patch.options = { ...before, [key]: next };
  if (engine === 'duckdb' && payload.file !== undefined && payload.file !== (old.file ?? '')) patch.file = payload.file;
  if (payload.password !== undefined) patch.password = payload.password;
  return patch;
}

/** How long typing must pause before the preview asks the server. */
export const PREVIEW_DELAY_MS = 500;

/** A preview value as a cell shows it: NULL told apart from the text 'NULL' by its style. */
export function previewCell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The table the preview shows: the one being edited (by its name, or the name its path suggests). */
export function previewTable(d: FileDraft, active: number): string | undefined {
  if (d.engine === 'duckdb') {
    const t = d.files.tables[active];
    const name = t ? t.name.trim() || suggestTableName(t.path) : '';
    return name === '' ? undefined : name;
  }
  const name = d.documents.tables[active]?.name.trim() ?? '';
  return name === '' ? undefined : name;
}
