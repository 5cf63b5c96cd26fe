import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JunctionError,
  type CatalogSnapshot,
  type ColumnMeta,
  type Connector,
  type JType,
  type RenderedQuery,
  type StatementAuthority,
  type Value,
} from '@junction/connectors';
import { coerceParams } from './expr/params.js';
import type {
  CacheCounters,
  CacheEntryInfo,
  CacheOptions,
  CachePurge,
  EngineChoice,
  EngineOptions,
  DescribeResult,
  ExecutionBackend,
  ExplainResult,
  QueryOptions,
  QueryResult,
  RegisteredSource,
  RelationReference,
  ViewDefinition,
} from './api.js';
import { CacheStore, type CacheDeps } from './cache/cache-store.js';
import { FragmentCache } from './cache/fragment-cache.js';
import { cachedResult, recordedResult, resultKey } from './cache/result-cache.js';
import { cachePolicyOf, dependenciesOf } from './cache/policy.js';
import { cacheHint, type CachePolicy } from './cache/statement.js';
import { MaterializedViews } from './materialize/materialized-views.js';
import type { Materialization } from './materialize/substitute.js';
import { Catalog } from './catalog/catalog.js';
import { bind } from './sql/index.js';
import { optimize } from './optimizer/driver.js';
import { sourcesFromRegistered, type OptimizeInput } from './optimizer/context.js';
import { estimateLocalMemory, estimateRows, estimateRowsFetched } from './optimizer/stats.js';
import { DEFAULT_AUTO_ROWS, DEFAULT_ENGINE_REASON, autoReason, spillLine, backendFailureHook, backendOutcome, backendTableNaming, checkBackendName, requestedEngine, routingOf, type RequestedEngine } from './engine-choice.js';
import type { Expr, LogicalPlan } from './plan/logical.js';
import { children } from './plan/fields.js';
import { planPhysical, type PhysicalPlan } from './physical/planner.js';
import { makeCompiler } from './physical/compiler.js';
import { RenderCache } from './physical/render-cache.js';
import { DiskTracker, MemoryTracker, type ExecContext } from './exec/context.js';
import { collect, type Operator } from './exec/operator.js';
import { RemoteScanOp } from './exec/remote-scan.js';
import { QueryRun, shielded, toJunctionError } from './exec/query-run.js';
import { WorkerPool } from './exec/workers/pool.js';
import { buildExplain } from './explain/build.js';
import { explainText } from './explain/text.js';
import { subqueryRowsError } from './expr/errors.js';

const DEFAULT_MEMORY_BUDGET = 256 * 1024 * 1024;
const DEFAULT_MAX_SPILL = 4 * 1024 * 1024 * 1024;
const PLAN_CACHE_SIZE = 256;
/** A hash join whose build side has at most this many distinct keys asks the probe source by key. */
const DEPENDENT_SWITCH_KEYS = 1000;
const BATCH_SIZE = 1024;
/**
 * A source batch weighs at most this share of the query's budget (and BATCH_BYTES): each
 * source has some eight batches in flight outside the budget (its driver's queue, the fixed
 * read-ahead of prefetch.ts), so two sources hold about a quarter of the budget beside it.
 */
const BATCH_BUDGET_SHARE = 64;
const BATCH_BYTES = 4 * 1024 * 1024;
const DEFAULT_CACHE_MEMORY = 256 * 1024 * 1024;
const DEFAULT_CACHE_DISK = 1024 * 1024 * 1024;
const DEFAULT_FRAGMENT_MEMORY = 64 * 1024 * 1024;

