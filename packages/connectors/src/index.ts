export * from './contract/types.js';
export * from './contract/errors.js';
export * from './contract/functions.js';
export * from './contract/remote-query.js';
export * from './contract/capabilities.js';
export * from './contract/catalog.js';
export * from './contract/connector.js';
export { createConnector } from './create-connector.js';
export { capabilitiesForEngine, renderFor } from './sql/dialects.js';
