import type { KeyValueStore } from './workspace-tabs.js';

/** Where a query runs (POST /query, /query/export and /explain take it as `engine`). */
export type EngineChoice = 'local' | 'trino' | 'auto';

/** GET /api/v1/engines: `trino` null when no Trino is configured (the studio then says nothing of it). */
export interface EnginesInfo {
  readonly default: 'local' | 'auto';
  readonly trino: null | {
    readonly available: boolean;
    readonly message: string | null;
    readonly autoRowsThreshold: number;
    readonly sources: readonly {
      readonly source: string;
      readonly local: boolean;
      readonly catalog: string | null;
      readonly reason: string | null;
    }[];
  };
}

export const ENGINE_LABEL: Record<EngineChoice, string> = { local: 'Junction', trino: 'Trino', auto: 'Auto' };

/** Per browser, not per user: it says which engines this machine's user likes to compare. */
export const ENGINE_KEY = 'junction.runOn';

/**
 * The choice picked in this browser, or undefined while none was: then nothing is sent, and a
 * leading /*+ engine(…) *\/ hint in the SQL, else the server's default, decides.
 */
export function loadEngineChoice(store: KeyValueStore): EngineChoice | undefined {
  const v = store.getItem(ENGINE_KEY);
  return v === 'local' || v === 'trino' || v === 'auto' ? v : undefined;
}

export function saveEngineChoice(store: KeyValueStore, choice: EngineChoice): void {
  store.setItem(ENGINE_KEY, choice);
}

/**
 * What the workspace sends as `engine`: nothing without Trino (the control is not shown) or
 * before a pick; a remembered pick of Trino while Trino cannot run queries sends nothing either,
 * so the query runs where it would by default instead of failing on a choice the user cannot see.
 */
export function engineToSend(info: EnginesInfo | null | undefined, picked: EngineChoice | undefined): EngineChoice | undefined {
  if (!info?.trino || picked === undefined) return undefined;
  if (picked === 'trino' && !info.trino.available) return undefined;
  return picked;
}

/** The option the control shows selected: the pick when it is sent, else the server's default. */
export function engineShown(info: EnginesInfo, picked: EngineChoice | undefined): EngineChoice {
  return engineToSend(info, picked) ?? info.default;
}

/** The control's tooltip: what it does, and that the choice wins over a hint in the SQL. */
export function engineTooltip(info: EnginesInfo, picked: EngineChoice | undefined): string {
  const rows = info.trino ? info.trino.autoRowsThreshold.toLocaleString('en-US') : '';
  const decides =
    engineToSend(info, picked) === undefined
      ? `Nothing is picked yet: a leading /*+ engine(…) */ hint in the SQL decides, else the server's default (${ENGINE_LABEL[info.default]}).`
      : 'The choice is sent with each Run, Explain and Export and wins over a /*+ engine(…) */ hint in the SQL.';
  return `Where the query runs: Junction itself, the Trino backend, or Auto (Trino when Junction would fetch more than ${rows} rows from the sources and hold more than the query's memory budget). ${decides}`;
}

/** The stats line of a finished run: "Ran on Trino · asked for by the engine option". */
export function ranOnText(stats: { readonly engine?: unknown; readonly engineReason?: unknown } | undefined): string | null {
  if (!stats || typeof stats.engine !== 'string') return null;
  const where = stats.engine === 'local' ? 'Junction' : stats.engine === 'trino' ? 'Trino' : stats.engine;
  const why = typeof stats.engineReason === 'string' && stats.engineReason ? ` · ${stats.engineReason}` : '';
  return `Ran on ${where}${why}`;
}