/** An optimized plan, reusable for every execution of the same SQL on the same catalog version. */
interface Prepared {
  readonly plan: LogicalPlan;
  readonly columns: readonly ColumnMeta[];
  readonly paramTypes: readonly JType[];
  /** the relations the statement names itself, resolved (the result cache's key and dependencies) */
  readonly references: readonly RelationReference[];
  /**
   * Bound under the caller's policy, the sources the statement may send fragments to; handed to
   * every statement as its authority (a source gate in front of a connector checks it). None
   * without a policy: such a statement names no principal.
   */
  readonly authority?: StatementAuthority;
  /** a view reads a source the caller cannot read itself: its errors are marked (readThroughView) */
  readonly readsThroughView: boolean;
  /** 'local' or the backend's name: where the plan's statements go */
  readonly engine: string;
  /** the backend the plan was made for (kept: one set later does not change a prepared plan) */
  readonly backend?: ExecutionBackend;
  /** shown by EXPLAIN and in stats when a backend is configured or the query named an engine */
  readonly choice?: EngineChoice;
}

/**
 * Junction's query engine: register sources and views, then run PostgreSQL-flavoured SQL
 * over all of them. Each query is parsed, bound against the catalog (errors before any
 * source is contacted), optimized into source fragments, planned into operators and
 * streamed in batches.
 */
export class Engine {
  private readonly catalog = new Catalog();
  private readonly sources = new Map<string, RegisteredSource>();
  private readonly cache = new Map<string, Prepared>();
  private version = 0;
  private pool: WorkerPool | undefined;
  private closed = false;

  private readonly spillDir: string;
  /** complete results of statements that asked for the cache (hint, option or their views) */
  private readonly results: CacheStore;
  private readonly fragmentStore: CacheStore;
  private readonly fragments: FragmentCache;
  private readonly cacheDir: string;

  /** the distributed engine queries may run on (ExecutionBackend) */
  private backend: ExecutionBackend | undefined;

  constructor(private readonly options: EngineOptions = {}) {
    if (options.backend) {
      checkBackendName(options.backend.name, []);
      this.backend = options.backend;
    }
    this.spillDir = options.spillDir ?? tmpdir();
    const c = options.cache ?? {};
    this.cacheDir = c.dir ?? join(this.spillDir, `junction-cache-${randomUUID()}`);
    this.results = new CacheStore({
      maxMemoryBytes: c.maxMemoryBytes ?? DEFAULT_CACHE_MEMORY,
      maxDiskBytes: c.maxDiskBytes ?? DEFAULT_CACHE_DISK,
      dir: this.cacheDir,
    });
    this.fragmentStore = new CacheStore({ maxMemoryBytes: c.fragmentMemoryBytes ?? DEFAULT_FRAGMENT_MEMORY, maxDiskBytes: 0, dir: this.cacheDir });
    this.fragments = new FragmentCache(this.fragmentStore, (name) => this.sources.get(name)?.fragmentCache);
  }

  /**
   * Sets (or with undefined removes) the engine queries may run on. Plans made from now on use
   * it; a query already running keeps the engine it was planned for.
   */
  setBackend(backend: ExecutionBackend | undefined): void {
    if (backend) checkBackendName(backend.name, this.sources.keys());
    this.backend = backend;
    this.changed();
  }

  addSource(source: RegisteredSource): void {
    if (this.backend && source.name.toLowerCase() === this.backend.name) {
      throw new JunctionError('source_name_reserved', 'conflict', `"${source.name}" names the ${this.backend.name} engine queries can run on: pick another name for the source.`, {
        details: { source: source.name },
      });
    }
    if (this.catalog.getSource(source.name)) {
      throw new JunctionError('source_exists', 'conflict', `A source named "${source.name}" is already registered. Remove it first or pick another name.`, {
        details: { source: source.name },
      });
    }
    this.catalog.registerSource(source);
    this.sources.set(source.name, source);
    this.materialized.invalidate();
    this.changed();
  }

  removeSource(name: string): void {
    const s = this.requireSource(name);
    this.catalog.removeSource(s.name);
    this.sources.delete(s.name);
    this.purgeCache({ source: s.name });
    this.materialized.invalidate();
    this.changed();
  }

  refreshSource(name: string, catalog: CatalogSnapshot): void {
    const s = this.requireSource(name);
    this.catalog.refreshSource(s.name, catalog);
    this.sources.set(s.name, { ...s, catalog });
    this.purgeCache({ source: s.name });
    this.materialized.invalidate();
    this.changed();
  }

