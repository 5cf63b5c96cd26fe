import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

// The config is evaluated again in every worker: the first evaluation picks the port and
// passes it on through the environment the workers inherit.
if (!process.env.JUNCTION_E2E_PORT) process.env.JUNCTION_E2E_PORT = String(await freePort());
// the PostgreSQL listener's (JUNCTION_PG_PORT): another free port, never the HTTP one
while (!process.env.JUNCTION_E2E_PG_PORT || process.env.JUNCTION_E2E_PG_PORT === process.env.JUNCTION_E2E_PORT)
  process.env.JUNCTION_E2E_PG_PORT = String(await freePort());
process.env.JUNCTION_E2E_ADMIN_PASSWORD ??= 'e2e-Admin-Passw0rd';
// the one folder file and document sources may read (JUNCTION_FILE_ROOTS): the specs write their
// files there (file-sources.spec.ts); beside the data directory, never in it; start-studio.mjs
// makes it and removes it with the data directory
process.env.JUNCTION_E2E_FILE_ROOT ??= path.join(
  tmpdir(),
  `junction-e2e-files-${process.pid}-${Date.now().toString(36)}`,
);

const port = Number(process.env.JUNCTION_E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: '.',
  // One studio serves every spec, and later specs add users, sources and runs to it: the studio
  // spec, which asserts the fresh demo's exact catalog, goes first, the lab (which registers a
  // source and loads data) last.
  projects: [
    { name: 'studio', testMatch: 'studio.spec.ts' },
    { name: 'workspace', testMatch: 'workspace.spec.ts', dependencies: ['studio'] },
    { name: 'admin', testMatch: 'admin.spec.ts', dependencies: ['workspace'] },
    // the designer adds its own users, virtual schemas and views under unique names
    { name: 'designer', testMatch: 'designer.spec.ts', dependencies: ['admin'] },
    { name: 'cache', testMatch: 'cache.spec.ts', dependencies: ['designer'] },
    { name: 'lab', testMatch: 'benchmarks.spec.ts', dependencies: ['cache'] },
    // only reads the studio (and adds users under unique names): it runs on its own too,
    // `npx playwright test -c e2e/playwright.config.ts connect.spec.ts`
    { name: 'connect', testMatch: 'connect.spec.ts' },
    // the Run-on control: reads the studio, answers GET /engines itself; runs on its own too
    { name: 'run-on', testMatch: 'run-on.spec.ts' },
    // queries on Trino (skipped without TRINO_URL): registers sources, so after the others;
    // alone: `TRINO_URL=… npx playwright test -c e2e/playwright.config.ts trino.spec.ts --no-deps`
    { name: 'trino', testMatch: 'trino.spec.ts', dependencies: ['lab'] },
    // registers a file and a document source over files it writes into JUNCTION_E2E_FILE_ROOT;
    // alone: `npx playwright test -c e2e/playwright.config.ts file-sources.spec.ts --no-deps`
    { name: 'file-sources', testMatch: 'file-sources.spec.ts', dependencies: ['lab'] },
  ],
  outputDir: path.join(root, 'test-results'),
  // one studio with one demo federation; the machine has two cores
  workers: 1,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
  use: {
    baseURL,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      // Debian's Chromium: `npx playwright install` cannot download browsers here
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    // builds apps/web (the API serves its dist), then runs the API on a fresh data directory
    command: 'node e2e/start-studio.mjs',
    cwd: root,
    url: `${baseURL}/api/v1/health`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      JUNCTION_PG_PORT: process.env.JUNCTION_E2E_PG_PORT,
      JUNCTION_ADMIN_PASSWORD: process.env.JUNCTION_E2E_ADMIN_PASSWORD,
      LOG_LEVEL: 'warn',
      // the suite signs in, as one client address, more often than 30 times a minute on a fast machine
      JUNCTION_SIGNIN_RATE: '1000',
      JUNCTION_FILE_ROOTS: process.env.JUNCTION_E2E_FILE_ROOT,
      // the studio's Trino backend, when the run is given one (trino.spec.ts)
      ...(process.env.TRINO_URL ? { JUNCTION_TRINO_URL: process.env.TRINO_URL } : {}),
    },
  },
});
