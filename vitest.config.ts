import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Defaults match the servers scripts/services.sh provisions; an explicit env var wins.
const testEnv: Record<string, string> = {
  TEST_PG_URL: process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test',
  TEST_MYSQL_URL: process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test',
};
if (process.env.TEST_MSSQL_URL) testEnv.TEST_MSSQL_URL = process.env.TEST_MSSQL_URL;

// One project per workspace. Inline projects (rather than a 'packages/*' glob) so each one
// inherits the timeouts and env above; a workspace with its own vitest.config.ts uses that file.
function workspaceProjects(parent: string) {
  if (!existsSync(parent)) return [];
  return readdirSync(parent, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(parent, d.name, 'package.json')))
    .map((d) => {
      const dir = join(parent, d.name);
      const own = ['vitest.config.ts', 'vitest.config.mts'].map((f) => join(dir, f)).find((f) => existsSync(f));
      if (own) return own;
      return {
        extends: true as const,
        root: dir,
        test: {
          name: d.name,
          include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}', 'bench/**/*.test.ts', 'soak/**/*.test.ts'],
        },
      };
    });
}

export default defineConfig({
  test: {
    env: testEnv,
    // Integration tests talk to real servers on a shared 2-core machine: allow slow starts.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    projects: [
      ...workspaceProjects('packages'),
      ...workspaceProjects('apps'),
      // the repository's own scripts (checks the test run makes)
      { extends: true, test: { name: 'scripts', include: ['scripts/**/*.test.ts'] } },
    ],
  },
});