  setView(view: ViewDefinition): readonly ColumnMeta[] {
    const previous = this.materialized.definition(view.schema, view.name);
    this.catalog.defineView(view);
    try {
      // a view is valid when its SQL binds against the catalog as it is now
      const columns = bind(view.sql, this.catalog, {}).columns;
      cacheHint(view.sql); // a malformed hint fails the view's definition, not its readers
      this.materialized.defined(view, columns);
      this.purgeCache({ view: { schema: view.schema, name: view.name } });
      this.changed();
      return columns;
    } catch (e) {
      if (previous) this.catalog.defineView(previous);
      else this.catalog.dropView(view.schema, view.name);
      this.materialized.invalidate(); // a materialized stand-in goes back on the next query
      throw tooDeep(e);
    }
  }

  /**
   * Reads the view from a table holding its rows (or, with undefined, from its definition again)
   * while the table is at most maxStalenessSeconds old. Queries planned from now on use it; one
   * already running keeps reading what it was planned on.
   */
  setMaterialization(schema: string, name: string, m: Materialization | undefined): void {
    this.materialized.set(schema, name, m, this.catalog);
    this.purgeCache({ view: { schema, name } });
  }

  /** Views' definitions and materializations (materialize/materialized-views.ts). */
  private readonly materialized = new MaterializedViews();

  /**
   * The tables and views a statement (a view's SQL, say) names, resolved as a query would
   * resolve them; fails like the query would when a name is unknown.
   */
  references(sql: string, options: Pick<QueryOptions, 'searchPath'> = {}): readonly RelationReference[] {
    try {
      return dedupe(bind(sql, this.catalog, { searchPath: options.searchPath }).references);
    } catch (e) {
      throw tooDeep(e);
    }
  }

  dropView(schema: string, name: string): void {
    if (!this.catalog.dropView(schema, name)) {
      throw new JunctionError('view_not_found', 'not_found', `No view ${schema}.${name} exists.`, { details: { schema, name } });
    }
    this.materialized.dropped(schema, name);
    this.purgeCache({ view: { schema, name } });
    this.changed();
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    try {
      return await this.queryUnguarded(sql, options);
    } catch (e) {
      throw tooDeep(e);
    }
  }

  /**
   * What a statement would return and which parameter types it takes, as binding inferred them
   * (a `$1` compared with an int column is an int), without contacting a source: what a
   * PostgreSQL client's Describe asks. Grants are checked as for a query.
   */
  describe(sql: string, options: Pick<QueryOptions, 'access' | 'searchPath'> = {}): DescribeResult {
    try {
      this.checkOpen();
      const prepared = this.prepare(sql, options);
      return { columns: prepared.columns, paramTypes: prepared.paramTypes };
    } catch (e) {
      throw tooDeep(e);
    }
  }

  async explain(sql: string, options: QueryOptions & { analyze?: boolean } = {}): Promise<ExplainResult> {
    try {
      return await this.explainUnguarded(sql, options);
    } catch (e) {
      throw tooDeep(e);
    }
  }

  private async queryUnguarded(sql: string, options: QueryOptions): Promise<QueryResult> {
    this.checkOpen();
    const prepared = this.prepare(sql, options);
    const params = coerceParams(options.params ?? [], prepared.paramTypes);
    // the grants were checked by prepare (binding): the cache is consulted only after them
    const policy = this.cachePolicy(sql, prepared, options);
    const key = policy && resultKey(sql, params, options.searchPath, prepared.references, prepared.engine);
    const engine = engineStats(prepared);
    if (policy && key) {
      const hit = this.results.lookup(key, 1000 * (policy.maxStalenessSeconds ?? policy.ttlSeconds));
      if (hit) return cachedResult(randomUUID(), hit, prepared.columns, options, engine);
    }
    const { run } = await this.start(prepared, params, options);
    const result: QueryResult = {
      id: randomUUID(),
      columns: prepared.columns,
      rows: run.rows(),
      stats: () => ({ ...run.stats(), cache: 'off', ...engine }),
      cancel: (reason?: string) => run.cancel(reason),
    };
    if (!policy || !key) return result;
    const label = sql.length > 500 ? `${sql.slice(0, 500)}…` : sql;
    return recordedResult(result, this.results.record(key, label, policy.ttlSeconds * 1000, this.dependencies(prepared)));
  }

