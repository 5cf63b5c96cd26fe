import type { CatalogSnapshot, ColumnMeta } from '@junction/connectors';
import type {
  CacheCounters,
  CacheEntryInfo,
  CachePurge,
  EngineOptions,
  DescribeResult,
  ExecutionBackend,
  ExplainResult,
  Materialization,
  QueryOptions,
  QueryResult,
  RegisteredSource,
  RelationReference,
  ViewDefinition,
} from '@junction/query-core';
import type { ClusterEvent } from '../cluster/cluster.js';
import type { Db } from '../db/client.js';
import { Admission } from '../lib/admission.js';
import { LimitStore, type JunctionLimits } from '../lib/limits.js';
import type { SecretBox } from '../lib/secrets.js';
import { AccessPolicies } from './access-policy.js';
import { STORE_SOURCE } from './internal-sources.js';
import { QueryService } from './query-service.js';
import { defaultConnectorFactory, SourceGate, type ConnectorFactory } from './source-gate.js';
import { SourceRegistry } from './source-registry.js';

export { DEFAULT_LIMITS, type JunctionLimits } from '../lib/limits.js';
export type { RunningQuery } from './query-service.js';
export type { SourceInput } from './source-registry.js';
export type { ConnectorFactory };

/** The part of query-core's Engine the API drives (src/api.ts of query-core). */
export interface EngineLike {
  addSource(source: RegisteredSource): unknown;
  removeSource(name: string): unknown;
  setView(view: ViewDefinition): unknown;
  dropView(schema: string, name: string): unknown;
  refreshSource(name: string, catalog: CatalogSnapshot): unknown;
  setMaterialization(schema: string, name: string, m: Materialization | undefined): void;
  references(sql: string): readonly RelationReference[];
  query(sql: string, options?: QueryOptions): Promise<QueryResult> | QueryResult;
  explain(sql: string, options?: QueryOptions & { analyze?: boolean }): Promise<ExplainResult> | ExplainResult;
  describe(sql: string, options?: Pick<QueryOptions, 'access' | 'searchPath'>): DescribeResult;
  cacheStats(): { results: CacheCounters; fragments: CacheCounters };
  cacheEntries(): { results: CacheEntryInfo[]; fragments: CacheEntryInfo[] };
  purgeCache(scope?: CachePurge): number;
  /** the Trino backend queries may run on (services/trino-backend.ts); undefined removes it */
  setBackend?(backend: ExecutionBackend | undefined): void;
  close(): Promise<void> | void;
}

export type EngineFactory = (options: EngineOptions) => Promise<EngineLike>;

export const defaultEngineFactory: EngineFactory = async (options) => {
  const { Engine } = await import('@junction/query-core');
  return new Engine(options) as unknown as EngineLike;
};

const viewKey = (schema: string, name: string): string => `${schema}\u0000${name}`;

/** Where background work reports failures it cannot return to anyone. */
export interface BackgroundLog {
  error(obj: object, msg: string): void;
}

/**
 * Junction's running state, wired along the data path: a route asks the query service, which
 * admits the query, asks the access policies and runs the engine; the engine's statements reach
 * the sources (the registry's connectors) only through the source gate. Metadata rows are the
 * truth; the registry and the engine mirror them.
 */
export class JunctionService {
  readonly admission: Admission;
  /** the limits an admin set through the API over the environment's defaults (lib/limits.ts) */
  readonly limitStore: LimitStore;
  /** the one module that opens connectors and lets statements reach sources */
  readonly gate: SourceGate;
  readonly policies: AccessPolicies;
  readonly sources: SourceRegistry;
  readonly queries: QueryService;
  #engine: EngineLike | undefined;
  /** the views the engine holds, as `schema\u0000name` → SQL (resyncViews compares the rows with it) */
  readonly #views = new Map<string, string>();
  /** set by the engine plugin to the app's logger */
  log: BackgroundLog = { error: () => undefined };
  /**
   * Tells the other servers sharing the metadata database of a change made here (set by the
   * cluster plugin; with one server nothing is told). Called after the rows are written.
   */
  announce: (event: ClusterEvent) => Promise<void> = async () => undefined;

  constructor(
    readonly db: Db,
    readonly secrets: SecretBox,
    readonly limits: JunctionLimits,
    readonly engineFactory: EngineFactory = defaultEngineFactory,
    connectorFactory: ConnectorFactory = defaultConnectorFactory,
  ) {
    const engine = () => this.engine();
    this.admission = new Admission(limits);
    this.limitStore = new LimitStore(db, limits);
    this.limitStore.onServerChange = (l) => this.admission.setServer(l);
    this.limitStore.announce = () => this.announce({ t: 'limits' });
    this.policies = new AccessPolicies(db, engine);
    this.gate = new SourceGate(
      connectorFactory,
      {
        mayRunNative: (p, source) => this.policies.mayRunNative(p, source),
        mayReadSource: async (p, source) => (await this.policies.of(p)).canReadSource(source),
      },
      new Set([STORE_SOURCE]),
    );
    this.sources = new SourceRegistry(
      db,
      secrets,
      limits,
      this.admission,
      this.gate,
      engine,
      () => this.policies.invalidate(),
      () => this.log,
      (name) => this.announce({ t: 'source', name }),
    );
    this.queries = new QueryService(this.admission, this.limitStore, limits, this.policies, engine, this.sources);
  }

  /** The engine when it exists (for synchronous steps that must not wait between them). */
  engineNow(): EngineLike | undefined {
    return this.#engine;
  }

