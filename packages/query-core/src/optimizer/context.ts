import { NO_CAPABILITIES, type Capabilities, type CatalogSnapshot, type TableInfo } from '@junction/connectors';
import type { RegisteredSource } from '../api.js';
import type { LogicalPlan, TableRef } from '../plan/logical.js';
import { findTable } from '../catalog/tables.js';

export interface SourceInfo {
  readonly capabilities: Capabilities;
  readonly catalog?: CatalogSnapshot;
}

export interface OptimizerOptions {
  /** false: only fetch base tables (wrap scans in Remote), compute everything in Junction */
  readonly pushdown: boolean;
}

export interface OptimizeInput {
  readonly sources: ReadonlyMap<string, SourceInfo>;
  readonly options: OptimizerOptions;
  /** the query runs on a backend engine: scans of the sources it reads are read through it */
  readonly backend?: BackendRouting;
}

/**
 * A distributed engine (Trino) that reads several sources itself. It is in `sources` under its
 * name, with its own capabilities, so a Remote on it is pushed into like any source's, and
 * joins across the sources it reads meet inside one Remote.
 */
export interface BackendRouting {
  readonly name: string;
  /** the sources whose tables it reads */
  readonly readable: ReadonlySet<string>;
  /** the others, each with why it cannot read them (shown where a join across them stays in Junction) */
  readonly unreadable: ReadonlyMap<string, string>;
}

/** What a rule may consult; rules are pure functions of (node, context). */
export interface OptimizerContext extends OptimizeInput {
  /** a plan-unique id for a field a rule introduces (partial aggregates) */
  newFieldId(): number;
}

export type Rule = (node: LogicalPlan, ctx: OptimizerContext) => LogicalPlan | undefined;

export function sourcesFromRegistered(list: readonly RegisteredSource[]): Map<string, SourceInfo> {
  return new Map(list.map((s) => [s.name, { capabilities: s.connector.capabilities(), catalog: s.catalog }]));
}

/** Where a source's tables are read: through the backend when the query runs there and it reads them, else the source. */
export function runsIn(ctx: OptimizeInput | undefined, source: string): string {
  return ctx?.backend?.readable.has(source) ? ctx.backend.name : source;
}

export function capabilitiesOf(ctx: OptimizeInput, source: string): Capabilities {
  return ctx.sources.get(source)?.capabilities ?? NO_CAPABILITIES;
}

export function tableInfo(ctx: OptimizeInput, table: TableRef): TableInfo | undefined {
  return findTable(ctx.sources.get(table.source)?.catalog, table);
}

/** Row count from the source's catalog statistics; undefined when the engine keeps none. */
export function tableRowCount(ctx: OptimizeInput, table: TableRef): number | undefined {
  return tableInfo(ctx, table)?.rowCount;
}
