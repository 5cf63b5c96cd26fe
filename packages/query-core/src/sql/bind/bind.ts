import { t } from '@junction/connectors';
import type { RelationReference } from '../../api.js';
import type { ColumnMeta, JType } from '@junction/connectors';
import type * as C from 'sql-parser-cst';
import type { Catalog } from '../../catalog/catalog.js';
import type { LogicalPlan } from '../../plan/logical.js';
import { parseSql } from '../parse.js';
import type { ParsedSql } from '../parse.js';
import { BindContext } from './context.js';
import type { BindOptions } from './context.js';
import { QueryBinder } from './query.js';

export interface BoundStatement {
  readonly plan: LogicalPlan;
  readonly columns: ColumnMeta[];
  /** one entry per parameter ($1 → [0]); `unknown` when nothing in the query decides it */
  readonly paramTypes: JType[];
  readonly references: readonly RelationReference[];
  /** the sources the statement reads, inside its views too (see BindContext.sources) */
  readonly sources: ReadonlySet<string>;
  /** a view reads a source the caller cannot read itself (see BindContext.shield) */
  readonly readsThroughView: boolean;
}

/**
 * SQL text → typed LogicalPlan. Names are resolved against the catalog (and checked
 * against the access policy) here, so an unknown or forbidden table fails before any
 * source is contacted.
 */
export function bind(sql: string | ParsedSql, catalog: Catalog, options: BindOptions = {}): BoundStatement {
  const parsed = typeof sql === 'string' ? parseSql(sql) : sql;
  const ctx = new BindContext(parsed, catalog, options);
  const binder = new QueryBinder(ctx);
  const q = binder.bindQuery(parsed.statement as C.Node);
  const maxIndex = ctx.paramTypes.length;
  const paramTypes: JType[] = [];
  for (let i = 0; i < maxIndex; i++) paramTypes.push(ctx.paramTypes[i] ?? t.unknown);
  return {
    plan: q.plan,
    columns: q.columns.map((c) => ({ name: c.name, type: c.field.type, nullable: c.field.nullable })),
    paramTypes,
    references: ctx.references,
    sources: ctx.sources,
    readsThroughView: ctx.shield.throughView,
  };
}
