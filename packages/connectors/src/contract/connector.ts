import type { Capabilities } from './capabilities.js';
import type { CatalogSnapshot, SourceSemantics } from './catalog.js';
import type { RemoteQuery, RenderedQuery } from './remote-query.js';
import type { ColumnMeta, Batch, Row, Value } from './types.js';

/**
 * The engines of sources, and 'trino': an execution backend reading several sources' tables
 * through its catalogs. 'duckdb' reads CSV, Parquet and JSON files (and .duckdb files);
 * 'documents' reads tables defined by row and column paths over XML and JSON documents.
 */
export type EngineName = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite' | 'duckdb' | 'documents' | 'trino';
/** The engines a registered source can be (Trino is never a source of its own). */
export type SourceEngineName = Exclude<EngineName, 'trino'>;

export interface PoolOptions {
  readonly max?: number; // default 10
  readonly idleTimeoutMs?: number; // default 30_000
  readonly maxLifetimeMs?: number; // default 30 min
}

export interface TlsOptions {
  readonly enabled: boolean;
  readonly rejectUnauthorized?: boolean;
  readonly ca?: string;
}

export interface SourceConfig {
  readonly name: string;
  readonly engine: EngineName;
  readonly host?: string;
  readonly port?: number;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  /** sqlite: path of the database file (":memory:" for tests) */
  readonly file?: string;
  readonly options?: {
    /** the schema `source.table` resolves in, when not the engine's default */
    readonly schema?: string;
    readonly pool?: PoolOptions;
    readonly tls?: TlsOptions;
    readonly connectTimeoutMs?: number; // default 10_000
    readonly statementTimeoutMs?: number; // default none
    /** how long a stopped statement's cancel may take before its connection is closed; default 2000 */
    readonly cancelGraceMs?: number;
    /** duckdb, documents: the folders an admin allowed (JUNCTION_FILE_ROOTS); every file read resolves under one */
    readonly fileRoots?: readonly string[];
    /** documents: the hosts an admin allowed documents to be fetched from (JUNCTION_URL_HOSTS) */
    readonly urlHosts?: readonly string[];
    /** duckdb: the files exposed as tables */
    readonly files?: FilesOptions;
    /** documents: the document tables */
    readonly documents?: DocumentsOptions;
  };
}

export interface FileTableSpec {
  /** the table's name in Junction */
  readonly name: string;
  /** relative to the root (or absolute under a file root); `*`, `**` and `?` match several files */
  readonly path: string;
  /** default: from the extension */
  readonly format?: 'csv' | 'parquet' | 'json';
  readonly csv?: {
    readonly delimiter?: string;
    readonly quote?: string;
    readonly escape?: string;
    readonly header?: boolean;
    readonly nullValues?: readonly string[];
  };
  readonly json?: { readonly format?: 'auto' | 'newline_delimited' | 'array' };
  /** column -> SQL type text, overriding the inferred type */
  readonly columns?: Readonly<Record<string, string>>;
}

export interface FilesOptions {
  /** the folder relative paths resolve in */
  readonly root?: string;
  /** absent: one table per CSV, TSV, Parquet, JSON or NDJSON file directly in the root */
  readonly tables?: readonly FileTableSpec[];
}

export interface DocumentColumnSpec {
  readonly name: string;
  /** relative to the row: XPath ('@id', 'Balance/OnlineActualBal', '../../@id') or JSONPath ('$.balance.amount') */
  readonly path: string;
  /** SQL type text: 'decimal(15,2)', 'integer', 'text', 'date', 'timestamp', … */
  readonly type: string;
}

export interface DocumentTableSpec {
  readonly name: string;
  readonly format: 'xml' | 'json';
  readonly from: { readonly path: string } | { readonly url: string };
  /** one row per match: XPath ('/Customer/Accounts/Account', '//Account') or JSONPath ('$.accounts[*]') */
  readonly rowPath: string;
  /** XML: prefix -> namespace URI, for the prefixes the paths use */
  readonly namespaces?: Readonly<Record<string, string>>;
  readonly columns: readonly DocumentColumnSpec[];
}

export interface DocumentsOptions {
  readonly root?: string;
  readonly tables: readonly DocumentTableSpec[];
  readonly cacheBytes?: number; // estimated bytes of file tables' rows kept in memory, all tables together; default 256 MiB, 0: none
}

