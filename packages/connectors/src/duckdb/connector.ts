import {
  type DuckDBConnection,
  DuckDBInstance,
  StatementType,
  blobValue,
  type DuckDBResult,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { Capabilities } from '../contract/capabilities.js';
import type { CatalogSnapshot, ColumnInfo, ColumnStats, SourceSemantics, TableInfo } from '../contract/catalog.js';
import type {
  BulkTable,
  ConnectionDiagnosis,
  Connector,
  ExecuteOptions,
  SourceConfig,
  StreamOptions,
} from '../contract/connector.js';
import { JunctionError } from '../contract/errors.js';
import type { RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import type { Batch, ColumnMeta, JType, Row, Value } from '../contract/types.js';
import { sourceError } from '../runtime/errors.js';
import { attachRefusedError, multipleStatementsError, notReadOnlyError } from '../runtime/native-sql.js';
import { StatementControl } from '../runtime/statement-control.js';
import { renderFor } from '../sql/dialects.js';
import { capabilitiesFor } from './capabilities.js';
import { resolveFiles, type ResolvedFiles, type ResolvedTable } from './files.js';
import { decodeDuckValue, mapDuckType } from './type-map.js';
import { parquetStats } from './stats.js';
import { isNested, overrides, quoteIdent, quoteString, readerSql, viewSelect } from './views.js';

/** The attached .duckdb file's catalog name; its tables are shown through views in `main`. */
const ATTACHED = 'junction_attached';

/** Statements that only read; an EXPLAIN only when what it explains is a query (see explained()). */
const READING = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN]);
/** EXPLAIN [ANALYZE] followed by the statement itself (no option list, no comment before it) */
const EXPLAIN_PREFIX = /^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?/i;
/**
 * Statements refused even without readOnly: they reach files, extensions or settings outside
 * the in-memory database (COPY … TO writes a file even inside the sandbox's allowed paths), or
 * leave state on a pooled connection (a transaction would outlive its execute()).
 */
const REFUSED = new Set<StatementType>([
  StatementType.COPY,
  StatementType.EXPORT,
  StatementType.COPY_DATABASE,
  StatementType.LOAD,
  StatementType.EXTENSION,
  StatementType.UPDATE_EXTENSIONS,
  StatementType.SET,
  StatementType.VARIABLE_SET,
  StatementType.PRAGMA,
  StatementType.CALL,
  StatementType.PREPARE,
  StatementType.EXECUTE,
  StatementType.VACUUM,
  StatementType.TRANSACTION,
  StatementType.INVALID,
  StatementType.MULTI,
]);

/**
 * A driver error, phrased for the source; DuckDB's sandbox refusing a path becomes
 * `file_access_refused` (native SQL naming a file the source was not given).
 */
function failure(source: string, err: unknown, what: string): JunctionError {
  const message = err instanceof Error ? err.message : '';
  // raised by the dialect's zero check (DuckDB itself answers NULL): the same error Junction's own evaluation raises
  const e = sourceError(
    source,
    err,
    [],
    what,
    /^Invalid Input Error: division by zero/.test(message) ? 'division_by_zero' : undefined,
  );
  if (e.code === 'source_error' && /Permission Error/.test(message))
    return new JunctionError(
      'file_access_refused',
      'forbidden',
      `Source "${source}" may read only the files of its tables: ${message.split('\n')[0].replace(/^.*?(?=Permission Error)/, '')}`,
      { cause: e.cause, details: { source } },
    );
  return e;
}

function toParam(v: Value): DuckDBValue {
  if (v instanceof Uint8Array) return blobValue(v);
  return v;
}

function typeOf(t: DuckDBType): JType {
  return t.alias === 'JSON' ? { kind: 'json' } : mapDuckType(t.toString()).type;
}

/** One opened DuckDB: the views over the files, sandboxed; replaced when introspect() finds other files. */
interface Opened {
  readonly instance: DuckDBInstance;
  readonly files: ResolvedFiles;
  readonly tables: readonly TableInfo[];
  readonly warnings: readonly string[];
  readonly idle: DuckDBConnection[];
  active: number;
  retired: boolean;
}

/**
 * CSV, Parquet and JSON files (and a .duckdb file) read by an in-memory DuckDB. Junction
 * resolves every path itself (globs expanded, real paths checked under the file roots), makes
 * one view per table, then locks DuckDB down: it may open exactly the resolved files, may not
 * load extensions, and its configuration cannot be changed back. Native SQL runs on the same
 * locked instance. Statements are interrupted through the connection (DuckDB stops between
 * vectors), and each stream has a connection of its own.
 */
