import { randomUUID } from 'node:crypto';
import {
  JunctionError,
  isJunctionError,
  type CatalogSnapshot,
  type ColumnMeta,
  type ConnectionDiagnosis,
  type Connector,
  type Row,
  type EngineName,
  type SourceConfig,
  type SourceSemantics,
} from '@junction/connectors';
import type {
  AccessPolicy,
  CacheCounters,
  CacheEntryInfo,
  CachePurge,
  EngineOptions,
  FragmentCachePolicy,
  Materialization,
  ExplainResult,
  QueryOptions,
  QueryResult,
  RegisteredSource,
  RelationReference,
  ViewDefinition,
} from '@junction/query-core';
import type { Db } from '../db/client.js';
import type { Source } from '../generated/prisma/client.js';
import { Admission, type AdmissionLimits } from '../lib/admission.js';
import { LimitStore } from '../lib/limits.js';
import { notFound } from '../lib/errors.js';
import { SharedConnector, SourceShare } from '../lib/source-share.js';
import { STORE_SOURCE } from './materializer.js';
import type { SecretBox } from '../lib/secrets.js';
import type { Principal } from '../plugins/auth.js';

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
  cacheStats(): { results: CacheCounters; fragments: CacheCounters };
  cacheEntries(): { results: CacheEntryInfo[]; fragments: CacheEntryInfo[] };
  purgeCache(scope?: CachePurge): number;
  close(): Promise<void> | void;
}

export type EngineFactory = (options: EngineOptions) => Promise<EngineLike>;
export type ConnectorFactory = (config: SourceConfig) => Connector | Promise<Connector>;

export const defaultEngineFactory: EngineFactory = async (options) => {
  const { Engine } = await import('@junction/query-core');
  return new Engine(options) as unknown as EngineLike;
};
export const defaultConnectorFactory: ConnectorFactory = async (config) => {
  const { createConnector } = await import('@junction/connectors');
  return createConnector(config);
};

export interface JunctionLimits extends AdmissionLimits {
  readonly memoryBudgetBytes: number;
  /** applied when a query names none, and the ceiling for one that does */
  readonly defaultTimeoutMs: number;
  readonly maxTimeoutMs: number;
  /** JSON replies hold every row in memory: this caps them (NDJSON streams have no cap) */
  readonly maxRowsJson: number;
  /** ...and this caps their size in bytes (JUNCTION_MAX_JSON_BYTES) */
  readonly maxJsonBytes: number;
  /** queries one source may serve at once; default ¾ of maxConcurrent (JUNCTION_SOURCE_SHARE) */
  readonly perSource?: number;
  /** result cache budgets (JUNCTION_CACHE_MEMORY_BYTES, JUNCTION_CACHE_DISK_BYTES); engine defaults 256 MiB and 1 GiB */
  readonly cacheMemoryBytes?: number;
  readonly cacheDiskBytes?: number;
}

export const DEFAULT_LIMITS: JunctionLimits = {
  maxConcurrent: 8,
  maxQueued: 32,
  queueTimeoutMs: 10_000,
  perUser: 4,
  perUserQueued: 16,
  perUserQueueTimeoutMs: 5_000,
  memoryBudgetBytes: 256 * 1024 * 1024,
  defaultTimeoutMs: 5 * 60_000,
  maxTimeoutMs: 60 * 60_000,
  maxRowsJson: 100_000,
  maxJsonBytes: 32 * 1024 * 1024,
};

export interface SourceInput {
  name: string;
  engine: EngineName;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  file?: string;
  options?: Record<string, unknown>;
}

export interface RunningQuery {
  readonly id: string;
  readonly userId: string;
  readonly sql: string;
  readonly startedAt: Date;
  cancel(reason?: string): void;
}

/** how long an access policy read from the grants is reused for the same caller */
const POLICY_TTL_MS = 500;

/** Error codes that mean the source could not be reached at all (not that a statement failed on it). */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['source_unavailable']);

/** Where background work reports failures it cannot return to anyone. */
export interface BackgroundLog {
  error(obj: object, msg: string): void;
}

interface Live {
  connector: Connector;
  catalog: CatalogSnapshot;
  semantics?: SourceSemantics;
  /** the source's consent to reuse its fragments' results (source option fragmentCache) */
  fragmentCache?: FragmentCachePolicy;
}

