import type { SourceSemantics } from '@junction/connectors';
import type { AccessPolicy, ExecutionBackend } from '@junction/query-core';
import type { BackgroundLog, JunctionService } from './junction.js';
import { openTrinoBackend, tablesFromPlacements, type TrinoBackendSettings } from './trino-backend.js';
import { TrinoCatalogs, type TrinoPlacement } from './trino-catalogs.js';

/** after Trino could not be reached, the next attempt waits this long */
const RETRY_MS = 30_000;
/** source changes arriving together are applied in one pass */
const DEBOUNCE_MS = 50;

export interface EngineInfo {
  readonly default: 'local' | 'auto';
  readonly trino: null | {
    readonly available: boolean;
    readonly message: string | null;
    readonly autoRowsThreshold: number;
    readonly sources: readonly { source: string; local: boolean; catalog: string | null; reason: string | null }[];
  };
}

/**
 * The Trino backend as the server runs it (JUNCTION_TRINO_URL): opened when the server starts,
 * and again every 30 s while Trino cannot be reached, so a studio never waits for it; each
 * registered source made readable through a catalog of its own (TrinoCatalogs), again whenever
 * sources change here or on another server; the engine told of the placements (setBackend).
 * Queries that ask for Trino before it is reached get the reason, never a silent local run.
 */
export class TrinoService {
  #backend: ExecutionBackend | undefined;
  #catalogs: TrinoCatalogs | undefined;
  readonly #placements = new Map<string, TrinoPlacement>();
  #message: string | null = 'Trino has not been reached yet.';
  #syncing: Promise<void> = Promise.resolve();
  #pending: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly junction: JunctionService,
    readonly settings: TrinoBackendSettings,
    private readonly log: () => BackgroundLog,
  ) {
    junction.sources.changed.add(() => this.#schedule());
  }

  /**
   * Connects in the background: the server serves meanwhile. Until Trino is reached every source
   * reads as kept local with the reason (a query asking for Trino runs in Junction and its stats
   * and EXPLAIN say why), and it is tried again every 30 s.
   */
  start(): Promise<void> {
    return this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const gate = this.junction.gate;
    try {
      if (!this.#backend) {
        const tables = tablesFromPlacements(this.#placements);
        this.#backend = await openTrinoBackend(gate, this.settings, {
          tableOf: (source) => (this.#message !== null ? { local: true, reason: this.#message } : tables.tableOf(source)),
        });
        (await this.junction.engine()).setBackend?.(this.#backend);
      }
      await this.#backend.connector.probe();
      this.#catalogs ??= new TrinoCatalogs(await gate.backendAdmin(this.settings.config), (text) => this.junction.secrets.digest(text));
      this.#message = null;
      await this.sync();
    } catch (err) {
      this.#message = `Trino at ${this.#url()} cannot be reached: ${err instanceof Error ? err.message : String(err)}`;
      (this.junction.engineNow())?.setBackend?.(this.#backend);
      this.log().error({ err }, 'Trino backend unavailable; trying again in 30 s');
      this.#retry = setTimeout(() => void this.#connect(), RETRY_MS);
      this.#retry.unref();
    }
  }

  #url(): string {
    const c = this.settings.config;
    return `${c.host ?? '127.0.0.1'}:${c.port ?? 8080}`;
  }

  #schedule(): void {
    if (this.#pending || this.#closed) return;
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      void this.sync().catch((err: unknown) => this.log().error({ err }, 'Trino catalogs could not be brought up to date'));
    }, DEBOUNCE_MS);
    this.#pending.unref();
  }

  /**
   * Every registered source placed in Trino (or kept local with the reason), the catalogs of
   * sources gone dropped, and the engine told. One pass at a time; a failure for one source
   * keeps only that source local.
   */
  sync(): Promise<void> {
    this.#syncing = this.#syncing.then(() => this.#sync());
    return this.#syncing;
  }

  async #sync(): Promise<void> {
    const catalogs = this.#catalogs;
    if (!catalogs || !this.#backend || this.#message !== null || this.#closed) return;
    const rows = await this.junction.db.source.findMany();
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.name);
      const config = this.junction.configOf(row);
      const semantics = row.semantics ? (JSON.parse(row.semantics) as SourceSemantics) : undefined;
      try {
        this.#placements.set(row.name, await catalogs.ensure(config, semantics));
      } catch (err) {
        this.#placements.set(row.name, { local: true, reason: err instanceof Error ? err.message : String(err) });
      }
    }
    for (const [name, placement] of [...this.#placements.entries()]) {
      if (seen.has(name)) continue;
      this.#placements.delete(name);
      // an admin's own catalog (source option trinoCatalog) is never dropped
      if (!placement.local && placement.managed)
        await catalogs
          .dropCatalog(placement.catalog)
          .catch((err: unknown) => this.log().error({ err, source: name }, 'could not drop the Trino catalog of a removed source'));
    }
    // the engine caches routing per catalog version: setting the backend again drops it
    (await this.junction.engine()).setBackend?.(this.#backend);
  }

  /** What GET /api/v1/engines shows a caller: the sources they may read only. */
  info(policy: AccessPolicy): EngineInfo['trino'] {
    return {
      available: this.#message === null,
      message: this.#message,
      autoRowsThreshold: this.settings.autoRowsThreshold ?? 1_000_000,
      sources: [...this.#placements.entries()]
        .filter(([name]) => policy.canReadSource(name))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([source, p]) =>
          p.local
            ? { source, local: true, catalog: null, reason: p.reason }
            : { source, local: false, catalog: p.catalog, reason: null },
        ),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pending) clearTimeout(this.#pending);
    if (this.#retry) clearTimeout(this.#retry);
    await this.#syncing.catch(() => undefined);
    (this.junction.engineNow())?.setBackend?.(undefined);
    await this.#backend?.connector.close().catch(() => undefined);
  }
}
