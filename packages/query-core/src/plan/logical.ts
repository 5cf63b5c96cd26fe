import type { AggFn, JoinType, JType, ScalarFn, Value, WindowFn } from '@junction/connectors';

/**
 * The logical plan: plain, readonly, JSON-serialisable data. The binder produces it,
 * optimizer rules rewrite it, the physical planner turns it into operators, and EXPLAIN,
 * the web plan viewer and golden tests all print it.
 *
 * Columns are symbols (Trino-style): every field a node produces has a plan-unique `id`,
 * and expressions reference fields by id, so rules can move expressions between nodes
 * without re-indexing. The physical planner resolves ids to row positions.
 */
export interface Field {
  readonly id: number;
  readonly name: string;
  readonly type: JType;
  readonly nullable: boolean;
  /** qualifier for display and for resolving `alias.column` (table alias) */
  readonly relation?: string;
}

export type Expr =
  | { readonly kind: 'ref'; readonly id: number; readonly type: JType }
  | { readonly kind: 'literal'; readonly value: Value; readonly type: JType }
  /** $1 / ? parameter (0-based); bound at execution so prepared plans are reusable */
  | { readonly kind: 'param'; readonly index: number; readonly type: JType }
  | { readonly kind: 'call'; readonly fn: ScalarFn; readonly args: readonly Expr[]; readonly type: JType }
  | { readonly kind: 'in'; readonly expr: Expr; readonly list: readonly Expr[]; readonly negated: boolean; readonly type: JType }
  | {
      readonly kind: 'case';
      readonly operand?: Expr;
      readonly whens: readonly { readonly when: Expr; readonly then: Expr }[];
      readonly else?: Expr;
      readonly type: JType;
    }
  | { readonly kind: 'cast'; readonly expr: Expr; readonly type: JType }
  /** uncorrelated scalar subquery, evaluated once per execution (correlated ones are decorrelated by the binder) */
  | { readonly kind: 'subquery'; readonly plan: LogicalPlan; readonly type: JType }
  /**
   * Raises this user error when evaluated (a CASE arm guards it): the run-time checks of
   * decorrelated subqueries, e.g. a scalar subquery that matched two rows. Never sent to a source.
   */
  | { readonly kind: 'raise'; readonly code: string; readonly message: string; readonly type: JType };

export interface NamedExpr {
  /** the output field this expression defines */
  readonly field: Field;
  readonly expr: Expr;
}

export interface AggregateCall {
  readonly field: Field;
  readonly fn: AggFn;
  readonly args: readonly Expr[];
  readonly distinct: boolean;
  readonly filter?: Expr;
}

export interface SortKey {
  readonly expr: Expr;
  readonly desc: boolean;
  /** always explicit after binding (PostgreSQL default: NULLS LAST for ASC, FIRST for DESC) */
  readonly nullsFirst: boolean;
}

export interface WindowCall {
  readonly field: Field;
  readonly fn: WindowFn | AggFn;
  readonly args: readonly Expr[];
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly SortKey[];
  /** frame as SQL text when not the default */
  readonly frame?: string;
}

export interface TableRef {
  readonly source: string;
  readonly catalog?: string;
  readonly schema: string;
  readonly table: string;
}

/** Why the optimizer kept a predicate or operator in Junction instead of pushing it into a source. */
export interface NotPushed {
  readonly what: string;
  readonly reason: string;
}