  /** Told when a view's definition changes or it is dropped (the materializer's rows no longer answer it). */
  onViewChanged: (schema: string, name: string) => void = () => undefined;

  async engine(): Promise<EngineLike> {
    this.#engine ??= await this.engineFactory({
      memoryBudgetBytes: this.limits.memoryBudgetBytes,
      cache: {
        ...(this.limits.cacheMemoryBytes !== undefined ? { maxMemoryBytes: this.limits.cacheMemoryBytes } : {}),
        ...(this.limits.cacheDiskBytes !== undefined ? { maxDiskBytes: this.limits.cacheDiskBytes } : {}),
      },
    });
    return this.#engine;
  }

  // The routes' vocabulary, each one step of the path above.
  /** Registers the stored sources, then the stored views, without contacting any source. */
  readonly start = async (): Promise<void> => {
    await this.sources.start();
    await this.resyncViews();
  };
  readonly configOf: SourceRegistry['configOf'] = (row, password) => this.sources.configOf(row, password);
  readonly createSource: SourceRegistry['create'] = (input, opts) => this.sources.create(input, opts);
  readonly findSource: SourceRegistry['find'] = (idOrName) => this.sources.find(idOrName);
  readonly updateSource: SourceRegistry['update'] = (id, patch) => this.sources.update(id, patch);
  readonly deleteSource: SourceRegistry['delete'] = (id) => this.sources.delete(id);
  readonly testSource: SourceRegistry['test'] = (id) => this.sources.test(id);
  readonly refreshSource: SourceRegistry['refresh'] = (id) => this.sources.refresh(id);
  readonly accessPolicy: AccessPolicies['of'] = (p) => this.policies.of(p);
  /** After grants changed (or what they name): every server's next query reads them again. */
  readonly invalidateAccess = async (): Promise<void> => {
    this.policies.invalidate();
    await this.announce({ t: 'access' });
  };
  readonly startQuery: QueryService['start'] = (p, sql, opts) => this.queries.start(p, sql, opts);
  readonly explain: QueryService['explain'] = (p, sql, opts) => this.queries.explain(p, sql, opts);
  readonly describe: QueryService['describe'] = (p, sql) => this.queries.describe(p, sql);
  readonly noteQueryFailure = (e: unknown): void => this.sources.noteQueryFailure(e);
  get running(): QueryService['running'] {
    return this.queries.running;
  }
  get shares(): SourceRegistry['shares'] {
    return this.sources.shares;
  }

  /** Asks the engine to plan the view; returns its output columns when the engine reports them. */
  async setView(schema: string, name: string, sql: string): Promise<readonly ColumnMeta[] | undefined> {
    this.policies.invalidate();
    const out = (await (await this.engine()).setView({ schema, name, sql })) as
      { columns?: readonly ColumnMeta[] } | readonly ColumnMeta[] | undefined;
    this.#views.set(viewKey(schema, name), sql);
    this.onViewChanged(schema, name);
    if (Array.isArray(out)) return out as readonly ColumnMeta[];
    return (out as { columns?: readonly ColumnMeta[] } | undefined)?.columns;
  }

  /** The tables and views a statement names, as the engine resolves them (throws when it does not bind). */
  async references(sql: string): Promise<readonly RelationReference[]> {
    return (await this.engine()).references(sql);
  }

  async dropView(schema: string, name: string): Promise<void> {
    this.policies.invalidate();
    await (await this.engine()).dropView(schema, name);
    this.#views.delete(viewKey(schema, name));
    this.onViewChanged(schema, name);
  }

  /**
   * After view rows were written (created, changed, renamed, deleted): the other servers make
   * their engines match the rows. The rows, not the event, say what changed, so announcements
   * arriving in any order, or one standing for several changes, leave every server the same.
   */
  async viewsChanged(): Promise<void> {
    await this.announce({ t: 'views' });
  }

  /**
   * Makes the engine's views match the stored rows: defines the new and changed ones (in the
   * order they were created, so a view reading another comes after it) and drops the ones gone.
   * A view that does not bind here (a source it reads is gone) stays stored and is tried again
   * at the next resync; validating it reports why.
   */
  async resyncViews(): Promise<void> {
    const rows = await this.db.view.findMany({ include: { schema: true }, orderBy: { createdAt: 'asc' } });
    const wanted = new Map(
      rows.map((v) => [viewKey(v.schema.name, v.name), { schema: v.schema.name, name: v.name, sql: v.sql }]),
    );
    const engine = await this.engine();
    for (const key of [...this.#views.keys()]) {
      if (wanted.has(key)) continue;
      const [schema, name] = key.split('\u0000');
      this.#views.delete(key);
      this.policies.invalidate();
      try {
        await engine.dropView(schema, name);
      } catch {
        // not in the engine (its definition had stopped binding): nothing to drop
      }
      this.onViewChanged(schema, name);
    }
    for (const [key, v] of wanted) {
      const known = this.#views.get(key);
      if (known === v.sql) continue;
      this.policies.invalidate();
      try {
        await engine.setView(v);
        this.#views.set(key, v.sql);
      } catch {
        // the engine kept the old definition: answering with it would be answering another view
        this.#views.delete(key);
        if (known !== undefined) {
          try {
            await engine.dropView(v.schema, v.name);
          } catch {
            // already gone
          }
        }
      }
      // a materialized copy of a view this server knew answers the old definition
      if (known !== undefined) this.onViewChanged(v.schema, v.name);
    }
  }

  async close(): Promise<void> {
    for (const q of this.running.values()) q.cancel('server shutting down');
    if (this.#engine) await this.#engine.close();
    await this.sources.close();
  }
}
