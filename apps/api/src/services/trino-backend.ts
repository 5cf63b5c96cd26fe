import { JunctionError, trinoConfigFromEnv, type TrinoConfig } from '@junction/connectors';
import type { BackendTable, ExecutionBackend } from '@junction/query-core';
import type { SourceGate } from './source-gate.js';
import type { TrinoPlacement } from './trino-catalogs.js';

/**
 * Where Trino reads each registered source's tables, or why it cannot (a SQLite file, a source
 * kind Trino has no connector for, a catalog not created yet): what TrinoCatalogs.ensure
 * (trino-catalogs.ts) decided for each source, looked up by name when a plan is made.
 */
export interface TrinoTables {
  tableOf(source: string): BackendTable | { readonly local: true; readonly reason: string };
}

/** The placements TrinoCatalogs.ensure returned, by source name; a source not placed yet stays local. */
export function tablesFromPlacements(placements: ReadonlyMap<string, TrinoPlacement>): TrinoTables {
  return {
    tableOf: (source) => {
      const p = placements.get(source);
      if (!p) return { local: true, reason: 'its Trino catalog has not been set up yet' };
      return p.local ? p : { catalog: p.catalog, ...(p.schema ? { schema: p.schema } : {}) };
    },
  };
}

export interface TrinoBackendSettings {
  readonly config: TrinoConfig;
  /** `auto` runs a query on Trino past this many rows fetched locally (the engine's default when unset) */
  readonly autoRowsThreshold?: number;
  /** the engine of a query that names none */
  readonly defaultEngine?: 'local' | 'auto';
}

/**
 * The Trino backend's settings from the environment, or undefined when JUNCTION_TRINO_URL is
 * unset (then a query asking for trino gets 400 trino_not_configured). Besides the connection
 * (trinoConfigFromEnv): JUNCTION_TRINO_AUTO_ROWS, the estimated rows fetched locally past which
 * `auto` picks Trino, and JUNCTION_TRINO_DEFAULT_ENGINE (`local` or `auto`) for queries that name
 * no engine. A malformed value stops the server at start rather than quietly meaning something else.
 */
export function trinoSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): TrinoBackendSettings | undefined {
  const config = trinoConfigFromEnv(env);
  if (!config) return undefined;
  const rows = env.JUNCTION_TRINO_AUTO_ROWS?.trim();
  if (rows !== undefined && rows !== '' && !/^[1-9][0-9]*$/.test(rows)) {
    throw new JunctionError(
      'trino_config_invalid',
      'user',
      `JUNCTION_TRINO_AUTO_ROWS must be a positive whole number of rows, not "${rows}".`,
    );
  }
  const engine = env.JUNCTION_TRINO_DEFAULT_ENGINE?.trim().toLowerCase();
  if (engine !== undefined && engine !== '' && engine !== 'local' && engine !== 'auto') {
    throw new JunctionError(
      'trino_config_invalid',
      'user',
      `JUNCTION_TRINO_DEFAULT_ENGINE must be local or auto, not "${engine}".`,
    );
  }
  return {
    config,
    ...(rows ? { autoRowsThreshold: Number(rows) } : {}),
    ...(engine === 'local' || engine === 'auto' ? { defaultEngine: engine } : {}),
  };
}

/**
 * Opens Trino through the source gate and describes it as the engine's backend: the engine sends
 * it the statements of queries run there, each naming tables by `tables` (read when a plan is
 * made: call engine.setBackend again after the mapping changes, so cached plans are dropped).
 * Not contacted here: its capabilities are fixed, and the caller probes it (TrinoService), so a
 * Trino that is down still gives the engine a backend to name in its reasons.
 */
export async function openTrinoBackend(
  gate: SourceGate,
  settings: TrinoBackendSettings,
  tables: TrinoTables,
): Promise<ExecutionBackend> {
  const { connector, explain, checkCatalog } = await gate.backend(settings.config);
  return {
    name: 'trino',
    connector,
    tableOf: (source) => tables.tableOf(source),
    ...(settings.autoRowsThreshold !== undefined ? { autoRowsThreshold: settings.autoRowsThreshold } : {}),
    ...(settings.defaultEngine ? { defaultEngine: settings.defaultEngine } : {}),
    // Trino's dialect writes values into the SQL, so the text alone is the statement to explain
    ...(explain ? { explain: (q) => explain(q.sql) } : {}),
    // after a statement fails: which source's catalog Trino cannot read, for the error to name it
    ...(checkCatalog ? { checkCatalog } : {}),
  };
}
