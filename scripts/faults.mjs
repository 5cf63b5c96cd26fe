#!/usr/bin/env node
// `npm run faults -- --minutes N`: the fault-injection tests (*.faults.test.ts) in their long
// form. Each file repeats its inject → observe → recover cycles until N minutes have passed
// (JUNCTION_FAULTS_SECONDS) and prints one line per cycle; `npm test` runs each cycle once.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { minutes: { type: 'string', default: '10' } },
  allowPositionals: true,
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  console.error('npm run faults -- --minutes N (N > 0) [test file filters]');
  process.exit(2);
}
const seconds = Math.round(minutes * 60);
// a cycle that starts just before the deadline still has to finish
const timeoutMs = String((seconds + 600) * 1000);
const filters = positionals.length ? positionals : ['.faults.test.ts'];
const r = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    ...filters,
    '--testTimeout',
    timeoutMs,
    '--hookTimeout',
    timeoutMs,
    // one file at a time: faults of one file would otherwise slow the others' sources
    '--fileParallelism=false',
  ],
  { stdio: 'inherit', env: { ...process.env, JUNCTION_FAULTS_SECONDS: String(seconds) } },
);
process.exit(r.status ?? 1);