  private cachePolicy(sql: string, prepared: Prepared, options: QueryOptions): CachePolicy | undefined {
    return cachePolicyOf(sql, prepared.references, options, (schema, name) => this.materialized.definition(schema, name));
  }

  /** What a prepared statement's result depends on (computed once: prepared plans are immutable). */
  private readonly deps = new WeakMap<Prepared, CacheDeps>();
  private dependencies(prepared: Prepared): CacheDeps {
    let d = this.deps.get(prepared);
    if (!d) this.deps.set(prepared, (d = dependenciesOf(prepared.references, this.catalog)));
    return d;
  }

  /** The remote statements of a plan that the fragment cache would answer now. */
  private cachedFragments(root: Operator): { source: string; sql: string; ageMs: number }[] {
    const out: { source: string; sql: string; ageMs: number }[] = [];
    const walk = (op: Operator): void => {
      if (op instanceof RemoteScanOp) {
        const ageMs = this.fragments.ageMs(op.source, op.query, op.rendered);
        if (ageMs !== undefined) out.push({ source: op.source, sql: op.rendered.sql, ageMs });
      }
      op.children.forEach(walk);
    };
    walk(root);
    return out;
  }

  /** Hits, misses, bytes, entries and evictions of the result and fragment caches. */
  cacheStats(): { results: CacheCounters; fragments: CacheCounters } {
    return { results: this.results.stats(), fragments: this.fragmentStore.stats() };
  }

  cacheEntries(): { results: CacheEntryInfo[]; fragments: CacheEntryInfo[] } {
    return { results: this.results.list(), fragments: this.fragmentStore.list() };
  }

  /** Drops stored results and fragments: all, or those that read a source or a view. Returns how many. */
  purgeCache(scope: CachePurge = {}): number {
    if ('source' in scope) return this.results.purge({ source: scope.source }) + this.fragmentStore.purge({ source: scope.source });
    if ('view' in scope) return this.results.purge({ view: `${scope.view.schema}.${scope.view.name}` });
    return this.results.purge() + this.fragmentStore.purge();
  }

  /** New budgets; what no longer fits is evicted at once. */
  configureCache(options: CacheOptions): void {
    this.results.configure({
      ...(options.maxMemoryBytes !== undefined ? { maxMemoryBytes: options.maxMemoryBytes } : {}),
      ...(options.maxDiskBytes !== undefined ? { maxDiskBytes: options.maxDiskBytes } : {}),
    });
    if (options.fragmentMemoryBytes !== undefined) this.fragmentStore.configure({ maxMemoryBytes: options.fragmentMemoryBytes });
  }

