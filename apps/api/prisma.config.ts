import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'prisma/config';

const here = path.dirname(fileURLToPath(import.meta.url));

// The CLI downloads a native schema engine before any command, which cannot work offline.
// `generate` never runs that engine, so any existing file satisfies the check; migrations are
// applied by our own runner (src/db/migrate.ts) from the committed SQL in prisma/.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(here, 'prisma.config.ts');

export default defineConfig({
  schema: process.env.JUNCTION_PRISMA_SCHEMA ?? path.join(here, '../../prisma/schema.prisma'),
});