/** The fragmentCache source option, as the engine takes it. */
function fragmentCacheOf(options: Record<string, unknown> | undefined): FragmentCachePolicy | undefined {
  const f = options?.fragmentCache as { ttlSeconds?: unknown; tables?: unknown } | undefined;
  if (!f || typeof f.ttlSeconds !== 'number' || f.ttlSeconds <= 0) return undefined;
  return Array.isArray(f.tables) ? { ttlSeconds: f.ttlSeconds, tables: f.tables.map(String) } : { ttlSeconds: f.ttlSeconds };
}

/**
 * Junction's running state: one Engine, one connector per registered source, admission control
 * and the registry of running queries. Metadata rows are the truth; this mirrors them.
 */
export class JunctionService {
  readonly admission: Admission;
  /** the limits an admin set through the API over the environment's defaults (lib/limits.ts) */
  readonly limitStore: LimitStore;
  readonly running = new Map<string, RunningQuery>();
  /** each registered source's share of the query slots, by source name */
  readonly shares = new Map<string, SourceShare>();
  readonly #live = new Map<string, Live>();
  /** access policies of recent callers (accessPolicy) */
  readonly #policies = new Map<string, { at: number; policy: Promise<AccessPolicy> }>();
  /** when a query last reported each source reachable (noteSourcesReached) */
  readonly #reachedAt = new Map<string, number>();
  #engine: EngineLike | undefined;
  /** set by the engine plugin to the app's logger */
  log: BackgroundLog = { error: () => undefined };

  constructor(
    readonly db: Db,
    readonly secrets: SecretBox,
    readonly limits: JunctionLimits,
    readonly engineFactory: EngineFactory = defaultEngineFactory,
    readonly connectorFactory: ConnectorFactory = defaultConnectorFactory,
  ) {
    this.admission = new Admission(limits);
    this.limitStore = new LimitStore(db, limits);
    this.limitStore.onServerChange = (l) => this.admission.setServer(l);
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

  /**
   * What the engine gets for a source: the connector behind its share of the server, with its
   * health mirrored into the source's status (degraded with the reason; back online when a
   * statement completes on it again).
   */
  #shared(connector: Connector): Connector {
    // default: three quarters of the slots (all of them when there are 2 or fewer): a hung source
    // leaves a quarter to everyone else, while a deployment with one busy source loses little
    const max = this.limits.maxConcurrent;
    const limit = Math.max(1, this.limits.perSource ?? (max <= 2 ? max : Math.ceil((max * 3) / 4)));
    // as patient as the global queue while the source makes progress; a stalled source is
    // given up on as soon as others wait for the slots its waiters hold (see SourceShare)
    const share = new SourceShare(connector.name, limit, this.limits.queueTimeoutMs, () => this.admission.queued > 0);
    this.shares.set(connector.name, share);
    connector.onHealth = (h) => {
      share.health = h;
      const name = connector.name;
      const update =
        h.status === 'degraded'
          ? this.db.source.updateMany({
              where: { name, status: { not: 'offline' } },
              data: { status: 'degraded', statusMessage: `The source stopped answering: it ${h.reason}.` },
            })
          : this.db.source.updateMany({
              where: { name, status: 'degraded' },
              data: { status: 'online', statusMessage: null },
            });
      void update.catch((err: unknown) => this.log.error({ err, source: name }, 'could not record source health'));
    };
    return new SharedConnector(connector, share);
  }