export class DuckdbConnector implements Connector {
  readonly name: string;
  readonly engine = 'duckdb' as const;
  readonly warnings: string[] = [];
  private semantics: SourceSemantics | undefined;
  private opened: Promise<Opened> | undefined;
  private closed = false;

  constructor(private readonly config: SourceConfig) {
    this.name = config.name;
  }

  capabilities(): Capabilities {
    return capabilitiesFor(this.semantics);
  }

  render(query: RemoteQuery): RenderedQuery {
    return renderFor(this.engine, query, this.semantics);
  }

  private checkOpen(): void {
    if (this.closed)
      throw new JunctionError('source_closed', 'external', `Source "${this.name}" is closed.`, {
        details: { source: this.name },
      });
  }

  private open(): Promise<Opened> {
    this.checkOpen();
    if (!this.opened) {
      const opening = this.build(resolveFiles(this.config));
      this.opened = opening;
      // a failed open is retried by the next call rather than remembered forever
      opening.catch(() => {
        if (this.opened === opening) this.opened = undefined;
      });
    }
    return this.opened;
  }

  private async build(files: ResolvedFiles): Promise<Opened> {
    const instance = await DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    const conn = await instance.connect();
    const warnings: string[] = [];
    try {
      // timestamptz values are built from their instant, but casts and date_part follow the zone
      await conn.run(`SET GLOBAL TimeZone = 'UTC'`);
      // DuckDB takes 80 % of the machine's memory per instance by default, i.e. per file source;
      // Junction's own operators do the heavy joins, a scan with filters needs little
      await conn.run(`SET memory_limit = '1GB'`);
      // no spilling: DuckDB's temp folder would be one more place its SQL may read and write,
      // shared by every source of the process (a query past the memory limit fails instead)
      await conn.run(`SET temp_directory = ''`);
      // locked before anything is read: creating a view binds its reader (the CSV sniffer reads
      // the file), and a view inside an attached .duckdb file may name any path at all
      await conn.run(`SET allowed_paths = [${files.allowedPaths.map(quoteString).join(', ')}]`);
      await conn.run(`SET allowed_directories = []`);
      await conn.run(`SET enable_external_access = false`);
      await conn.run(`SET lock_configuration = true`);
      const tables: TableInfo[] = [];
      for (const t of files.tables) tables.push(await this.createView(conn, t, warnings));
      if (files.database)
        tables.push(...(await this.attach(conn, files.database, new Set(files.tables.map((t) => t.name)), warnings)));
      return { instance, files, tables, warnings, idle: [conn], active: 0, retired: false };
    } catch (err) {
      conn.disconnectSync();
      instance.closeSync();
      throw sourceError(this.name, err, [], 'opening of its files');
    }
  }

  private async describe(
    conn: DuckDBConnection,
    select: string,
  ): Promise<{ name: string; type: string; nullable: boolean }[]> {
    const r = await conn.runAndReadAll(`DESCRIBE ${select}`);
    return r.getRows().map((row) => ({ name: String(row[0]), type: String(row[1]), nullable: row[2] !== 'NO' }));
  }

  private async createView(conn: DuckDBConnection, t: ResolvedTable, warnings: string[]): Promise<TableInfo> {
    const types = overrides(this.name, t);
    const headerless = t.format === 'csv' && t.spec.csv?.header === false;
    let cols: { name: string; type: string; nullable: boolean }[];
    try {
      // the file's own columns first (a header-less CSV's names come from the overrides)
      cols = await this.describe(
        conn,
        `SELECT * FROM ${readerSql(this.name, { ...t, spec: { ...t.spec, columns: headerless ? t.spec.columns : undefined } })}`,
      );
    } catch (err) {
      throw this.readError(t, err);
    }
    const missing = types.filter(([c]) => !cols.some((x) => x.name === c)).map(([c]) => c);
    if (missing.length > 0)
      throw new JunctionError(
        'file_column_missing',
        'user',
        `Source "${this.name}": table "${t.name}" has no column ${missing.map((c) => `"${c}"`).join(', ')} to give a type to (its columns: ${cols.map((c) => c.name).join(', ')}).`,
        { details: { source: this.name, table: t.name, columns: missing } },
      );
    const byName = new Map(types);
    const typed = cols.map((c) => ({ name: c.name, type: byName.get(c.name) ?? c.type }));
    let reader = readerSql(this.name, t);
    const casts = new Map<string, string>();
    if (t.format === 'json' && types.length > 0)
      reader = readerSql(
        this.name,
        t,
        typed.map((c) => [c.name, c.type] as const),
      );
    else if (t.format === 'parquet') for (const [c, type] of types) casts.set(c, type);
    const select = viewSelect(reader, typed, casts);
    try {
      await conn.run(`CREATE VIEW ${quoteIdent(t.name)} AS ${select}`);
      cols = await this.describe(conn, `SELECT * FROM ${quoteIdent(t.name)}`);
    } catch (err) {
      throw this.readError(t, err);
    }
    if (t.format !== 'parquet') return this.tableInfo('main', t.name, 'table', cols, warnings, undefined);
    // the footers hold row counts and column statistics: no data is read
    const stats = await parquetStats(
      conn,
      t.files,
      // nested columns are JSON text in the view: their footers describe their leaves, not them
      cols
        .filter((c) => !isNested(c.type))
        .map((c) => ({ name: c.name, duckType: c.type, kind: mapDuckType(c.type).type.kind })),
    );
    return this.tableInfo('main', t.name, 'table', cols, warnings, stats.rowCount, stats.columns);
  }

