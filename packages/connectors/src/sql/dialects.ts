import type { Capabilities } from '../contract/capabilities.js';
import type { SourceSemantics } from '../contract/catalog.js';
import type { EngineName } from '../contract/connector.js';
import type { RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import { JunctionError } from '../contract/errors.js';
import { documentsCapabilities } from '../documents/capabilities.js';
import { renderDocumentQuery } from '../documents/query-text.js';
import { capabilitiesFor as duckdbCapabilities } from '../duckdb/capabilities.js';
import { DuckdbDialect } from '../duckdb/dialect.js';
import { capabilitiesFor as mysqlCapabilities } from '../mysql/capabilities.js';
import { MysqlDialect } from '../mysql/dialect.js';
import { capabilitiesFor as postgresCapabilities } from '../postgres/capabilities.js';
import { PostgresDialect } from '../postgres/dialect.js';
import { capabilitiesFor as sqliteCapabilities } from '../sqlite/capabilities.js';
import { SqliteDialect } from '../sqlite/dialect.js';
import { capabilitiesFor as sqlserverCapabilities } from '../sqlserver/capabilities.js';
import { SqlServerDialect } from '../sqlserver/dialect.js';
import { trinoCapabilities } from '../trino/capabilities.js';
import { TrinoDialect } from '../trino/dialect.js';
import type { Dialect } from './dialect.js';
import { renderQuery } from './generator.js';

/** The dialect for an engine, tuned by the probed semantics (collation, server flavour, version). */
export function dialectFor(engine: EngineName, semantics?: SourceSemantics): Dialect {
  switch (engine) {
    case 'postgresql':
      return new PostgresDialect(semantics);
    case 'mysql':
      return new MysqlDialect(semantics);
    case 'sqlserver':
      return new SqlServerDialect(semantics);
    case 'sqlite':
      return new SqliteDialect(semantics);
    case 'duckdb':
      return new DuckdbDialect(semantics);
    case 'documents':
      throw new JunctionError('pushdown_unsupported', 'internal', 'A documents source has no SQL dialect: its queries are rendered by renderFor.');
    case 'trino':
      return new TrinoDialect();
  }
}

export function capabilitiesForEngine(engine: EngineName, semantics?: SourceSemantics): Capabilities {
  switch (engine) {
    case 'postgresql':
      return postgresCapabilities(semantics);
    case 'mysql':
      return mysqlCapabilities(semantics);
    case 'sqlserver':
      return sqlserverCapabilities(semantics);
    case 'sqlite':
      return sqliteCapabilities(semantics);
    case 'duckdb':
      return duckdbCapabilities(semantics);
    case 'documents':
      return documentsCapabilities();
    case 'trino':
      return trinoCapabilities();
  }
}

/** Renders with the same dialect the capabilities were computed for: pass the same semantics. */
export function renderFor(engine: EngineName, query: RemoteQuery, semantics?: SourceSemantics): RenderedQuery {
  if (engine === 'documents') return renderDocumentQuery(query);
  return renderQuery(dialectFor(engine, semantics), query);
}
