export { buildApp, type AppOptions } from './app.js';
export { openMetadata, type Db, type MetadataConfig } from './db/client.js';
export { ensureAdmin, registerDemo } from './bootstrap.js';
export { loadSecretKey } from './lib/secrets.js';
