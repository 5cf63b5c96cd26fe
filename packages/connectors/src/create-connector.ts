import type { Connector, SourceConfig } from './contract/connector.js';
import { JunctionError } from './contract/errors.js';
import { DocumentsConnector } from './documents/connector.js';
import { DuckdbConnector } from './duckdb/connector.js';
import { MysqlConnector } from './mysql/connector.js';
import { PostgresConnector } from './postgres/connector.js';
import { SqliteConnector } from './sqlite/connector.js';
import { SqlServerConnector } from './sqlserver/connector.js';
import { TrinoConnector } from './trino/connector.js';

/**
 * One connector per registered source; each owns its own pool. What differs per engine:
 * - postgresql: values read as server text and decoded exactly; cursor batches (next one
 *   prefetched); cancel by the protocol's CancelRequest; bulk load by COPY FROM STDIN.
 * - mysql (MySQL and MariaDB): text protocol with raw bytes, parameters inlined as exact
 *   literals, session time zone pinned to UTC, CHAR re-padded; cancel by KILL QUERY from a
 *   second connection; bulk load by LOAD DATA LOCAL from memory (INSERT when local_infile is off).
 * - sqlserver: tedious with its own pool; DECIMAL/temporal select items travel as server
 *   text; cancel by TDS attention; bulk load by the TDS bulk insert.
 * - sqlite: better-sqlite3 handles; cancellation and timeouts act between batches only.
 * - duckdb: CSV, Parquet and JSON files as views of an in-memory DuckDB, paths resolved and
 *   checked by Junction, then DuckDB sandboxed to exactly those files; cancel by interrupt.
 * - trino: an execution backend, not a source: Trino's HTTP protocol, values spliced as typed
 *   literals, cancel by DELETE on the query's nextUri; tables of other sources are read
 *   through the Trino catalogs `options.catalogs` maps them to.
 * Semantics measured by probe() tune capabilities() and render() from then on.
 */
export function createConnector(config: SourceConfig): Connector {
  switch (config.engine) {
    case 'postgresql':
      return new PostgresConnector(config);
    case 'mysql':
      return new MysqlConnector(config);
    case 'sqlite':
      return new SqliteConnector(config);
    case 'sqlserver':
      return new SqlServerConnector(config);
    case 'duckdb':
      return new DuckdbConnector(config);
    case 'documents':
      return new DocumentsConnector(config);
    case 'trino':
      return new TrinoConnector(config);
    default:
      throw new JunctionError(
        'engine_unsupported',
        'unsupported',
        `Engine "${String((config as { engine: unknown }).engine)}" is not supported (source "${config.name}").`,
      );
  }
}
