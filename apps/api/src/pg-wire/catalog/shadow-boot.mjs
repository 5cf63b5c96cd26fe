// The shadow catalog's worker thread starts here: tsx given to the parent as
// `--import tsx` does not reach a worker's module loader, so the worker registers tsx itself
// before loading its TypeScript (the same start as query-core's worker pool, exec/workers/boot.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./shadow-worker.ts');