  /** Registers stored sources and views without contacting any source: a source that is down fails only its queries. */
  async start(): Promise<void> {
    const engine = await this.engine();
    for (const row of await this.db.source.findMany()) {
      if (!row.catalog) continue;
      try {
        const config = this.configOf(row);
        const connector = await this.connectorFactory(config);
        const live: Live = {
          connector,
          catalog: JSON.parse(row.catalog),
          semantics: row.semantics ? JSON.parse(row.semantics) : undefined,
          fragmentCache: fragmentCacheOf(config.options),
        };
        await engine.addSource({ name: row.name, ...live, connector: this.#shared(live.connector) });
        this.#live.set(row.name, live);
      } catch (e) {
        // one broken source must not keep the others (or the studio) from starting
        await this.db.source.update({
          where: { id: row.id },
          data: { status: 'offline', statusMessage: e instanceof Error ? e.message : 'could not register' },
        });
      }
    }
    const views = await this.db.view.findMany({ include: { schema: true }, orderBy: { createdAt: 'asc' } });
    for (const v of views) {
      try {
        await engine.setView({ schema: v.schema.name, name: v.name, sql: v.sql });
      } catch {
        // a view whose source is gone stays stored; validating it reports why
      }
    }
  }

  configOf(row: Source, password?: string): SourceConfig {
    return {
      name: row.name,
      engine: row.engine as EngineName,
      ...(row.host ? { host: row.host } : {}),
      ...(row.port ? { port: row.port } : {}),
      ...(row.database ? { database: row.database } : {}),
      ...(row.user ? { user: row.user } : {}),
      ...(row.file ? { file: row.file } : {}),
      password: password ?? (row.passwordEncrypted ? this.secrets.decrypt(row.passwordEncrypted) : undefined),
      options: JSON.parse(row.options || '{}'),
    };
  }

  /** test() → probe() → introspect() on a fresh connector; closes it on failure. */
  async #connect(config: SourceConfig): Promise<Live & { diagnosis: ConnectionDiagnosis }> {
    const connector = await this.connectorFactory(config);
    try {
      const diagnosis = await connector.test();
      if (!diagnosis.ok) {
        throw new JunctionError(
          'source_test_failed',
          'user',
          `Could not connect to "${config.name}": ${diagnosis.message} ${diagnosis.hint}`.trim(),
          {
            details: { source: config.name, diagnosis: diagnosis.code, hint: diagnosis.hint },
          },
        );
      }
      const semantics = await connector.probe();
      const catalog = await connector.introspect();
      return { connector, semantics, catalog, diagnosis, fragmentCache: fragmentCacheOf(config.options) };
    } catch (e) {
      await connector.close().catch(() => undefined);
      throw e;
    }
  }

  async createSource(input: SourceInput, opts: { demo?: boolean } = {}): Promise<Source> {
    if (input.name.toLowerCase() === STORE_SOURCE) {
      throw new JunctionError('source_name_reserved', 'user', `"${STORE_SOURCE}" is Junction's own store of materialized views; choose another name.`, {
        details: { name: input.name },
      });
    }
    if (await this.db.source.findUnique({ where: { name: input.name } })) {
      throw new JunctionError('source_exists', 'conflict', `A source named "${input.name}" already exists.`, {
        details: { name: input.name },
      });
    }
    const config: SourceConfig = { ...input, options: input.options ?? {} };
    const live = await this.#connect(config);
    try {
      const row = await this.db.source.create({
        data: {
          id: randomUUID(),
          name: input.name,
          engine: input.engine,
          host: input.host ?? null,
          port: input.port ?? null,
          database: input.database ?? null,
          user: input.user ?? null,
          file: input.file ?? null,
          passwordEncrypted: input.password ? this.secrets.encrypt(input.password) : null,
          options: JSON.stringify(input.options ?? {}),
          ...onlineColumns(live),
          demo: opts.demo ?? false,
        },
      });
      this.#live.set(row.name, live);
      await (
        await this.engine()
      ).addSource({
        name: row.name,
        connector: this.#shared(live.connector),
        catalog: live.catalog,
        semantics: live.semantics,
        fragmentCache: live.fragmentCache,
      });
      this.invalidateAccess();
      return row;
    } catch (e) {
      this.#live.delete(input.name);
      await live.connector.close().catch(() => undefined);
      throw e;
    }
  }

  async findSource(idOrName: string): Promise<Source> {
    const row =
      (await this.db.source.findUnique({ where: { id: idOrName } })) ??
      (await this.db.source.findUnique({ where: { name: idOrName } }));
    if (!row) throw notFound('source', idOrName);
    return row;
  }

  /**
   * Connection settings change (a rotated password, a new host): connect with the new settings
   * first, then swap the engine's source and drain the old pool, so no restart is needed and a
   * wrong new setting leaves the working one in place.
   */
  async updateSource(id: string, patch: Partial<Omit<SourceInput, 'name' | 'engine'>>): Promise<Source> {
    const row = await this.findSource(id);
    const merged: Source = {
      ...row,
      host: patch.host !== undefined ? patch.host : row.host,
      port: patch.port !== undefined ? patch.port : row.port,
      database: patch.database !== undefined ? patch.database : row.database,
      user: patch.user !== undefined ? patch.user : row.user,
      file: patch.file !== undefined ? patch.file : row.file,
      options: patch.options !== undefined ? JSON.stringify(patch.options) : row.options,
    };
    const password =
      patch.password !== undefined
        ? patch.password
        : row.passwordEncrypted
          ? this.secrets.decrypt(row.passwordEncrypted)
          : undefined;
    const live = await this.#connect(this.configOf({ ...merged, passwordEncrypted: null }, password));
    const updated = await this.db.source.update({
      where: { id: row.id },
      data: {
        host: merged.host,
        port: merged.port,
        database: merged.database,
        user: merged.user,
        file: merged.file,
        options: merged.options,
        passwordEncrypted: password ? this.secrets.encrypt(password) : null,
        ...onlineColumns(live),
      },
    });
    await this.#swap(updated.name, live);
    return updated;
  }

  async #swap(name: string, live: Live): Promise<void> {
    const engine = await this.engine();
    this.invalidateAccess();
    const old = this.#live.get(name);
    if (old) await engine.removeSource(name);
    this.#live.set(name, live);
    await engine.addSource({
      name,
      connector: this.#shared(live.connector),
      catalog: live.catalog,
      semantics: live.semantics,
      fragmentCache: live.fragmentCache,
    });
    // the old pool drains in the background: a refresh must not wait for statements still
    // running on it (close() waits for every checked-out connection)
    if (old && old.connector !== live.connector)
      void old.connector.close().catch((err: unknown) => this.log.error({ err, source: name }, 'closing a replaced connection pool failed'));
  }