  private readError(t: ResolvedTable, err: unknown): JunctionError {
    const e = sourceError(this.name, err, [], `reading of table "${t.name}"`);
    return new JunctionError('file_read_failed', 'user', e.message, {
      cause: e.cause,
      details: { source: this.name, table: t.name },
    });
  }

  private tableInfo(
    schema: string,
    name: string,
    kind: 'table' | 'view',
    cols: readonly { name: string; type: string; nullable: boolean }[],
    warnings: string[],
    rowCount: number | undefined,
    stats?: ReadonlyMap<string, ColumnStats>,
  ): TableInfo {
    const columns: ColumnInfo[] = cols.map((c) => {
      const m = mapDuckType(c.type);
      if (m.warning) warnings.push(`${schema}.${name}.${c.name}: ${m.warning}`);
      const st = stats?.get(c.name);
      return { name: c.name, type: m.type, nativeType: c.type, nullable: c.nullable, ...(st ? { stats: st } : {}) };
    });
    return {
      schema,
      name,
      kind,
      columns,
      foreignKeys: [],
      indexes: [],
      ...(rowCount !== undefined ? { rowCount } : {}),
    };
  }

  /** Attaches the .duckdb file read-only and shows each of its tables and views as a view in `main` (or a schema of the same name). */
  private async attach(
    conn: DuckDBConnection,
    file: string,
    taken: Set<string>,
    warnings: string[],
  ): Promise<TableInfo[]> {
    await conn.run(`ATTACH ${quoteString(file)} AS ${ATTACHED} (READ_ONLY)`);
    const r = await conn.runAndReadAll(
      `SELECT schema_name, table_name, 'table' AS kind, estimated_size FROM duckdb_tables() WHERE database_name = '${ATTACHED}' AND NOT internal
       UNION ALL SELECT schema_name, view_name, 'view', NULL FROM duckdb_views() WHERE database_name = '${ATTACHED}' AND NOT internal
       ORDER BY 1, 2`,
    );
    const out: TableInfo[] = [];
    for (const [schema, name, kind, size] of r.getRows() as [string, string, 'table' | 'view', bigint | null][]) {
      if (schema === 'main' && taken.has(name))
        throw new JunctionError(
          'file_table_duplicate',
          'user',
          `Source "${this.name}": table "${name}" of the database file has the name of a file table; rename one of them.`,
          { details: { source: this.name, table: name } },
        );
      if (schema !== 'main') await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      const target = `${quoteIdent(schema)}.${quoteIdent(name)}`;
      await conn.run(`CREATE VIEW ${target} AS SELECT * FROM ${ATTACHED}.${target}`);
      const cols = await this.describe(conn, `SELECT * FROM ${target}`);
      out.push(this.tableInfo(schema, name, kind, cols, warnings, size === null ? undefined : Number(size)));
    }
    return out;
  }

  private async connection(o: Opened): Promise<DuckDBConnection> {
    o.active++;
    try {
      return o.idle.pop() ?? (await o.instance.connect());
    } catch (err) {
      o.active--;
      throw sourceError(this.name, err, [], 'connection');
    }
  }

  /** `reusable`: the connection finished its statement; otherwise it is closed (an abandoned stream). */
  private release(o: Opened, conn: DuckDBConnection, reusable: boolean): void {
    o.active--;
    if (reusable && !o.retired && !this.closed && o.idle.length < 4) o.idle.push(conn);
    else conn.disconnectSync();
    if ((o.retired || this.closed) && o.active === 0) DuckdbConnector.shut(o);
  }

  private static shut(o: Opened): void {
    for (const c of o.idle.splice(0)) c.disconnectSync();
    o.instance.closeSync();
  }