  private async explainUnguarded(sql: string, options: QueryOptions & { analyze?: boolean }): Promise<ExplainResult> {
    this.checkOpen();
    const prepared = this.prepare(sql, options);
    const params = coerceParams(options.params ?? [], prepared.paramTypes);
    // a query that named no engine and runs in Junction as always: nothing worth a line above its plan
    const usual = prepared.choice?.engine === 'local' && prepared.choice.reason === DEFAULT_ENGINE_REASON;
    const engineLine = prepared.choice && !usual ? [`Engine: ${prepared.choice.engine} (${prepared.choice.reason})`] : [];
    const engineField = prepared.choice ? { engine: prepared.choice } : {};
    if (!options.analyze) {
      const physical = this.physical(prepared.plan, params, new Map(), options, prepared.columns, prepared.backend);
      const plan = buildExplain(physical.root, { remotePlans: await this.backendPlans(physical.root, prepared.backend) });
      const policy = this.cachePolicy(sql, prepared, options);
      const hit =
        policy &&
        this.results.lookup(resultKey(sql, params, options.searchPath, prepared.references, prepared.engine), 1000 * (policy.maxStalenessSeconds ?? policy.ttlSeconds), { count: false });
      const notes = [
        ...engineLine,
        ...this.materialized.inUse(this.dependencies(prepared).views, this.catalog).map((m) => `Materialized view ${m.view} read from its stored rows, refreshed ${Math.floor(m.ageMs / 1000)} s ago`),
        ...this.cachedFragments(physical.root).map((f) => `Fragment ${f.source}: ${f.sql} served from cache, ${Math.floor(f.ageMs / 1000)} s old`),
      ];
      const text = [...(hit ? [`Served from cache, ${Math.floor(hit.ageMs / 1000)} s old`] : []), ...notes, explainText(plan)].join('\n');
      return { plan, text, ...(hit ? { cache: { ageMs: hit.ageMs } } : {}), ...engineField };
    }
    const { run } = await this.start(prepared, params, options);
    for await (const _ of run.rows()) {
      // EXPLAIN ANALYZE runs the query to the end and discards the rows
    }
    const plan = buildExplain(run.root, { analyze: true, statements: run.ctx.statements, remotePlans: await this.backendPlans(run.root, prepared.backend) });
    return { plan, text: [...engineLine, explainText(plan)].join('\n'), ...engineField };
  }

