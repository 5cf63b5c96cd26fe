import type { Capabilities } from '../contract/capabilities.js';
import type { CatalogSnapshot, SourceSemantics, TableInfo } from '../contract/catalog.js';
import type {
  BulkTable,
  ConnectionDiagnosis,
  Connector,
  DocumentTableSpec,
  ExecuteOptions,
  SourceConfig,
  StreamOptions,
} from '../contract/connector.js';
import { isJunctionError, JunctionError } from '../contract/errors.js';
import type { RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import type { Batch, ColumnMeta, JType, Row, Value } from '../contract/types.js';
import { sourceError } from '../runtime/errors.js';
import { StatementControl } from '../runtime/statement-control.js';
import { documentsCapabilities } from './capabilities.js';
import { compileExpr, type BoundColumn, type Evaluator } from './filter.js';
import {
  compileJsonPath,
  evaluateColumnPath,
  jsonText,
  JsonNumber,
  type JsonStep,
  type JsonValue,
} from './json-path.js';
import { jsonRows } from './json-rows.js';
import { columnsOf, parseDocumentQuery, renderDocumentQuery } from './query-text.js';
import {
  candidateRows,
  DEFAULT_CACHE_BYTES,
  RowCache,
  stampFiles,
  stampKey,
  type RowCacheStats,
  type TableLoad,
} from './row-cache.js';
import { openDocument, resolveLocations, secretsOf, type DocumentLocation } from './sources.js';
import { fromText, invalidValue, parseColumnType, type ValueSite } from './values.js';
import { compileColumnPath, compileRowPath, type RowStep, type XmlColumnPath } from './xml-path.js';
import { xmlRows } from './xml-rows.js';

type FileLocation = Extract<DocumentLocation, { kind: 'file' }>;

/** The schema document tables are listed in. */
export const DOCUMENTS_SCHEMA = 'main';

const SEMANTICS: SourceSemantics = {
  serverVersion: 'documents 1',
  // Junction compares what it reads itself: code points, case- and accent-sensitive, no padding
  defaultCollation: 'C',
  caseSensitive: true,
  accentSensitive: true,
  padSpace: false,
  timeZone: 'UTC',
  maxBindParams: 65_535,
  maxIdentifierLength: 1024,
};

interface CompiledColumn {
  readonly name: string;
  readonly type: JType;
  readonly native: string;
  readonly path: string;
  readonly xml?: XmlColumnPath;
  readonly json?: readonly JsonStep[];
}

interface CompiledTable {
  readonly spec: DocumentTableSpec;
  readonly columns: readonly CompiledColumn[];
  readonly byName: ReadonlyMap<string, number>;
  readonly rowSteps?: readonly RowStep[];
  readonly jsonSteps?: readonly JsonStep[];
}

/** Names the table (and column) a path error belongs to: a source holds many paths. */
function inTable<T>(table: string, column: string | undefined, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!isJunctionError(err) || err.code !== 'document_path_invalid') throw err;
    const where = column === undefined ? `Document table "${table}"` : `Document table "${table}", column "${column}"`;
    throw new JunctionError(err.code, err.kind, `${where}: ${err.message}`, {
      details: { ...err.details, table, ...(column ? { column } : {}) },
    });
  }
}

function compileTable(spec: DocumentTableSpec): CompiledTable {
  const byName = new Map<string, number>();
  const ns = spec.namespaces ?? {};
  const columns = spec.columns.map((c, i): CompiledColumn => {
    if (byName.has(c.name))
      throw new JunctionError(
        'document_table_invalid',
        'user',
        `Document table "${spec.name}" declares column "${c.name}" twice.`,
        {
          details: { table: spec.name, column: c.name },
        },
      );
    byName.set(c.name, i);
    const type = parseColumnType(c.type, { table: spec.name, column: c.name });
    return inTable(spec.name, c.name, () =>
      spec.format === 'xml'
        ? { name: c.name, type, native: c.type, path: c.path, xml: compileColumnPath(c.path, ns) }
        : { name: c.name, type, native: c.type, path: c.path, json: compileJsonPath(c.path, 'column path') },
    );
  });
  if (spec.format !== 'xml' && spec.format !== 'json')
    throw new JunctionError(
      'document_table_invalid',
      'user',
      `Document table "${spec.name}" has format "${String(spec.format)}"; use "xml" or "json".`,
      {
        details: { table: spec.name },
      },
    );
  return inTable(spec.name, undefined, () =>
    spec.format === 'xml'
      ? { spec, columns, byName, rowSteps: compileRowPath(spec.rowPath, ns) }
      : { spec, columns, byName, jsonSteps: compileJsonPath(spec.rowPath, 'row path') },
  );
}