  async deleteSource(id: string): Promise<Source> {
    const row = await this.findSource(id);
    const live = this.#live.get(row.name);
    if (live) {
      await (await this.engine()).removeSource(row.name);
      this.#live.delete(row.name);
      await live.connector.close().catch(() => undefined);
    }
    await this.db.source.delete({ where: { id: row.id } });
    await this.db.grant.deleteMany({ where: { sourceName: row.name } });
    this.invalidateAccess();
    return row;
  }

  async testSource(id: string): Promise<ConnectionDiagnosis> {
    const row = await this.findSource(id);
    const connector = await this.connectorFactory(this.configOf(row));
    try {
      const diagnosis = await connector.test();
      await this.db.source.update({
        where: { id: row.id },
        data: { status: diagnosis.ok ? 'online' : 'offline', statusMessage: diagnosis.ok ? null : diagnosis.message },
      });
      return diagnosis;
    } finally {
      await connector.close().catch(() => undefined);
    }
  }

  async refreshSource(id: string): Promise<Source> {
    const row = await this.findSource(id);
    let live: Live;
    try {
      live = await this.#connect(this.configOf(row));
    } catch (e) {
      await this.db.source.update({
        where: { id: row.id },
        data: { status: 'offline', statusMessage: e instanceof Error ? e.message : 'unreachable' },
      });
      throw e;
    }
    const updated = await this.db.source.update({
      where: { id: row.id },
      data: {
        ...onlineColumns(live),
      },
    });
    await this.#swap(updated.name, live);
    return updated;
  }