  /**
   * The backend's own plan of each statement the plan sends it, for EXPLAIN. A backend that
   * cannot explain one says why in its place: the rest of the plan is still worth showing.
   */
  private async backendPlans(root: Operator, backend: ExecutionBackend | undefined): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    const explain = backend && explainerOf(backend);
    if (!backend || !explain) return out;
    const ops: RemoteScanOp[] = [];
    const walk = (op: Operator): void => {
      if (op instanceof RemoteScanOp && op.source === backend.name) ops.push(op);
      op.children.forEach(walk);
    };
    walk(root);
    await Promise.all(
      ops.map(async (op) => {
        try {
          out.set(op.id, await explain(op.rendered));
        } catch (e) {
          out.set(op.id, `(${backend.name} could not explain this statement: ${e instanceof Error ? e.message : String(e)})`);
        }
      }),
    );
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.results.clear();
    this.fragmentStore.clear();
    if (!this.options.cache?.dir) rmSync(this.cacheDir, { recursive: true, force: true });
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
  }

  /** Parse, bind and optimize, or reuse the plan of an earlier run of the same SQL. */
  private prepare(sql: string, options: QueryOptions): Prepared {
    // a materialization that turned stale (or fresh) since the last query changes the catalog
    if (this.materialized.apply(this.catalog)) this.changed();
    const pushdown = options.pushdown ?? true;
    const requested = requestedEngine(sql, options.engine, this.backend);
    // an access policy is checked while binding: a plan is reused only under a policy that
    // decides alike (the same key), otherwise such queries bind afresh
    const access = options.access;
    const cacheable = access === undefined || access.key !== undefined;
    // the request's wording is in the key: the plan carries the reason shown for its engine
    const budget = options.memoryBudgetBytes ?? this.options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET;
    const key = `${this.version}\u0000${pushdown ? 1 : 0}\u0000${requested.engine}\u0001${requested.why}\u0001${requested.engine === 'auto' ? budget : ''}\u0000${access ? `\u0002${access.key}` : ''}\u0000${(options.searchPath ?? []).join('\u0001')}\u0000${sql}`;
    if (cacheable) {
      const hit = this.cache.get(key);
      if (hit) {
        this.cache.delete(key);
        this.cache.set(key, hit);
        return hit;
      }
    }
    // grants are checked and views expanded here, whichever engine runs the plan: a backend
    // only ever receives what this caller may read, and never a view's name
    const bound = bind(sql, this.catalog, { searchPath: options.searchPath, access: options.access });
    const planned = this.planFor(bound.plan, pushdown, requested, budget);
    const sources = bound.sources;
    const backendName = planned.backend?.name;
    const prepared: Prepared = {
      plan: planned.plan,
      columns: bound.columns,
      paramTypes: bound.paramTypes,
      references: dedupe(bound.references),
      // the backend reads, for this statement, exactly the sources binding admitted
      ...(access ? { authority: { canReadSource: (s: string) => sources.has(s) || s === backendName } } : {}),
      readsThroughView: bound.readsThroughView,
      engine: planned.engine,
      ...(planned.backend ? { backend: planned.backend } : {}),
      ...(planned.choice ? { choice: planned.choice } : {}),
    };
    if (cacheable) {
      this.cache.set(key, prepared);
      if (this.cache.size > PLAN_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    }
    return prepared;
  }

  /**
   * The optimized plan for the engine asked for. `auto` plans locally first and picks the backend
   * only when that plan would both fetch more rows than the backend's threshold and hold more
   * than the query's memory budget (so it would spill): measured at SF 1 on one node, the rows
   * fetched alone did not predict a win (bench/trino.ts), a spilling plan did.
   */
  private planFor(
    bound: LogicalPlan,
    pushdown: boolean,
    requested: RequestedEngine,
    budget: number,
  ): { plan: LogicalPlan; engine: string; backend?: ExecutionBackend; choice?: EngineChoice } {
    const backend = this.backend;
    const shown = backend !== undefined || requested.explicit;
    const local = (reason: string) => {
      const plan = optimize(bound, this.optimizeInput(pushdown));
      return { plan, engine: 'local', ...(shown ? { choice: { engine: 'local', reason } } : {}) };
    };
    if (requested.engine === 'local') return local(requested.why);
    if (!backend) return local(`${requested.why} (auto), but no other engine is configured`);
    let why = requested.why;
    if (requested.engine === 'auto') {
      const input = this.optimizeInput(pushdown);
      const plan = optimize(bound, input);
      const threshold = backend.autoRowsThreshold ?? DEFAULT_AUTO_ROWS;
      const fetched = estimateRowsFetched(plan, input);
      const memory = estimateLocalMemory(plan, input);
      why = autoReason({ fetched, threshold, memory, budget }, backend.name);
      if (fetched <= threshold || memory <= spillLine(budget)) return { plan, engine: 'local', choice: { engine: 'local', reason: why } };
    }
    // pushdown: false keeps Junction from pushing into sources; a query run on the backend is
    // the backend's to plan, so everything it can read is sent to it whole
    const input = this.optimizeInput(true, backend);
    const plan = optimize(bound, input);
    const outcome = backendOutcome(plan, input.backend!, why);
    return { plan, engine: outcome.engine, ...(outcome.engine === backend.name ? { backend } : {}), choice: outcome };
  }

  private inputs = new Map<string, OptimizeInput>();
  private optimizeInput(pushdown: boolean, backend?: ExecutionBackend): OptimizeInput {
    const k = `${pushdown ? 'on' : 'off'}${backend ? ' backend' : ''}`;
    let input = this.inputs.get(k);
    if (!input) {
      const sources = sourcesFromRegistered([...this.sources.values()]);
      // the backend is a source for the optimizer: its capabilities decide what it is sent
      if (backend) sources.set(backend.name, { capabilities: backend.connector.capabilities() });
      input = { sources, options: { pushdown }, ...(backend ? { backend: routingOf(backend, this.sources.values()) } : {}) };
      this.inputs.set(k, input);
    }
    return input;
  }

  private physical(
    plan: LogicalPlan,
    params: readonly Value[],
    subqueries: ReadonlyMap<LogicalPlan, Value>,
    options: QueryOptions,
    columns?: readonly ColumnMeta[],
    backend?: ExecutionBackend,
  ): PhysicalPlan {
    const input = this.optimizeInput(options.pushdown ?? true);
    return planPhysical(plan, {
      sources: backend ? new Map<string, { readonly connector: Connector }>([...this.sources, [backend.name, backend]]) : this.sources,
      ...(backend ? { backend: { name: backend.name, tableName: backendTableNaming(backend) } } : {}),
      params,
      compiler: makeCompiler(params, subqueries),
      estimate: (p) => this.estimate(p, input),
      renderCache: this.renderCache,
      dependentSwitchKeys: DEPENDENT_SWITCH_KEYS,
      ...(columns ? { outputNames: columns.map((c) => c.name) } : {}),
    });
  }

  private readonly renderCache = new RenderCache();

  /** Estimates per plan node, computed once: prepared plans are immutable and reused. */
  private readonly estimates = new WeakMap<LogicalPlan, number>();
  private estimate(p: LogicalPlan, input: OptimizeInput): number | undefined {
    if (p.kind !== 'Remote' && p.kind !== 'Join' && p.kind !== 'Aggregate' && p.kind !== 'Scan') return undefined;
    let v = this.estimates.get(p);
    if (v === undefined) {
      v = estimateRows(p, input);
      this.estimates.set(p, v);
    }
    return v;
  }

  private async start(prepared: Prepared, params: readonly Value[], options: QueryOptions): Promise<{ run: QueryRun; physical: PhysicalPlan }> {
    const controller = new AbortController();
    const cleanups: (() => void)[] = [];
    if (options.signal) {
      const outer = options.signal;
      // a cancel that says why (who cancelled it, a shutdown) keeps its words
      const onAbort = (): void =>
        controller.abort(
          outer.reason instanceof JunctionError && outer.reason.kind === 'cancelled'
            ? outer.reason
            : new JunctionError('query_cancelled', 'cancelled', 'The query was cancelled.', { cause: outer.reason }),
        );
      if (outer.aborted) onAbort();
      else {
        outer.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => outer.removeEventListener('abort', onAbort));
      }
    }
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs;
      const timer = setTimeout(
        () => controller.abort(new JunctionError('query_timeout', 'timeout', `The query ran longer than its ${ms} ms timeout and was stopped.`, { details: { timeoutMs: ms } })),
        ms,
      );
      cleanups.push(() => clearTimeout(timer));
    }
    const budget = options.memoryBudgetBytes ?? this.options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET;
    const ctx: ExecContext = {
      signal: controller.signal,
      memory: new MemoryTracker(budget),
      statements: [],
      startedAt: performance.now(),
      spillDir: this.spillDir,
      disk: new DiskTracker(this.options.maxSpillBytes ?? DEFAULT_MAX_SPILL),
      batchSize: BATCH_SIZE,
      batchBytes: Math.min(BATCH_BYTES, Math.max(64 * 1024, Math.floor(budget / BATCH_BUDGET_SHARE))),
      workers: this.workers(),
      fragments: this.fragments,
      ...(prepared.authority ? { access: prepared.authority } : {}),
      ...(prepared.readsThroughView ? { readsThroughView: true } : {}),
      ...(prepared.backend ? { backendFailure: backendFailureHook(prepared.backend, () => this.sources.keys(), controller.signal) } : {}),
    };
    const cleanup = (): void => {
      for (const c of cleanups) c();
      cleanups.length = 0;
    };
    try {
      const subqueries = await this.runSubqueries(prepared.plan, params, ctx, options);
      const physical = this.physical(prepared.plan, params, subqueries, options, prepared.columns, prepared.backend);
      return { run: new QueryRun(physical.root, ctx, controller, { maxRows: options.maxRows }, cleanup), physical };
    } catch (e) {
      cleanup();
      throw shielded(toJunctionError(e, controller.signal), ctx);
    }
  }

  /** Uncorrelated scalar subqueries run once, before the main plan, and become constants. */
  private async runSubqueries(plan: LogicalPlan, params: readonly Value[], ctx: ExecContext, options: QueryOptions): Promise<Map<LogicalPlan, Value>> {
    const found: LogicalPlan[] = [];
    collectSubqueries(plan, found);
    const values = new Map<LogicalPlan, Value>();
    for (const sub of found) {
      const inner = await this.runSubqueries(sub, params, ctx, options);
      const physical = this.physical(sub, params, inner, options);
      const rows = await collect(physical.root.execute(ctx));
      if (rows.length > 1) throw subqueryRowsError();
      values.set(sub, rows.length === 0 ? null : rows[0][0]);
    }
    return values;
  }

  private workers(): WorkerPool | undefined {
    if (this.options.workers === 0) return undefined;
    this.pool ??= new WorkerPool(this.options.workers);
    return this.pool;
  }

  private requireSource(name: string): RegisteredSource {
    const s = this.catalog.getSource(name);
    if (!s) throw new JunctionError('source_not_found', 'not_found', `No source named "${name}" is registered.`, { details: { source: name } });
    return s;
  }

  private changed(): void {
    this.version++;
    this.cache.clear();
    this.inputs = new Map();
  }

  private checkOpen(): void {
    if (this.closed) throw new JunctionError('engine_closed', 'internal', 'The engine was closed.');
  }
}

