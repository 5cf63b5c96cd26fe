import type { AggFn, JoinType, ScalarFn, WindowFn } from './functions.js';
import type { TypeKind } from './types.js';

/**
 * What a source can run with exactly Junction's (PostgreSQL's, C collation) meaning.
 * Everything defaults to "not supported"; query-core pushes nothing a connector has not
 * declared, and keeps its own operator above the remote scan otherwise.
 */
export interface Capabilities {
  /** true: as Junction evaluates it, for every argument list; otherwise only within the limits given */
  readonly functions: Readonly<Partial<Record<ScalarFn, true | FunctionSupport>>>;
  readonly aggregates: Readonly<Partial<Record<AggFn, true>>>;
  readonly distinctAggregates: boolean;
  readonly joins: Readonly<Partial<Record<Exclude<JoinType, 'semi' | 'anti'>, true>>>;
  readonly in: boolean;
  readonly case: boolean;
  /** casts the source renders exactly, as target type kinds */
  readonly casts: readonly TypeKind[];
  /**
   * casts the source renders exactly only from some kinds, as target kind → source kinds (an
   * integer widened to decimal, where parsing a string would differ)
   */
  readonly castsFrom: Readonly<Partial<Record<TypeKind, readonly TypeKind[]>>>;
  readonly groupBy: boolean;
  readonly having: boolean;
  readonly distinct: boolean;
  readonly orderBy: boolean;
  /** ORDER BY … NULLS FIRST/LAST rendered with Junction's meaning (natively or emulated) */
  readonly nullsOrdering: boolean;
  readonly limit: boolean;
  readonly offset: boolean;
  readonly subqueryInFrom: boolean;
  /** correlated [NOT] EXISTS (SELECT …) in WHERE/HAVING: semi and anti joins */
  readonly existsSubquery: boolean;
  /** set operations between two SELECTs, as a subquery in FROM; `union_all` is UNION ALL */
  readonly setOps: Readonly<Partial<Record<'union' | 'union_all' | 'intersect' | 'intersect_all' | 'except' | 'except_all', true>>>;
  /** window functions with the default frame; aggregates over windows follow `aggregates` */
  readonly windowFunctions: Readonly<Partial<Record<WindowFn, true>>>;
  /**
   * String semantics, decided from the probed collation. Exact means code-point order,
   * case- and accent-sensitive, trailing blanks significant for varchar/text and ignored for
   * char(n) (PostgreSQL's bpchar). Equality covers =, <>, IN, GROUP BY, DISTINCT and join keys;
   * ordering covers <, >, BETWEEN, ORDER BY, MIN and MAX.
   */
  readonly exactStringEquality: boolean;
  readonly exactStringOrdering: boolean;
  readonly caseSensitiveLike: boolean;
  readonly maxBindParams: number;
  /** values per IN list the dependent join may send (Teiid's default is 1000) */
  readonly maxInList: number;
  /**
   * Key kinds whose key set (a dependent join's keys) the dialect binds as one array parameter:
   * query-core sends such a set as one list of any length, counting one bind parameter.
   * PostgreSQL runs `k = ANY($1::integer[])` about twice as fast as the same keys as IN lists.
   */
  readonly arrayKeySets: readonly TypeKind[];
  readonly maxIdentifierLength: number;
}

export interface FunctionSupport {
  /** only when every argument's kind is listed */
  readonly argKinds?: readonly TypeKind[];
  /** only with at most this many arguments (e.g. trim(s) but not trim(s, chars)) */
  readonly maxArgs?: number;
  /** argument positions (0-based) that must be literals or parameters, e.g. a LIKE pattern */
  readonly literalArgs?: readonly number[];
}

export const NO_CAPABILITIES: Capabilities = {
  functions: {},
  aggregates: {},
  distinctAggregates: false,
  joins: {},
  in: false,
  case: false,
  casts: [],
  castsFrom: {},
  groupBy: false,
  having: false,
  distinct: false,
  orderBy: false,
  nullsOrdering: false,
  limit: false,
  offset: false,
  subqueryInFrom: false,
  existsSubquery: false,
  setOps: {},
  windowFunctions: {},
  exactStringEquality: false,
  exactStringOrdering: false,
  caseSensitiveLike: false,
  maxBindParams: 0,
  maxInList: 0,
  arrayKeySets: [],
  maxIdentifierLength: 63,
};
