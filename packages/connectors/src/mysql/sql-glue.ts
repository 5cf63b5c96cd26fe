// Temporary bridge to the SQL generator and capabilities (owned by connectors-sql) until
// src/mysql/dialect.ts and capabilities.ts land; the connector imports only this file.
import { NO_CAPABILITIES, type Capabilities } from '../contract/capabilities.js';
import type { SourceSemantics } from '../contract/catalog.js';
import { JunctionError } from '../contract/errors.js';
import type { RemoteQuery, RenderedQuery } from '../contract/remote-query.js';

export function capabilitiesFor(semantics?: SourceSemantics): Capabilities {
  return { ...NO_CAPABILITIES, maxBindParams: semantics?.maxBindParams ?? 0 };
}

export function render(_query: RemoteQuery): RenderedQuery {
  throw new JunctionError('dialect_missing', 'unsupported', 'SQL generation for MySQL is not available yet.');
}
