import { formatType } from '@junction/connectors';
import type { RelationReference } from '../../api.js';
import type { JunctionError } from '@junction/connectors';
import type { ErrorKind, JType, SqlPosition } from '@junction/connectors';
import type { Node } from 'sql-parser-cst';
import type { AccessPolicy } from '../../api.js';
import type { Catalog } from '../../catalog/catalog.js';
import type { Expr } from '../../plan/logical.js';
import type { ParsedSql } from '../parse.js';

export interface BindOptions {
  readonly searchPath?: readonly string[];
  readonly access?: AccessPolicy;
  /** types of the parameters the caller will supply, when known (otherwise inferred) */
  readonly paramTypes?: readonly (JType | undefined)[];
}

/**
 * State shared by everything bound for one statement: the id generator (field ids are
 * unique per statement), parameter types inferred so far, and the SQL text for positions.
 * Views are bound with their own ParsedSql but the same ids and parameters.
 */
export class BindContext {
  private readonly shared: { nextId: number };
  readonly paramTypes: (JType | undefined)[];
  /** string literals whose type is still PostgreSQL's "unknown" (they adopt the other side's type) */
  readonly unknownLiterals: WeakSet<Expr>;
  /** where each bound expression came from, for errors raised after binding (GROUP BY checks) */
  readonly origins: WeakMap<Expr, Node>;
  /** views being expanded, innermost last: a view met again is a cycle */
  readonly viewStack: string[];
  /** base-table column field id → its table's primary-key field ids (functional dependency for GROUP BY) */
  readonly primaryKeys: Map<number, readonly number[]>;
  /** tables and views the statement itself names, as the catalog resolved them */
  readonly references: RelationReference[];
  /**
   * Every source a table of the statement lives in, its views' included: what binding under the
   * access policy authorized (a view's grant covers what it reads), and so the only sources the
   * statement's fragments may be sent to.
   */
  readonly sources: Set<string>;
  /**
   * Set when a view reads a source the caller's policy cannot read itself: the statement's rows
   * are the caller's only through the view, so an error quoting a value must not reach them.
   */
  readonly shield: { throughView: boolean };

  constructor(
    readonly sql: ParsedSql,
    readonly catalog: Catalog,
    readonly options: BindOptions,
    parent?: BindContext,
  ) {
    this.shared = parent ? parent.shared : { nextId: 1 };
    this.paramTypes = parent ? parent.paramTypes : [...(options.paramTypes ?? [])];
    this.unknownLiterals = parent ? parent.unknownLiterals : new WeakSet();
    this.origins = parent ? parent.origins : new WeakMap();
    this.viewStack = parent ? parent.viewStack : [];
    this.primaryKeys = parent ? parent.primaryKeys : new Map();
    this.references = parent ? parent.references : [];
    this.sources = parent ? parent.sources : new Set();
    this.shield = parent ? parent.shield : { throughView: false };
  }

  newId(): number {
    return this.shared.nextId++;
  }

  /** The same statement reading another text (a view body): shared ids, parameters and view stack. */
  withSql(sql: ParsedSql): BindContext {
    return new BindContext(sql, this.catalog, this.options, this);
  }

  position(node: Node | undefined): SqlPosition | undefined {
    return node ? this.sql.position(node) : undefined;
  }

  error(kind: ErrorKind, code: string, message: string, node?: Node, details?: Record<string, unknown>): JunctionError {
    return this.sql.error(kind, code, message, node, details);
  }

  unsupported(what: string, node?: Node): JunctionError {
    return this.error('unsupported', 'feature_not_supported', `${what} is not supported`, node);
  }

  typeMismatch(message: string, node?: Node): JunctionError {
    return this.error('user', 'datatype_mismatch', message, node);
  }
}

export function typeText(t: JType): string {
  return formatType(t);
}