/** A JSON value → the column's value: text is read like XML text, containers only as JSON or text. */
function fromJson(v: JsonValue | undefined, type: JType, site: ValueSite): Value {
  if (v === undefined || v === null) return null;
  if (type.kind === 'json') return jsonText(v);
  if (typeof v === 'string') return fromText(v, type, site);
  if (v instanceof JsonNumber) {
    if (type.kind === 'bool') throw invalidValue(site, v.text, type);
    return fromText(v.text, type, site);
  }
  if (typeof v === 'boolean') {
    if (type.kind === 'bool') return v;
    if (type.kind === 'string') return fromText(v ? 'true' : 'false', type, site);
    throw invalidValue(site, String(v), type);
  }
  if (type.kind === 'string') return fromText(jsonText(v), type, site);
  throw invalidValue(site, jsonText(v), type, 'an object or array can be read as json or text only');
}

/** Turns the distinct-ness of a row into a key: numbers of one value compare equal whatever their spelling. */
function rowKey(row: Row): string {
  return row
    .map((v) =>
      v === null
        ? 'N'
        : typeof v === 'bigint'
          ? `i${v}`
          : typeof v === 'string'
            ? `s${v.length}:${v}`
            : typeof v === 'number'
              ? `n${Object.is(v, -0) ? 0 : v}`
              : `x${String(v)}`,
    )
    .join('|');
}

/**
 * XML and JSON documents (files under the allowed roots, or URLs on allowed hosts) read as
 * tables through row and column paths, like SQL's XMLTABLE and JSON_TABLE. There is no
 * engine behind it: stream() parses the query text render() wrote, reads each document once
 * with a streaming parser, evaluates the pushed WHERE on each row as it is read, and stops
 * reading (closing the file, aborting the download) once LIMIT rows are out.
 */
export class DocumentsConnector implements Connector {
  readonly name: string;
  readonly engine = 'documents' as const;
  private readonly compiled = new Map<string, CompiledTable>();
  private readonly running = new Set<AbortController>();
  private readonly rows: RowCache;

  constructor(private readonly config: SourceConfig) {
    this.name = config.name;
    this.rows = new RowCache(Math.max(0, config.options?.documents?.cacheBytes ?? DEFAULT_CACHE_BYTES));
  }

  /** What the row cache holds and how often it spared a parse. */
  rowCacheStats(): RowCacheStats {
    return this.rows.stats();
  }

  private get specs(): readonly DocumentTableSpec[] {
    return this.config.options?.documents?.tables ?? [];
  }

  private table(name: string): CompiledTable {
    const hit = this.compiled.get(name);
    if (hit) return hit;
    const spec = this.specs.find((t) => t.name === name);
    if (!spec)
      throw new JunctionError('table_not_found', 'user', `Source "${this.name}" has no document table "${name}".`, {
        details: { source: this.name, table: name },
      });
    const compiled = compileTable(spec);
    this.compiled.set(name, compiled);
    return compiled;
  }

  /**
   * The exact row count of a table whose rows are cached for its files as they are now;
   * undefined otherwise (a table never read costs no file access here).
   */
  private async cachedRowCount(spec: DocumentTableSpec): Promise<number | undefined> {
    if (!this.rows.has(spec.name)) return undefined;
    try {
      const locations = await resolveLocations(this.config, spec);
      if (!locations.every((l) => l.kind === 'file')) return undefined;
      const stamps = (locations as FileLocation[]).map((l) => ({ path: l.path, ...l.stamp }));
      return this.rows.rowCount(spec.name, stampKey(stamps));
    } catch {
      // the files are reported by test() and by the query that reads them
      return undefined;
    }
  }

  capabilities(): Capabilities {
    return documentsCapabilities();
  }

  render(query: RemoteQuery): RenderedQuery {
    return renderDocumentQuery(query);
  }

