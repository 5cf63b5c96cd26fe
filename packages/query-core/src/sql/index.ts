/** SQL front end: text → parsed CST (ODBC escapes rewritten) → bound LogicalPlan. */
export { bind } from './bind/bind.js';
export type { BoundStatement } from './bind/bind.js';
export type { BindOptions } from './bind/context.js';
export { parseSql } from './parse.js';
export type { ParsedSql } from './parse.js';
export { rewriteOdbc } from './odbc.js';
