// Worker threads start here. tsx given as `execArgv: ['--import', 'tsx']` does not reach a
// worker's module loader on Node 20 (".ts" stays an unknown extension), so each worker
// registers tsx itself before loading the TypeScript task module.
import { register } from 'tsx/esm/api';

register();
const tasks = await import('./worker.ts');

export const probe = tasks.probe;
export const aggregate = tasks.aggregate;
/** WorkerPool.ready() runs it to start threads ahead of real work. */
export const ping = () => true;