  async test(): Promise<ConnectionDiagnosis> {
    const started = performance.now();
    try {
      const o = await this.open();
      const conn = await this.connection(o);
      try {
        const v = (await conn.runAndReadAll('SELECT version()')).getRows()[0][0];
        return {
          ok: true,
          serverVersion: String(v).replace(/^v/, ''),
          latencyMs: Math.round(performance.now() - started),
        };
      } finally {
        this.release(o, conn, true);
      }
    } catch (err) {
      const e = err instanceof JunctionError ? err : sourceError(this.name, err, [], 'test');
      if (e.code === 'file_missing')
        return {
          ok: false,
          code: 'file_missing',
          message: e.message,
          hint: 'Check the path and the glob; they are resolved on the machine running Junction, under its allowed file folders.',
        };
      return {
        ok: false,
        code: 'unknown',
        message: e.message,
        hint:
          e.code === 'file_outside_roots' || e.code === 'file_roots_not_configured'
            ? 'Use files inside the folders listed in JUNCTION_FILE_ROOTS, or ask an administrator to allow the folder.'
            : 'Check the file format and its options (delimiter, header, JSON format, column types).',
      };
    }
  }

  async probe(): Promise<SourceSemantics> {
    const o = await this.open();
    const conn = await this.connection(o);
    try {
      const r = (
        await conn.runAndReadAll(`SELECT version(), 'a' = 'A', 'é' = 'e', 'a' = 'a ', 'B' < 'a'`)
      ).getRows()[0];
      this.semantics = {
        serverVersion: String(r[0]).replace(/^v/, ''),
        // VARCHAR compares by UTF-8 bytes: PostgreSQL's "C"
        defaultCollation: r[4] === true ? 'C' : 'unknown',
        caseSensitive: r[1] === false,
        accentSensitive: r[2] === false,
        padSpace: r[3] === true,
        timeZone: 'UTC',
        maxBindParams: 65535,
        maxIdentifierLength: 1024,
      };
      return this.semantics;
    } catch (err) {
      throw sourceError(this.name, err, [], 'probe');
    } finally {
      this.release(o, conn, true);
    }
  }