  /**
   * Grants decide per source and per view; an admin may read everything. Loaded once per query.
   * The policy's key names its decisions (engine plans bound under one key are reused under it,
   * instead of parsing and binding every query again): 'all' for admins, else the granted
   * sources and views and the views derived from them.
   */
  async accessPolicy(p: Principal): Promise<AccessPolicy> {
    if (p.role === 'admin') return { key: 'all', canReadSource: () => true, canReadView: () => true };
    // Kept for POLICY_TTL_MS per caller, so a program's stream of queries does not read the
    // grants (and, for designers, plan every stored view) before each one. Changing grants,
    // views or sources forgets them at once (invalidateAccess); another server sharing the
    // metadata database sees a grant change within the TTL.
    const key = `${p.role}\u0000${p.userId}\u0000${p.permissions.has('design') ? 'd' : ''}`;
    const hit = this.#policies.get(key);
    if (hit && Date.now() - hit.at < POLICY_TTL_MS) return hit.policy;
    if (this.#policies.size >= 10_000) this.#policies.clear();
    const policy = this.#loadPolicy(p);
    this.#policies.set(key, { at: Date.now(), policy });
    policy.catch(() => this.#policies.delete(key));
    return policy;
  }

  /** After grants, views or sources changed: the next query of everyone reads them again. */
  invalidateAccess(): void {
    this.#policies.clear();
  }

  async #loadPolicy(p: Principal): Promise<AccessPolicy> {
    const grants = await this.db.grant.findMany({ where: { OR: [{ role: p.role }, { userId: p.userId }] } });
    const sources = new Set(grants.filter((g) => g.sourceName).map((g) => g.sourceName as string));
    const views = new Set(grants.filter((g) => g.viewSchema).map((g) => `${g.viewSchema}.${g.viewName ?? '*'}`));
    const granted = (schema: string, view: string) => views.has(`${schema}.${view}`) || views.has(`${schema}.*`);
    // A view's grant covers what it reads, so a designer gets no grant for free: they may read
    // a view only when their own grants would let them run its SQL. Planning (EXPLAIN without
    // ANALYZE) decides that exactly, without contacting any source.
    const derived = new Set<string>();
    const policy: AccessPolicy = {
      canReadSource: (s) => sources.has(s) || sources.has('*'),
      canReadView: (schema, view) => granted(schema, view) || derived.has(`${schema}.${view}`),
    };
    const keyed = () => ({ ...policy, key: JSON.stringify([[...sources].sort(), [...views].sort(), [...derived].sort()]) });
    if (!p.permissions.has('design')) return keyed();
    const stored = await this.db.view.findMany({ include: { schema: true }, orderBy: { createdAt: 'asc' } });
    if (stored.length === 0) return keyed();
    const engine = await this.engine();
    for (const v of stored) {
      if (granted(v.schema.name, v.name)) continue;
      try {
        await engine.explain(v.sql, { access: policy });
        derived.add(`${v.schema.name}.${v.name}`);
      } catch {
        // not readable with these grants (or broken): stays denied
      }
    }
    return keyed();
  }

  /**
   * Admission first, then the engine. The returned release must be called exactly once when
   * the rows have been consumed or the query failed.
   */
  async startQuery(
    p: Principal,
    sql: string,
    opts: {
      params?: unknown[];
      timeoutMs?: number;
      maxRows?: number;
      queryId?: string;
      signal: AbortSignal;
      /** another budget than the interactive one (the benchmark lab's) */
      admission?: { acquire(user: string): Promise<() => void> };
    },
  ): Promise<{ id: string; result: QueryResult; release: () => void }> {
    // the lab's runs have their own budget, so they never take interactive users' slots
    const release = opts.admission
      ? await opts.admission.acquire(p.userId)
      : await this.admission.acquire(this.limitStore.bucketOf(p), opts.signal);
    const id = opts.queryId ?? randomUUID();
    try {
      if (this.running.has(id))
        throw new JunctionError('query_id_in_use', 'conflict', `A query with id "${id}" is already running.`);
      const access = await this.accessPolicy(p);
      const timeoutMs = Math.min(opts.timeoutMs ?? this.limits.defaultTimeoutMs, this.limits.maxTimeoutMs);
      const engine = await this.engine();
      const result = await engine.query(sql, {
        params: (opts.params ?? []) as QueryOptions['params'],
        signal: opts.signal,
        timeoutMs,
        maxRows: opts.maxRows,
        access,
        memoryBudgetBytes: this.limits.memoryBudgetBytes,
      });
      this.running.set(id, { id, userId: p.userId, sql, startedAt: new Date(), cancel: (r) => result.cancel(r) });
      let done = false;
      return {
        id,
        result: this.#watched(result),
        release: () => {
          if (done) return;
          done = true;
          this.running.delete(id);
          release();
        },
      };
    } catch (e) {
      release();
      this.noteQueryFailure(e);
      throw e;
    }
  }

  /** The engine's result, with its rows watched: a failure or full read tells how its sources are doing. */
  #watched(result: QueryResult): QueryResult {
    const rows = result.rows;
    const failed = (e: unknown) => this.noteQueryFailure(e);
    const reached = () => this.noteSourcesReached(result.stats().sourceStatements.map((s) => s.source));
    async function* watch(): AsyncGenerator<readonly Row[]> {
      try {
        yield* rows;
      } catch (e) {
        failed(e);
        throw e;
      }
      reached();
    }
    return {
      id: result.id,
      columns: result.columns,
      rows: { [Symbol.asyncIterator]: () => watch() },
      stats: () => result.stats(),
      cancel: (reason) => result.cancel(reason),
    };
  }

