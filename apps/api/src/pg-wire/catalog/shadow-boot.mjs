// The shadow catalog's child process starts here (CatalogShadow forks this file with an IPC
// channel and no execArgv). It ties its life to the API server's before the seconds of loading
// tsx and PGlite, then registers tsx itself (the parent's `--import tsx`, or vitest's loader, does
// not reach another process) and loads its TypeScript, as query-core's worker pool does
// (exec/workers/boot.mjs).
import { Worker } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

if (!process.send || !process.connected) {
  console.error('the shadow catalog runs as a child process of the API server, forked with an IPC channel');
  process.exit(1);
}

// The channel closes when the server ends this process's use or dies, however it dies (even
// SIGKILL): this process ends with it.
process.on('disconnect', () => process.exit(0));

// A signal sent to the whole process group (a terminal's Ctrl-C, a service manager stopping
// the server) is the server's to act on: it closes the shadow as it stops, and its end ends
// this process anyway (the channel closes).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);

// A request can hold the main thread in PGlite's WebAssembly for as long as a statement runs
// (PGlite cannot interrupt itself), and 'disconnect' waits for it. A thread of its own watches
// the parent meanwhile: once this process has another parent, or its parent is gone, it ends.
const watchdog = new Worker(
  `const parent = require('node:worker_threads').workerData;
  setInterval(() => {
    let gone = process.ppid !== parent;
    if (!gone) try { process.kill(parent, 0); } catch (e) { gone = e.code === 'ESRCH'; }
    if (gone) process.kill(process.pid, 'SIGKILL');
  }, 1000);`,
  { eval: true, workerData: process.ppid },
);
watchdog.unref();

register();
await import('./shadow-worker.ts');