export type LogicalPlan =
  | {
      readonly kind: 'Scan';
      readonly table: TableRef;
      /** one field per column read; `columns[i]` is the source's column name for fields[i] */
      readonly fields: readonly Field[];
      readonly columns: readonly string[];
      readonly alias: string;
      /** estimated rows from the source's statistics */
      readonly rowCount?: number;
    }
  | {
      /**
       * A subtree that runs entirely inside one source. `plan` holds only node kinds the
       * source's capabilities accepted (Scan, Filter, Project, Join, Aggregate, Sort, Limit,
       * Distinct); physical planning renders it to a RemoteQuery through the connector.
       */
      readonly kind: 'Remote';
      readonly source: string;
      readonly plan: LogicalPlan;
      readonly fields: readonly Field[];
    }
  | { readonly kind: 'Filter'; readonly notPushed?: readonly NotPushed[]; readonly input: LogicalPlan; readonly predicate: Expr }
  | {
      readonly kind: 'Project';
      readonly notPushed?: readonly NotPushed[];
      readonly input: LogicalPlan;
      readonly exprs: readonly NamedExpr[];
      /**
       * Set on the root of an inlined view's body (the view's `schema.name`): a security
       * barrier, as PostgreSQL's security_barrier views. A grant on a view covers what it
       * reads, so a predicate from above may be evaluated below this node, on rows the view's
       * own filter has yet to remove, only when it is leakproof (optimizer/leakproof.ts).
       */
      readonly securityBarrier?: string;
    }
  | {
      readonly kind: 'Join';
      readonly type: JoinType;
      readonly notPushed?: readonly NotPushed[];
      readonly left: LogicalPlan;
      readonly right: LogicalPlan;
      readonly condition?: Expr;
      /** chosen by the optimizer; absent = the executor decides (hash on equi-keys, else nested loop) */
      readonly strategy?: JoinStrategy;
    }
  | {
      readonly kind: 'Aggregate';
      readonly notPushed?: readonly NotPushed[];
      readonly input: LogicalPlan;
      readonly groupBy: readonly NamedExpr[];
      readonly aggregates: readonly AggregateCall[];
    }
  | { readonly kind: 'Sort'; readonly notPushed?: readonly NotPushed[]; readonly input: LogicalPlan; readonly keys: readonly SortKey[] }
  | { readonly kind: 'Limit'; readonly notPushed?: readonly NotPushed[]; readonly input: LogicalPlan; readonly limit?: number; readonly offset: number }
  | { readonly kind: 'Distinct'; readonly input: LogicalPlan }
  | {
      readonly kind: 'SetOp';
      readonly notPushed?: readonly NotPushed[];
      readonly op: 'union' | 'intersect' | 'except';
      readonly all: boolean;
      readonly left: LogicalPlan;
      readonly right: LogicalPlan;
      /** output fields (new ids; names and types from the left, types unified) */
      readonly fields: readonly Field[];
    }
  | {
      /**
       * Every left row once, plus `mark`: whether the subquery `right` holds a row for it, in
       * SQL's three-valued logic, so [NOT] IN / EXISTS / quantified comparisons can stand under
       * OR, NOT, CASE or in a SELECT list (a semi join could only filter). A right row counts
       * when `condition` (the subquery's correlation) is TRUE. Without `compare` (EXISTS) the
       * mark is TRUE when a row counts, else FALSE. With it (x IN (SELECT y): x = y) the mark
       * is TRUE when `compare` is TRUE for a counted row, else NULL when it is NULL for one,
       * else FALSE (no rows: FALSE).
       */
      readonly kind: 'MarkJoin';
      readonly notPushed?: readonly NotPushed[];
      readonly left: LogicalPlan;
      readonly right: LogicalPlan;
      readonly condition?: Expr;
      readonly compare?: Expr;
      readonly mark: Field;
    }
  | { readonly kind: 'Window'; readonly notPushed?: readonly NotPushed[]; readonly input: LogicalPlan; readonly windows: readonly WindowCall[] }
  | { readonly kind: 'Values'; readonly rows: readonly (readonly Expr[])[]; readonly fields: readonly Field[] };

export type JoinStrategy =
  | { readonly kind: 'hash'; readonly buildSide: 'left' | 'right' }
  | { readonly kind: 'nested-loop' }
  /**
   * Read `driver` first, send its distinct join keys to the other side's source as bound IN
   * lists (batched to the source's limits), skipping the source when there are no keys.
   */
  | { readonly kind: 'dependent'; readonly driver: 'left' | 'right'; readonly maxInList: number; readonly maxParallel: number };

export type PlanKind = LogicalPlan['kind'];