  async test(): Promise<ConnectionDiagnosis> {
    const started = performance.now();
    for (const spec of this.specs) {
      const fail = (
        code: Extract<ConnectionDiagnosis, { ok: false }>['code'],
        message: string,
        hint: string,
      ): ConnectionDiagnosis => ({
        ok: false,
        code,
        message,
        hint,
      });
      let locations: DocumentLocation[];
      try {
        this.table(spec.name);
        locations = await resolveLocations(this.config, spec);
      } catch (err) {
        if (!isJunctionError(err)) throw err;
        if (err.code === 'file_missing')
          return fail(
            'file_missing',
            err.message,
            'Check the path: it is resolved on the machine running Junction, relative to the documents root.',
          );
        return fail(
          'unknown',
          err.message,
          'Correct the table definition or ask the administrator to allow the folder or host.',
        );
      }
      if (locations.length === 0)
        return fail(
          'file_missing',
          `No document matches "${'path' in spec.from ? spec.from.path : ''}" for table "${spec.name}" (source "${this.name}").`,
          'Check the path and its wildcards; hidden files are not matched by *.',
        );
      for (const loc of locations) {
        if (loc.kind !== 'url') continue;
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), this.config.options?.connectTimeoutMs ?? 10_000);
        try {
          const doc = await openDocument(this.config, spec, loc, abort.signal);
          doc.close();
        } catch (err) {
          if (abort.signal.aborted)
            return fail(
              'timeout',
              `No answer from ${loc.url.host} (source "${this.name}") in time.`,
              'Check the host and the network path to it.',
            );
          if (isJunctionError(err) && err.code === 'document_fetch_failed') {
            const status = err.details?.status;
            if (status === 401 || status === 403)
              return fail(
                'auth_failed',
                err.message,
                'Check the secret headers (for instance the Authorization token) for this table.',
              );
            if (status === 404) return fail('file_missing', err.message, 'Check the URL.');
            return fail(
              'host_unreachable',
              err.message,
              'Check the URL, that the host is up and reachable from the machine running Junction.',
            );
          }
          return fail(
            'unknown',
            isJunctionError(err) ? err.message : sourceError(this.name, err, secretsOf(this.config)).message,
            'Check the URL.',
          );
        } finally {
          clearTimeout(timer);
        }
      }
    }
    return { ok: true, serverVersion: SEMANTICS.serverVersion, latencyMs: Math.round(performance.now() - started) };
  }

  async probe(): Promise<SourceSemantics> {
    return SEMANTICS;
  }

  async introspect(): Promise<CatalogSnapshot> {
    const tables: TableInfo[] = [];
    for (const spec of this.specs) {
      const t = this.table(spec.name);
      const rowCount = await this.cachedRowCount(spec);
      tables.push({
        schema: DOCUMENTS_SCHEMA,
        name: spec.name,
        kind: 'table',
        columns: t.columns.map((c) => ({ name: c.name, type: c.type, nativeType: c.native, nullable: true })),
        foreignKeys: [],
        indexes: [],
        ...(rowCount !== undefined ? { rowCount } : {}),
      });
    }
    return { defaultSchema: DOCUMENTS_SCHEMA, tables, introspectedAt: new Date().toISOString(), warnings: [] };
  }

  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const q = parseDocumentQuery(query.sql);
    const table = this.table(q.table);
    const batchSize = options.batchSize ?? 1024;
    // only the columns the query reads are extracted from the documents
    const names = new Set<string>();
    for (const s of q.select) columnsOf(s.expr, names);
    if (q.where) columnsOf(q.where, names);
    const needed = [...names].map((n) => {
      const i = table.byName.get(n);
      if (i === undefined)
        throw new JunctionError(
          'column_not_found',
          'user',
          `Document table "${q.table}" (source "${this.name}") has no column "${n}".`,
          {
            details: { source: this.name, table: q.table, column: n },
          },
        );
      return table.columns[i];
    });
    const bound = new Map<string, BoundColumn>(needed.map((c, index) => [c.name, { index, type: c.type }]));
    const column = (n: string): BoundColumn => bound.get(n)!;
    const items: Evaluator[] = q.select.map((s) => compileExpr(s.expr, column, query.params).eval);
    const where = q.where ? compileExpr(q.where, column, query.params).eval : undefined;
    const limit = q.limit;
    const seen = q.distinct ? new Set<string>() : undefined;

    const control = new StatementControl(
      this.name,
      options.signal,
      options.timeoutMs ?? this.config.options?.statementTimeoutMs,
    );
    const abort = new AbortController();
    control.setCanceller(() => abort.abort());
    this.running.add(abort);
    let out = 0;
    let batch: Row[] = [];
    /** false once LIMIT rows are out: reading stops */
    const emit = (values: Row, evals: readonly Evaluator[]): boolean => {
      const row: Row = evals.map((ev) => ev(values));
      if (seen) {
        const key = rowKey(row);
        if (seen.has(key)) return true;
        seen.add(key);
      }
      batch.push(row);
      out++;
      return limit === undefined || out < limit;
    };
    let load: TableLoad | undefined;
    try {
      control.throwIfStopped();
      if (limit === 0) return;
      const locations = await resolveLocations(this.config, table.spec);
      // URL documents always stream: whether one changed is only known by fetching it
      const files = locations.every((l) => l.kind === 'file') ? (locations as FileLocation[]) : undefined;
      const stamps = files && this.rows.enabled ? files.map((l) => ({ path: l.path, ...l.stamp })) : undefined;
      const key = stamps ? stampKey(stamps) : undefined;
      const cached = key !== undefined ? this.rows.get(table.spec.name, key) : undefined;
      if (cached) {
        // the cached rows hold every column, in the table's order
        const full = (n: string): BoundColumn => {
          const index = table.byName.get(n)!;
          return { index, type: table.columns[index].type };
        };
        const evals = q.select.map((s) => compileExpr(s.expr, full, query.params).eval);
        const test = q.where ? compileExpr(q.where, full, query.params).eval : undefined;
        const rows = cached.rows;
        const picked = q.where ? candidateRows(this.rows, cached, q.where, full, query.params) : undefined;
        const count = picked ? picked.length : rows.length;
        for (let i = 0; i < count; i++) {
          const values = rows[picked ? picked[i] : i];
          if (test && test(values) !== true) continue;
          if (!emit(values, evals)) break;
          if (batch.length >= batchSize) {
            yield { rows: batch };
            batch = [];
            control.throwIfStopped();
          } else if ((i & 0xffff) === 0xffff) {
            // a scan matching little would otherwise never let a cancel or a timeout in
            await new Promise((resolve) => setImmediate(resolve));
            control.throwIfStopped();
          }
        }
        control.throwIfStopped();
        if (batch.length > 0) yield { rows: batch };
        return;
      }
      if (key !== undefined)
        load = this.rows.beginLoad(
          table.spec.name,
          key,
          stamps!.reduce((n, s) => n + s.size, 0),
        );
      // a read keeping the rows extracts every column, the query's first
      const extra = load ? table.columns.filter((c) => !bound.has(c.name)) : [];
      const extracted = [...needed, ...extra];
      const position = extracted.map((c) => table.byName.get(c.name)!);
      let readBefore = 0;
      let complete = true;
      for (const loc of locations) {
        control.throwIfStopped();
        const sites: ValueSite[] = extracted.map((c) => ({
          source: this.name,
          table: table.spec.name,
          column: c.name,
          path: c.path,
          rowPath: table.spec.rowPath,
          document: loc.shown,
        }));
        const doc = await openDocument(this.config, table.spec, loc, abort.signal);
        this.rows.parsed();
        try {
          const raws: AsyncIterable<readonly unknown[]> =
            table.spec.format === 'xml'
              ? xmlRows(
                  doc.chunks,
                  table.rowSteps!,
                  extracted.map((c) => c.xml!),
                  loc.shown,
                  table.spec.name,
                )
              : jsonRows(doc.chunks, table.jsonSteps!, loc.shown, table.spec.name);
          const convert =
            table.spec.format === 'xml'
              ? (raw: unknown, i: number): Value => fromText((raw as (string | null)[])[i], extracted[i].type, sites[i])
              : (raw: unknown, i: number): Value =>
                  fromJson(evaluateColumnPath(extracted[i].json!, raw as JsonValue), extracted[i].type, sites[i]);
          const n = needed.length;
          reading: for await (const raw of raws) {
            for (const r of raw) {
              const values: Value[] = new Array<Value>(n);
              for (let i = 0; i < n; i++) values[i] = convert(r, i);
              if (load?.active) {
                const row: Value[] = new Array<Value>(table.columns.length);
                for (let i = 0; i < n; i++) row[position[i]] = values[i];
                try {
                  for (let i = n; i < extracted.length; i++) row[position[i]] = convert(r, i);
                  load.add(row);
                } catch {
                  // a bad value in a column this query does not read fails only the queries that read it
                  load.abandon();
                }
              }
              if (where && where(values) !== true) continue;
              if (!emit(values, items)) break reading;
              if (batch.length >= batchSize) {
                yield { rows: batch };
                batch = [];
              }
            }
            if (load?.active && doc.bytesRead) load.progress(readBefore + doc.bytesRead());
            control.throwIfStopped();
          }
        } finally {
          doc.close();
        }
        if (limit !== undefined && out >= limit) {
          // LIMIT stopped the read (maybe on the last row): the files were not all read
          complete = false;
          break;
        }
        readBefore += doc.bytesRead?.() ?? 0;
      }
      control.throwIfStopped();
      if (load?.active && complete) {
        // stamps taken again: a file rewritten while it was read must not be cached as read
        const after = await stampFiles(files!.map((l) => l.path));
        load.commit(after ? stampKey(after) : '');
      }
      if (batch.length > 0) yield { rows: batch };
    } catch (err) {
      if (control.stopped) throw control.error();
      if (isJunctionError(err)) throw err;
      throw sourceError(this.name, err, secretsOf(this.config), 'read');
    } finally {
      load?.abandon();
      this.running.delete(abort);
      control.dispose();
    }
  }

  async execute(
    _sql: string,
    _params?: readonly Value[],
    _options?: ExecuteOptions,
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }> {
    throw new JunctionError(
      'native_sql_unsupported',
      'unsupported',
      `Source "${this.name}" reads XML and JSON documents and has no SQL of its own: query its tables through Junction instead.`,
      { details: { source: this.name } },
    );
  }

  async bulkLoad(_table: BulkTable, _rows: AsyncIterable<readonly Row[]>): Promise<number> {
    throw new JunctionError(
      'bulk_load_unsupported',
      'unsupported',
      `Source "${this.name}" reads documents only: it cannot be loaded into.`,
      {
        details: { source: this.name },
      },
    );
  }

  async close(): Promise<void> {
    for (const a of this.running) a.abort();
    this.running.clear();
    this.rows.clear();
  }
}

