export { bind } from './bind/bind.js';
export type { BoundStatement } from './bind/bind.js';
export type { BindOptions } from './bind/context.js';
