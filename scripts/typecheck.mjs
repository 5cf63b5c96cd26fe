#!/usr/bin/env node
// `npm run typecheck`: `tsc -p` for every workspace listed in the root package.json (so a new
// workspace cannot silently escape the typecheck) and for the browser tests in e2e/, which
// Playwright would otherwise only transpile. A workspace without tsconfig.json is an error.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

let failed = 0;
for (const ws of [...workspaces, 'e2e']) {
  if (!existsSync(join(root, ws, 'tsconfig.json'))) {
    console.error(`typecheck: ${ws} has no tsconfig.json (every workspace must typecheck)`);
    failed++;
    continue;
  }
  const started = Date.now();
  const r = spawnSync(process.execPath, [tsc, '-p', ws], { cwd: root, stdio: 'inherit' });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.error(`typecheck: ${ws} ${r.status === 0 ? 'ok' : 'FAILED'} (${secs}s)`);
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