/** The query that reads a whole document table, its first `limit` rows. */
export function selectAll(table: DocumentTableSpec, limit?: number): RemoteQuery {
  const columns = compileTable(table).columns;
  return {
    select: columns.map((c) => ({ expr: { kind: 'column', table: 't', column: c.name, type: c.type }, alias: c.name })),
    from: { kind: 'table', alias: 't', table: table.name },
    ...(limit !== undefined ? { limit } : {}),
  };
}

/**
 * The first rows of a document table, for checking paths while writing them: `table` is the
 * name of one of the source's tables, or a table definition not saved yet (it replaces the
 * saved one of the same name). Reads no further than `limit` rows.
 */
export async function previewDocumentTable(
  config: SourceConfig,
  table: string | DocumentTableSpec,
  limit: number,
  options: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {},
): Promise<{ columns: readonly ColumnMeta[]; rows: Row[] }> {
  const saved = config.options?.documents?.tables ?? [];
  const spec = typeof table === 'string' ? saved.find((t) => t.name === table) : table;
  if (!spec)
    throw new JunctionError(
      'table_not_found',
      'user',
      `Source "${config.name}" has no document table "${String(table)}".`,
      {
        details: { source: config.name, table },
      },
    );
  const connector = new DocumentsConnector({
    ...config,
    options: {
      ...config.options,
      documents: { ...config.options?.documents, tables: [...saved.filter((t) => t.name !== spec.name), spec] },
    },
  });
  const rendered = connector.render(selectAll(spec, Math.max(0, Math.floor(limit))));
  const rows: Row[] = [];
  for await (const b of connector.stream(rendered, { ...options, batchSize: Math.max(1, limit) })) rows.push(...b.rows);
  return { columns: rendered.columns, rows };
}
