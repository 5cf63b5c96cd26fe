/**
 * Worker entry: one named task per operator with a worker path (WorkerPool.run picks it
 * by name). Only typed arrays and small partial results cross the thread boundary.
 */
export { probe } from '../hash-join/probe-task.js';
export { aggregate } from '../hash-aggregate/partial-task.js';
