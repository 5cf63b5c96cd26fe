export { Engine } from './engine.js';
export type * from './api.js';
export type { ExplainNode, StatementTiming } from './explain/explain-node.js';
/** where a nested block comment ends: what a text rewriter in front of the parser needs */
export { blockCommentEnd } from './sql/block-comment.js';
