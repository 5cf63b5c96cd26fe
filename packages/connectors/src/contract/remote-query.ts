import type { AggFn, JoinType, ScalarFn, WindowFn } from './functions.js';
import type { ColumnMeta, JType, Value } from './types.js';

/**
 * The small IR query-core hands a connector: one SELECT that runs entirely inside one
 * source. query-core only builds it from parts the connector's capabilities declare,
 * so a dialect may throw `unsupported` for anything else (that is a planner bug).
 */
export type RemoteExpr =
  | { readonly kind: 'column'; readonly table: string; readonly column: string; readonly type: JType }
  /** always rendered as a bound parameter, never spliced into the SQL text */
  | { readonly kind: 'literal'; readonly value: Value; readonly type: JType }
  | { readonly kind: 'call'; readonly fn: ScalarFn; readonly args: readonly RemoteExpr[]; readonly type: JType }
  | { readonly kind: 'in'; readonly expr: RemoteExpr; readonly list: readonly RemoteExpr[]; readonly negated: boolean; readonly type: JType }
  /**
   * expr IN (values), a dependent join's key set: values of expr's type, none NULL, bound as
   * parameters. A dialect may bind the whole set as one array parameter (the kinds it lists in
   * `arrayKeySets`); otherwise it is an IN list, and query-core keeps each within `maxInList`.
   */
  | { readonly kind: 'keySet'; readonly expr: RemoteExpr; readonly values: readonly Value[]; readonly type: JType }
  | {
      readonly kind: 'case';
      readonly operand?: RemoteExpr;
      readonly whens: readonly { readonly when: RemoteExpr; readonly then: RemoteExpr }[];
      readonly else?: RemoteExpr;
      readonly type: JType;
    }
  | { readonly kind: 'cast'; readonly expr: RemoteExpr; readonly type: JType }
  /** only inside select/having/orderBy of a query with groupBy or aggregates */
  | { readonly kind: 'agg'; readonly fn: AggFn; readonly distinct: boolean; readonly args: readonly RemoteExpr[]; readonly type: JType }
  /**
   * [NOT] EXISTS (query), a semi or anti join: the query may read columns of the enclosing
   * SELECT's tables by their aliases (correlated). Needs `existsSubquery`.
   */
  | { readonly kind: 'exists'; readonly query: RemoteQuery; readonly negated: boolean; readonly type: JType }
  /**
   * expr IN (query), query selecting one column: SQL's three-valued IN (NULL when no value
   * equals expr but one is NULL). The query may be correlated as for 'exists'; needs
   * `existsSubquery`.
   */
  | { readonly kind: 'inSubquery'; readonly expr: RemoteExpr; readonly query: RemoteQuery; readonly type: JType }
  /**
   * fn(args) OVER (PARTITION BY … ORDER BY …) with the default frame, in a select list or
   * ORDER BY only. An aggregate fn needs `aggregates`, the others `windowFunctions`.
   */
  | {
      readonly kind: 'window';
      readonly fn: WindowFn | AggFn;
      readonly args: readonly RemoteExpr[];
      readonly partitionBy: readonly RemoteExpr[];
      readonly orderBy: readonly RemoteOrderKey[];
      readonly type: JType;
    };

export type RemoteFrom =
  | {
      readonly kind: 'table';
      /** the alias every column reference uses */
      readonly alias: string;
      /** SQL Server database (4-part names); absent elsewhere */
      readonly catalog?: string;
      readonly schema?: string;
      readonly table: string;
    }
  | {
      readonly kind: 'join';
      readonly type: Exclude<JoinType, 'semi' | 'anti'>;
      readonly left: RemoteFrom;
      readonly right: RemoteFrom;
      readonly on?: RemoteExpr;
    }
  | { readonly kind: 'subquery'; readonly alias: string; readonly query: RemoteQuery }
  /** `(left UNION|INTERSECT|EXCEPT [ALL] right) alias`: columns by position, named by the left's aliases */
  | {
      readonly kind: 'setop';
      readonly alias: string;
      readonly op: SetOpKind;
      readonly all: boolean;
      readonly left: RemoteQuery;
      readonly right: RemoteQuery;
    };

export type SetOpKind = 'union' | 'intersect' | 'except';

export interface RemoteOrderKey {
  readonly expr: RemoteExpr;
  readonly desc: boolean;
  /** always explicit: Junction's default is NULLS LAST for ASC and NULLS FIRST for DESC (PostgreSQL's) */
  readonly nullsFirst: boolean;
}

export interface RemoteQuery {
  readonly select: readonly { readonly expr: RemoteExpr; readonly alias: string }[];
  readonly distinct?: boolean;
  readonly from: RemoteFrom;
  readonly where?: RemoteExpr;
  readonly groupBy?: readonly RemoteExpr[];
  readonly having?: RemoteExpr;
  readonly orderBy?: readonly RemoteOrderKey[];
  readonly limit?: number;
  readonly offset?: number;
}

/** What a dialect makes of a RemoteQuery: SQL text, its bound values, and the columns it yields. */
export interface RenderedQuery {
  readonly sql: string;
  readonly params: readonly Value[];
  /** the expected output columns: connectors decode each value to exactly this type */
  readonly columns: readonly ColumnMeta[];
}