  /**
   * Globs are expanded again: when the files changed, a new DuckDB takes over (the sandbox of
   * the old one cannot be widened), and the old one closes once its running statements end.
   */
  async introspect(): Promise<CatalogSnapshot> {
    let o = await this.open();
    const files = resolveFiles(this.config);
    if (JSON.stringify(files) !== JSON.stringify(o.files)) {
      const next = this.build(files);
      await next;
      o.retired = true;
      if (o.active === 0) DuckdbConnector.shut(o);
      this.opened = next;
      o = await next;
    }
    this.warnings.push(...o.warnings);
    return {
      defaultSchema: 'main',
      tables: [...o.tables],
      introspectedAt: new Date().toISOString(),
      warnings: [...o.warnings],
    };
  }

  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const batchSize = options.batchSize ?? 1024;
    const control = new StatementControl(
      this.name,
      options.signal,
      options.timeoutMs ?? this.config.options?.statementTimeoutMs,
    );
    let o: Opened | undefined;
    let conn: DuckDBConnection | undefined;
    let finished = false;
    try {
      control.throwIfStopped();
      o = await this.open();
      conn = await this.connection(o);
      const c = conn;
      control.setCanceller(() => c.interrupt());
      let result: DuckDBResult;
      try {
        result = await conn.stream(query.sql, query.params.map(toParam));
      } catch (err) {
        throw control.stopped ? control.error() : failure(this.name, err, 'query');
      }
      const types = Array.from(
        { length: result.columnCount },
        (_, i) => query.columns[i]?.type ?? typeOf(result.columnType(i)),
      );
      let pending: Row[] = [];
      for (;;) {
        let chunk;
        try {
          chunk = await result.fetchChunk();
        } catch (err) {
          throw control.stopped ? control.error() : failure(this.name, err, 'query');
        }
        // an interrupted stream ends like a finished one: only the control knows the difference
        control.throwIfStopped();
        if (!chunk || chunk.rowCount === 0) break;
        for (const raw of chunk.getRows()) {
          const row: Row = new Array(raw.length);
          for (let i = 0; i < raw.length; i++) row[i] = decodeDuckValue(raw[i], types[i]);
          pending.push(row);
        }
        while (pending.length >= batchSize) {
          const rows = pending.length === batchSize ? pending : pending.slice(0, batchSize);
          pending = pending.length === batchSize ? [] : pending.slice(batchSize);
          yield { rows };
          control.throwIfStopped();
        }
      }
      if (pending.length) yield { rows: pending };
      finished = true;
    } finally {
      control.dispose();
      if (o && conn) this.release(o, conn, finished);
    }
  }

  /**
   * One statement, classified by DuckDB's own parser. With `readOnly` only a query (or EXPLAIN)
   * runs. Without it, statements on the in-memory database run (scratch tables, tests), but
   * nothing that reaches past it: COPY, EXPORT, ATTACH, INSTALL/LOAD and settings are refused
   * always, whatever the sandbox would say, because COPY … TO may write into an allowed path.
   */
  async execute(
    sql: string,
    params: readonly Value[] = [],
    options: ExecuteOptions = {},
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }> {
    const control = new StatementControl(
      this.name,
      options.signal,
      options.timeoutMs ?? this.config.options?.statementTimeoutMs,
    );
    let o: Opened | undefined;
    let conn: DuckDBConnection | undefined;
    let reusable = true;
    try {
      control.throwIfStopped();
      o = await this.open();
      conn = await this.connection(o);
      const c = conn;
      let stmt;
      try {
        const extracted = await conn.extractStatements(sql);
        if (extracted.count > 1) throw multipleStatementsError(this.name);
        if (extracted.count === 0) throw notReadOnlyError(this.name, 'is empty');
        stmt = await extracted.prepare(0);
      } catch (err) {
        throw failure(this.name, err, 'statement');
      }
      const type = stmt.statementType;
      // EXPLAIN ANALYZE runs the statement it explains: COPY … TO a table's own file, CREATE …
      if (type === StatementType.EXPLAIN) await this.explained(conn, sql);
      if (type === StatementType.ATTACH || type === StatementType.DETACH)
        throw attachRefusedError(this.name, type === StatementType.ATTACH ? 'ATTACH' : 'DETACH');
      if (options.readOnly && !READING.has(type)) throw notReadOnlyError(this.name, 'is not a query');
      if (REFUSED.has(type))
        throw new JunctionError(
          'native_statement_refused',
          'forbidden',
          `Source "${this.name}" runs no statement that reaches past its in-memory database (COPY, EXPORT, INSTALL/LOAD, settings, PRAGMA, CALL, transactions): native SQL on a file source may only query its tables or change its in-memory scratch tables.`,
          { details: { source: this.name } },
        );
      control.setCanceller(() => c.interrupt());
      let reader;
      try {
        if (params.length) stmt.bind(params.map(toParam));
        reader = await stmt.runAndReadAll();
      } catch (err) {
        reusable = !control.stopped;
        throw control.stopped ? control.error() : failure(this.name, err, 'statement');
      }
      control.throwIfStopped();
      if (!READING.has(type)) return { rowCount: reader.rowsChanged, rows: [], columns: [] };
      const types = reader.columnTypes().map(typeOf);
      const rows = reader.getRows().map((raw) => raw.map((v, i) => decodeDuckValue(v, types[i])));
      const columns = reader.columnNames().map((name, i) => ({ name, type: types[i], nullable: true }));
      return { rowCount: rows.length, rows, columns };
    } finally {
      control.dispose();
      if (o && conn) this.release(o, conn, reusable);
    }
  }

  /** Refuses an EXPLAIN unless the statement it explains is one query, classified by DuckDB's parser. */
  private async explained(conn: DuckDBConnection, sql: string): Promise<void> {
    const prefix = EXPLAIN_PREFIX.exec(sql);
    let inner: StatementType | undefined;
    if (prefix && !sql.slice(prefix[0].length).trimStart().startsWith('(')) {
      try {
        const extracted = await conn.extractStatements(sql.slice(prefix[0].length));
        if (extracted.count === 1) inner = (await extracted.prepare(0)).statementType;
      } catch {
        inner = undefined;
      }
    }
    if (inner !== StatementType.SELECT)
      throw new JunctionError(
        'native_statement_refused',
        'forbidden',
        `Source "${this.name}" explains only a query (EXPLAIN [ANALYZE] SELECT …): EXPLAIN ANALYZE runs the statement it explains.`,
        { details: { source: this.name } },
      );
  }

  async bulkLoad(table: BulkTable, _rows: AsyncIterable<readonly Row[]>): Promise<number> {
    throw new JunctionError(
      'bulk_load_unsupported',
      'unsupported',
      `Source "${this.name}" reads files and cannot be loaded into (table "${table.name}").`,
      { details: { source: this.name, table: table.name } },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opened;
    this.opened = undefined;
    const o = await opening?.catch(() => undefined);
    if (o && o.active === 0) DuckdbConnector.shut(o);
  }
}
