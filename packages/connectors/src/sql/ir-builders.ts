import type { AggFn, ScalarFn } from '../contract/functions.js';
import type { RemoteExpr, RemoteFrom } from '../contract/remote-query.js';
import { t, type JType, type Value } from '../contract/types.js';

/** Small builders for RemoteQuery IR in tests. */
export const col = (table: string, column: string, type: JType): RemoteExpr => ({ kind: 'column', table, column, type });
export const lit = (value: Value, type: JType): RemoteExpr => ({ kind: 'literal', value, type });
export const call = (fn: ScalarFn, args: RemoteExpr[], type: JType = t.bool): RemoteExpr => ({ kind: 'call', fn, args, type });
export const agg = (fn: AggFn, args: RemoteExpr[], type: JType, distinct = false): RemoteExpr => ({ kind: 'agg', fn, args, distinct, type });
export const table = (table: string, alias = table, schema?: string, catalog?: string): RemoteFrom => ({ kind: 'table', table, alias, schema, catalog });
