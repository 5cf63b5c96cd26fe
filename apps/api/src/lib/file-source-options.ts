import { Type } from '@sinclair/typebox';
import { JunctionError } from '@junction/connectors';

/**
 * The source options of file (duckdb) and document sources as the API accepts them
 * (SourceConfig.options.files and .documents in @junction/connectors), and the checks a schema
 * cannot make: which options go with which engine, and the shape of the secret headers.
 */

const TableName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[a-z0-9_]+$',
  description: "the table's name in Junction (lower-case letters, digits and _)",
});
const PathText = Type.String({ minLength: 1, maxLength: 4096 });
const SqlType = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "SQL type text: 'decimal(15,2)', 'date', 'text', …",
});

const FileTable = Type.Object(
  {
    name: TableName,
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'relative to the root (or absolute under a file root); * ** ? match several files',
    }),
    format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('parquet'), Type.Literal('json')])),
    csv: Type.Optional(
      Type.Object(
        {
          delimiter: Type.Optional(Type.String({ minLength: 1, maxLength: 4 })),
          quote: Type.Optional(Type.String({ maxLength: 1 })),
          escape: Type.Optional(Type.String({ maxLength: 1 })),
          header: Type.Optional(Type.Boolean()),
          nullValues: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 })),
        },
        { additionalProperties: false },
      ),
    ),
    json: Type.Optional(
      Type.Object(
        {
          format: Type.Optional(
            Type.Union([Type.Literal('auto'), Type.Literal('newline_delimited'), Type.Literal('array')]),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    columns: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 128 }), SqlType)),
  },
  { additionalProperties: false },
);

export const FilesOption = Type.Object(
  {
    root: Type.Optional(PathText),
    tables: Type.Optional(Type.Array(FileTable, { maxItems: 1000 })),
  },
  {
    additionalProperties: false,
    description: 'duckdb: the CSV, Parquet and JSON files exposed as tables (absent tables: every such file in root)',
  },
);

const DocumentColumn = Type.Object(
  { name: TableName, path: Type.String({ minLength: 1, maxLength: 1024 }), type: SqlType },
  { additionalProperties: false },
);

const DocumentTable = Type.Object(
  {
    name: TableName,
    format: Type.Union([Type.Literal('xml'), Type.Literal('json')]),
    from: Type.Union([
      Type.Object({ path: PathText }, { additionalProperties: false }),
      Type.Object({ url: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false }),
    ]),
    rowPath: Type.String({ minLength: 1, maxLength: 1024 }),
    namespaces: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.String({ minLength: 1, maxLength: 1024 })),
    ),
    columns: Type.Array(DocumentColumn, { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: false },
);

export const DocumentsOption = Type.Object(
  {
    root: Type.Optional(PathText),
    tables: Type.Array(DocumentTable, { minItems: 1, maxItems: 1000 }),
  },
  {
    additionalProperties: false,
    description: 'documents: tables of rows and columns read by paths from XML and JSON documents',
  },
);

/** What of a registration or an update these checks read. */
export interface SourcePayload {
  name: string;
  engine: string;
  file?: string | null;
  password?: string;
  options?: { files?: unknown; documents?: unknown } & Record<string, unknown>;
}

function invalid(source: string, message: string, field: string): JunctionError {
  return new JunctionError('source_options_invalid', 'user', `Source "${source}": ${message}`, {
    details: { source, field },
  });
}

/**
 * Refuses options of another engine (files on a PostgreSQL source, a database file on a
 * documents source) and secret headers that are not `{"<table>" | "*": {"Header": "value"}}`.
 * The header values are never quoted in a message.
 */
export function checkSourcePayload(p: SourcePayload, opts: { partial?: boolean } = {}): void {
  const o = p.options ?? {};
  if (p.engine !== 'duckdb' && o.files !== undefined)
    throw invalid(p.name, 'options.files is for file sources (engine duckdb).', 'body.options.files');
  if (p.engine !== 'documents' && o.documents !== undefined)
    throw invalid(p.name, 'options.documents is for document sources (engine documents).', 'body.options.documents');
  if (p.engine === 'duckdb' && !opts.partial && o.files === undefined && !p.file)
    throw invalid(
      p.name,
      'a file source needs options.files (a root folder and its tables) or a .duckdb file.',
      'body.options.files',
    );
  if (p.engine === 'documents') {
    if (p.file)
      throw invalid(p.name, 'a document source reads the paths and URLs of its tables, not a file.', 'body.file');
    if (!opts.partial && o.documents === undefined)
      throw invalid(p.name, 'a document source needs options.documents (its tables).', 'body.options.documents');
    if (p.password !== undefined && p.password !== '') checkHeaders(p.name, p.password);
  }
}

function checkHeaders(source: string, text: string): void {
  const bad = () =>
    invalid(source, 'the secret headers must be JSON: {"<table>" or "*": {"Header-Name": "value"}}.', 'body.password');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad();
  for (const headers of Object.values(parsed)) {
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) throw bad();
    for (const [k, v] of Object.entries(headers))
      if (typeof v !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(k) || /[\r\n]/.test(v)) throw bad();
  }
}
