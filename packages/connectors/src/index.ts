export * from './contract/types.js';
export * from './contract/errors.js';
export * from './contract/disk-full.js';
export * from './contract/functions.js';
export * from './contract/remote-query.js';
export * from './contract/capabilities.js';
export * from './contract/catalog.js';
export * from './contract/connector.js';
export { rowBytes } from './contract/row-bytes.js';
export { createConnector } from './create-connector.js';
export { capabilitiesForEngine, dialectFor, renderFor } from './sql/dialects.js';
/** PostgreSQL's type OIDs: what its wire protocol names a column's type by */
export { OID as PG_OID } from './postgres/type-map.js';
export { TrinoConnector, type TrinoCatalogRef, type TrinoConfig } from './trino/connector.js';
export { trinoConfigFromEnv } from './trino/config.js';
export { quoteString as quoteTrinoString } from './trino/literals.js';
export { previewDocumentTable } from './documents/connector.js';
