export { Engine } from './engine.js';
export type * from './api.js';
export type { ExplainNode, StatementTiming } from './explain/explain-node.js';