  /**
   * A query that could not reach a source marks it offline, as a failed test would. Off the
   * request path: the caller already has its error, and a metadata hiccup must not replace it.
   */
  noteQueryFailure(e: unknown): void {
    if (!isJunctionError(e) || e.kind !== 'external' || !UNREACHABLE_CODES.has(e.code)) return;
    const source = e.details?.source;
    if (typeof source !== 'string') return;
    this.#reachedAt.delete(source);
    void this.db.source
      .updateMany({ where: { name: source }, data: { status: 'offline', statusMessage: e.message } })
      .catch((err: unknown) => this.log.error({ err, source }, 'could not mark source offline'));
  }

  /**
   * Sources a query read from are reachable again: offline ones go back online, in the background.
   * At most one such write per source per second: every query would otherwise cost a metadata
   * UPDATE. A source this server marked offline is written back at its next success.
   */
  noteSourcesReached(names: readonly string[]): void {
    const now = Date.now();
    const unique = [...new Set(names)].filter((n) => !(now - (this.#reachedAt.get(n) ?? -Infinity) < 1000));
    if (unique.length === 0) return;
    for (const n of unique) this.#reachedAt.set(n, now);
    void this.db.source
      .updateMany({
        where: { name: { in: unique }, status: { in: ['offline', 'degraded'] } },
        data: { status: 'online', statusMessage: null },
      })
      .catch((err: unknown) => this.log.error({ err, sources: unique }, 'could not mark sources online'));
  }

  async explain(p: Principal, sql: string, opts: { params?: unknown[]; analyze?: boolean }): Promise<ExplainResult> {
    const release = await this.admission.acquire(this.limitStore.bucketOf(p));
    try {
      const access = await this.accessPolicy(p);
      return await (
        await this.engine()
      ).explain(sql, {
        params: (opts.params ?? []) as QueryOptions['params'],
        analyze: opts.analyze ?? false,
        access,
        timeoutMs: this.limits.defaultTimeoutMs,
      });
    } catch (e) {
      this.noteQueryFailure(e);
      throw e;
    } finally {
      release();
    }
  }

  /** Asks the engine to plan the view; returns its output columns when the engine reports them. */
  async setView(schema: string, name: string, sql: string): Promise<readonly ColumnMeta[] | undefined> {
    this.invalidateAccess();
    const out = (await (await this.engine()).setView({ schema, name, sql })) as
      { columns?: readonly ColumnMeta[] } | readonly ColumnMeta[] | undefined;
    this.onViewChanged(schema, name);
    if (Array.isArray(out)) return out as readonly ColumnMeta[];
    return (out as { columns?: readonly ColumnMeta[] } | undefined)?.columns;
  }

  /** The tables and views a statement names, as the engine resolves them (throws when it does not bind). */
  async references(sql: string): Promise<readonly RelationReference[]> {
    return (await this.engine()).references(sql);
  }

  async dropView(schema: string, name: string): Promise<void> {
    this.invalidateAccess();
    await (await this.engine()).dropView(schema, name);
    this.onViewChanged(schema, name);
  }

  async close(): Promise<void> {
    for (const q of this.running.values()) q.cancel('server shutting down');
    if (this.#engine) await this.#engine.close();
    await Promise.all([...this.#live.values()].map((l) => l.connector.close().catch(() => undefined)));
    this.#live.clear();
  }
}

/** What a source row records after a successful connect and introspection. */
function onlineColumns(live: Live) {
  return {
    status: 'online',
    statusMessage: null,
    semantics: JSON.stringify(live.semantics),
    catalog: JSON.stringify(live.catalog),
    introspectedAt: new Date(),
  };
}