/** What a query's stats say about its engine: always which one ran, and why when there was a choice. */
function engineStats(prepared: Prepared): { engine: string; engineReason?: string } {
  return { engine: prepared.engine, ...(prepared.choice ? { engineReason: prepared.choice.reason } : {}) };
}

/** The backend's EXPLAIN of a statement: its own hook, else a connector that offers one (Trino's explainDistributed). */
function explainerOf(backend: ExecutionBackend): ((q: RenderedQuery) => Promise<string>) | undefined {
  if (backend.explain) return (q) => backend.explain!(q);
  const c = backend.connector as Connector & { explainDistributed?: (sql: string) => Promise<string> };
  const fn = c.explainDistributed;
  return typeof fn === 'function' ? (q) => fn.call(c, q.sql) : undefined;
}

function dedupe(refs: readonly RelationReference[]): RelationReference[] {
  const seen = new Map<string, RelationReference>();
  for (const r of refs) seen.set(JSON.stringify(r), r);
  return [...seen.values()];
}

function collectSubqueries(plan: LogicalPlan, out: LogicalPlan[]): void {
  if (plan.kind === 'Remote') return;
  const visit = (e: Expr | undefined): void => {
    if (!e) return;
    switch (e.kind) {
      case 'subquery':
        out.push(e.plan);
        return;
      case 'call':
        e.args.forEach(visit);
        return;
      case 'in':
        visit(e.expr);
        e.list.forEach(visit);
        return;
      case 'case':
        visit(e.operand);
        for (const w of e.whens) {
          visit(w.when);
          visit(w.then);
        }
        visit(e.else);
        return;
      case 'cast':
        visit(e.expr);
        return;
      default:
        return;
    }
  };
  switch (plan.kind) {
    case 'Filter':
      visit(plan.predicate);
      break;
    case 'Project':
      plan.exprs.forEach((x) => visit(x.expr));
      break;
    case 'Join':
      visit(plan.condition);
      break;
    case 'MarkJoin':
      visit(plan.condition);
      visit(plan.compare);
      break;
    case 'Aggregate':
      plan.groupBy.forEach((g) => visit(g.expr));
      plan.aggregates.forEach((a) => {
        a.args.forEach(visit);
        visit(a.filter);
      });
      break;
    case 'Sort':
      plan.keys.forEach((k) => visit(k.expr));
      break;
    case 'Window':
      plan.windows.forEach((w) => {
        w.args.forEach(visit);
        w.partitionBy.forEach(visit);
        w.orderBy.forEach((k) => visit(k.expr));
      });
      break;
    case 'Values':
      plan.rows.forEach((r) => r.forEach(visit));
      break;
    default:
      break;
  }
  for (const c of children(plan)) collectSubqueries(c, out);
}

/**
 * Parsing, binding, optimizing and compiling all recurse over the expression tree, so a
 * statement nested deeply enough exhausts the stack wherever it happens to be walked first.
 */
function tooDeep(e: unknown): unknown {
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new JunctionError('statement_too_complex', 'user', 'the statement nests too deeply; simplify it');
  }
  return e;
}
