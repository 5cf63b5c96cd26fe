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
 * documents source), secret headers that are not `{"<table>" | "*": {"Header": "value"}}`, and
 * secret headers for a table read over plain http off the loopback host. The header values are
 * never quoted in a message.
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
    if (p.password !== undefined && p.password !== '') {
      checkHeaders(p.name, p.password);
      // an update without options is checked against the stored ones (SourceRegistry.update)
      if (o.documents !== undefined) checkDocumentHeaders(p.name, o, p.password);
    }
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

/**
 * Plain http is accepted for secret headers only on the loopback host: that traffic never leaves
 * the machine, so no one on the network can read it, and local test and sidecar services rarely
 * speak TLS. Anywhere else the headers would cross the network in clear text.
 */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The keys of the secret headers that carry at least one header ("*" or a table's name). Text
 * that is not the expected JSON is taken as headers for every table: it is a secret all the same,
 * and refusing too much is safer than letting it follow a URL.
 */
function headerKeys(text: string | undefined): Set<string> {
  if (!text) return new Set();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new Set(['*']);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new Set(['*']);
  return new Set(
    Object.entries(parsed)
      .filter(([, h]) => typeof h !== 'object' || h === null || Object.keys(h).length > 0)
      .map(([k]) => k),
  );
}

interface UrlTable {
  name: string;
  /** scheme://host[:port], default ports dropped, as WHATWG URL normalises it */
  origin: string;
  protocol: string;
  hostname: string;
}

function urlTables(options: unknown): UrlTable[] {
  const o = (typeof options === 'string' ? JSON.parse(options || '{}') : (options ?? {})) as {
    documents?: { tables?: { name?: string; from?: { url?: string } }[] };
  };
  const out: UrlTable[] = [];
  for (const t of o.documents?.tables ?? []) {
    const url = t.from?.url;
    if (url === undefined || typeof t.name !== 'string') continue;
    try {
      const u = new URL(url);
      out.push({ name: t.name, origin: u.origin, protocol: u.protocol, hostname: u.hostname.toLowerCase() });
    } catch {
      // FileAccess refuses such a URL; the text itself stands in for its origin meanwhile
      out.push({ name: t.name, origin: url, protocol: '', hostname: '' });
    }
  }
  return out;
}

/** The header keys sent with a table: the connector merges "*" with the table's own entry. */
const keysFor = (table: string, keys: ReadonlySet<string>): string[] =>
  [...keys].filter((k) => k === '*' || k === table);

/**
 * Refuses secret headers for a table fetched over plain http from a host other than the
 * loopback (document_headers_insecure): they would be readable on the network.
 */
export function checkDocumentHeaders(source: string, options: unknown, headers: string | undefined): void {
  const keys = headerKeys(headers);
  if (keys.size === 0) return;
  for (const t of urlTables(options)) {
    if (t.protocol !== 'http:' || LOOPBACK_HOSTS.has(t.hostname) || keysFor(t.name, keys).length === 0) continue;
    throw new JunctionError(
      'document_headers_insecure',
      'user',
      `Source "${source}": table "${t.name}" is fetched over plain http from ${t.origin}, where its secret headers would cross the network unencrypted; use https, or drop the headers for this table. Plain http carries secret headers only to the loopback host (127.0.0.1, localhost, ::1).`,
      { details: { source, table: t.name, origin: t.origin } },
    );
  }
}

/**
 * Refuses an update that would send stored secret headers to an origin they were not sent to
 * before (document_headers_reentry). The headers are write-only, so an admin who moves a table's
 * URL cannot see what would follow it there: whoever listens at the new origin (another allowed
 * host or port, or plain http) would receive a secret the API never shows. Entering the headers
 * again (or an empty password, dropping them) says they are meant for the new origin.
 * Removing tables or origins is accepted: nothing is sent anywhere new.
 */
export function checkHeadersFollowUrls(
  source: string,
  before: unknown,
  after: unknown,
  storedHeaders: string | undefined,
): void {
  const keys = headerKeys(storedHeaders);
  if (keys.size === 0) return;
  const reached = new Map<string, Set<string>>();
  for (const t of urlTables(before))
    for (const k of keysFor(t.name, keys)) reached.set(k, (reached.get(k) ?? new Set()).add(t.origin));
  for (const t of urlTables(after)) {
    if (keysFor(t.name, keys).every((k) => reached.get(k)?.has(t.origin))) continue;
    throw new JunctionError(
      'document_headers_reentry',
      'user',
      `Source "${source}": the URL of table "${t.name}" now has another origin (${t.origin}) than its secret headers were sent to; enter the secret headers again in the password to send them there, or send an empty password to drop them.`,
      { details: { source, table: t.name, origin: t.origin } },
    );
  }
}