/** Result of testing a connection, phrased for the person who typed the settings. */
export type ConnectionDiagnosis =
  | { readonly ok: true; readonly serverVersion: string; readonly latencyMs: number }
  | {
      readonly ok: false;
      readonly code:
        | 'host_unreachable'
        | 'port_closed'
        | 'auth_failed'
        | 'database_missing'
        | 'tls_required'
        | 'timeout'
        | 'connection_reset'
        | 'file_missing'
        | 'unknown';
      readonly message: string;
      readonly hint: string;
    };

/**
 * Who a statement runs for, as far as a source needs to know: the API's source gate refuses a
 * stream that does not carry one, or whose holder may not read the source.
 */
export interface StatementAuthority {
  canReadSource(source: string): boolean;
}

export interface StreamOptions {
  readonly signal?: AbortSignal;
  /** the query's access policy (query-core passes its own); a gate in front of the connector checks it */
  readonly access?: StatementAuthority;
  /** rows per batch, default 1024 */
  readonly batchSize?: number;
  /**
   * A batch also ends once its rows weigh this many bytes (rowBytes, counting cells as the
   * values they decode to), whichever comes first: the batches a connector queues ahead of its
   * consumer are then bounded in memory, not only in rows. Default: no byte limit. Connectors
   * that cut batches elsewhere (in their engine or client) may ignore it.
   */
  readonly batchBytes?: number;
  readonly timeoutMs?: number;
}

/**
 * How a source answered lately. 'degraded' means it stopped answering Junction (a cancel or
 * timeout it did not acknowledge in time, so its connection was closed); the next statement
 * that completes on it clears that.
 */
/** How Connector.execute runs one native statement. */
export interface ExecuteOptions {
  /** Aborting cancels the statement on the server; execute then rejects with JunctionError kind 'cancelled'. */
  readonly signal?: AbortSignal;
  /**
   * Run the statement so it cannot change anything, with the engine's own switch (a read-only
   * transaction, SQLite's query_only on a read-only handle) plus checks where that switch
   * leaves gaps. A refused statement rejects with JunctionError code `native_not_read_only`.
   */
  readonly readOnly?: boolean;
  /** Stops the statement after this long (JunctionError kind 'timeout'); default: the source's statementTimeoutMs. */
  readonly timeoutMs?: number;
}

export type SourceHealth = { readonly status: 'ok' } | { readonly status: 'degraded'; readonly reason: string; readonly since: Date };

export interface BulkTable {
  readonly schema?: string;
  readonly name: string;
  readonly columns: readonly ColumnMeta[];
}

/**
 * One source. Driver types never leave the connector: everything that crosses this
 * interface is Junction's value model (contract/types.ts).
 */
export interface Connector {
  readonly name: string;
  readonly engine: EngineName;
  /** after probe(): derived from the measured semantics; before: conservative */
  capabilities(): Capabilities;
  render(query: RemoteQuery): RenderedQuery;
  test(): Promise<ConnectionDiagnosis>;
  probe(): Promise<SourceSemantics>;
  introspect(): Promise<CatalogSnapshot>;
  /**
   * Streams a rendered query in batches through a cursor; never buffers the whole result.
   * Aborting the signal cancels the statement on the server and returns the connection to
   * the pool; the iterator then throws JunctionError kind 'cancelled' (or 'timeout').
   * Breaking out of the loop early closes the cursor.
   */
  stream(query: RenderedQuery, options?: StreamOptions): AsyncIterable<Batch>;
  /**
   * One native SQL statement for administration, loading and tests (DDL, direct benchmark
   * queries). Never a script: SQLite refuses several statements (`multiple_statements`) and
   * always refuses ATTACH/DETACH (`attach_refused`); with `readOnly` every engine refuses a
   * statement that is not a single reading one (`native_not_read_only`).
   */
  execute(
    sql: string,
    params?: readonly Value[],
    options?: ExecuteOptions,
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }>;
  /** The engine's bulk path (COPY, multi-row INSERT/LOAD DATA, bulk load). Returns rows written. */
  bulkLoad(table: BulkTable, rows: AsyncIterable<readonly Row[]>): Promise<number>;
  close(): Promise<void>;
  /** Network connectors report health changes here (one listener; the API sets it). */
  onHealth?: (health: SourceHealth) => void;
}
