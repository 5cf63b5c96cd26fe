import {
  JunctionError,
  type Batch,
  type Connector,
  type ExecuteOptions,
  type RenderedQuery,
  type Row,
  type ColumnMeta,
  type SourceConfig,
  type StreamOptions,
  type Value,
} from '@junction/connectors';
import type { Principal } from '../plugins/auth.js';

/**
 * The one place where SQL meets a source. Every connector Junction opens is opened here, and
 * every statement it runs passes a check that names who it runs for:
 *
 * - the engine's statements (federated fragments, key fetches, EXPLAIN ANALYZE, cache fills,
 *   designer previews, exports, view runs) carry the authority binding gave them under the
 *   caller's access policy (the sources the statement reads, through its granted views too), and
 *   a stream without one, or for a source outside it, is refused;
 * - native SQL (the benchmark lab's direct targets) needs the admin permission or a `native`
 *   grant on the source, and runs read-only where the engine has a switch for it;
 * - Junction's own probes (version, settings, activity) run only on sources the caller may read;
 * - loading data replaces tables, so it needs the admin permission;
 * - the system itself (registering a source, start-up, the materialized-view store) opens
 *   connectors that run no native SQL of anyone's (execute is refused); the engine's streams on
 *   them need a statement's authority like any other.
 *
 * The lint rule in eslint.config.js keeps connectorFactory and createConnector out of every
 * other module of the API, so a new path cannot bypass this one.
 */

export type ConnectorFactory = (config: SourceConfig) => Connector | Promise<Connector>;

export const defaultConnectorFactory: ConnectorFactory = async (config) => {
  const { createConnector } = await import('@junction/connectors');
  return createConnector(config);
};

/** Work the server does on its own account: it never runs a statement a user wrote. */
export type SystemPurpose = 'startup' | 'registration' | 'store';

/** What the gate needs to know of grants, kept behind an interface so the gate has no database. */
export interface GrantLookup {
  /** true when the principal may send the source's own dialect to it (admin or a `native` grant) */
  mayRunNative(p: Principal, source: string): Promise<boolean>;
  /** true when the principal's grants let it read the source */
  mayReadSource(p: Principal, source: string): Promise<boolean>;
}

export interface Refusal {
  readonly principal: Principal | null;
  readonly source: string;
  readonly path: 'stream' | 'execute' | 'native' | 'probe' | 'load';
  readonly code: string;
}

/** Fixed statements Junction sends to learn about a source; no user text reaches them. */
const PROBES = {
  version: {
    postgresql: 'SELECT version()',
    mysql: 'SELECT version()',
    sqlite: 'SELECT sqlite_version()',
    sqlserver: 'SELECT @@VERSION',
  },
  settings: {
    postgresql: `SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers','work_mem','max_connections','effective_cache_size')`,
    mysql: `SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ('INNODB_BUFFER_POOL_SIZE','MAX_CONNECTIONS','THREAD_HANDLING')`,
  },
  // what a source says about its own load: active statements (PostgreSQL), running threads (MySQL/MariaDB)
  activity: {
    postgresql: `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND datname = current_database()`,
    mysql: `SELECT VARIABLE_VALUE AS n FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_RUNNING'`,
  },
} as const;
export type ProbeKind = keyof typeof PROBES;

type ExecuteResult = { rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] };

function refused(code: string, message: string, source: string): JunctionError {
  return new JunctionError(code, 'forbidden', message, { details: { source } });
}

/**
 * A connector whose statements pass the gate. Metadata calls (capabilities, render, test,
 * probe, introspect) run no caller's SQL and pass through; execute and stream are checked.
 */
class GatedConnector implements Connector {
  constructor(
    readonly inner: Connector,
    private readonly gate: SourceGate,
    /** what execute may do on this connector: nothing, read-only native SQL, or anything (loading) */
    private readonly executes: 'none' | 'read-only' | 'any',
    private readonly principal: Principal | null,
    /**
     * The materialized-view store is read for views, not as a source: the engine decided from the
     * view's grant, so a stream there needs a policy but not a grant on the store.
     */
    private readonly readsForViews = false,
  ) {}
  get name(): string {
    return this.inner.name;
  }
  get engine(): Connector['engine'] {
    return this.inner.engine;
  }
  get onHealth(): Connector['onHealth'] {
    return this.inner.onHealth;
  }
  set onHealth(f: Connector['onHealth']) {
    this.inner.onHealth = f;
  }
  capabilities(): ReturnType<Connector['capabilities']> {
    return this.inner.capabilities();
  }
  render(...args: Parameters<Connector['render']>): ReturnType<Connector['render']> {
    return this.inner.render(...args);
  }
  test(): ReturnType<Connector['test']> {
    return this.inner.test();
  }
  probe(): ReturnType<Connector['probe']> {
    return this.inner.probe();
  }
  introspect(): ReturnType<Connector['introspect']> {
    return this.inner.introspect();
  }
  async execute(sql: string, params: readonly Value[] = [], options: ExecuteOptions = {}): Promise<ExecuteResult> {
    if (this.executes === 'none') {
      throw this.gate.refuse(
        { principal: this.principal, source: this.name, path: 'execute', code: 'source_statement_refused' },
        'This connection runs no native SQL: statements reach a source through a query, the benchmark lab or the loader.',
      );
    }
    return this.inner.execute(sql, params, this.executes === 'read-only' ? { ...options, readOnly: true } : options);
  }
  bulkLoad(...args: Parameters<Connector['bulkLoad']>): ReturnType<Connector['bulkLoad']> {
    // the materialized-view store's own connector: the materializer loads its tables through it
    if (this.executes !== 'any' && !this.readsForViews) {
      throw this.gate.refuse(
        { principal: this.principal, source: this.name, path: 'load', code: 'source_statement_refused' },
        'Only the data loader writes to a source.',
      );
    }
    return this.inner.bulkLoad(...args);
  }
  stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const access = options.access;
    if (!access || (!this.readsForViews && !access.canReadSource(this.name))) {
      const error = this.gate.refuse(
        { principal: this.principal, source: this.name, path: 'stream', code: 'source_forbidden' },
        access
          ? `You have no grant to read the source "${this.name}".`
          : `A statement for "${this.name}" came without the caller's access policy and was not sent.`,
      );
      return {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
      };
    }
    return this.inner.stream(query, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A native session on one source for one principal: read-only statements with cancel and timeout. */
export interface NativeSession {
  execute(
    sql: string,
    params: readonly Value[],
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<ExecuteResult>;
  close(): Promise<void>;
}

export interface ProbeSession {
  /** whether the source's engine has this probe */
  has(kind: ProbeKind): boolean;
  run(kind: ProbeKind, options?: { timeoutMs?: number }): Promise<Row[] | null>;
  close(): Promise<void>;
}

export class SourceGate {
  /** told of every refusal (the engine plugin writes it to the audit log) */
  onRefusal: (r: Refusal, message: string) => void = () => undefined;
  /**
   * Where a source may point (JUNCTION_SOURCE_ALLOW and the data directory, lib/source-allow.ts):
   * checked before every connection a source's settings open, so a source stored before the rules
   * changed is not contacted either. Junction's own store is not a source's setting.
   */
  allow: { check(config: SourceConfig): Promise<void> } = { check: async () => undefined };
  /**
   * What every source's config becomes before its connector opens: file and document sources get
   * the server's JUNCTION_FILE_ROOTS and JUNCTION_URL_HOSTS (lib/file-access.ts), never their own.
   */
  configure: (config: SourceConfig) => SourceConfig = (config) => config;

  constructor(
    private readonly factory: ConnectorFactory,
    private readonly grants: GrantLookup,
    /** sources no principal reaches by name (Junction's own stores) */
    private readonly internal: ReadonlySet<string>,
  ) {}

  refuse(r: Refusal, message: string): JunctionError {
    this.onRefusal(r, message);
    return refused(r.code, message, r.source);
  }

  /**
   * A connector for the server's own bookkeeping: registration (test, probe, introspect), the
   * engine's connector at start-up (its streams are checked against each query's policy) and the
   * materialized-view store. It runs no native SQL.
   */
  async system(config: SourceConfig, purpose: SystemPurpose): Promise<Connector> {
    if (purpose !== 'store') await this.allow.check(config);
    return new GatedConnector(await this.factory(this.configure(config)), this, 'none', null, purpose === 'store');
  }

  /**
   * A connector for an admin trying a source's settings before registering them (the form's live
   * preview): nothing is stored, and its streams read that source only, for that admin.
   */
  async preview(p: Principal, config: SourceConfig): Promise<{ connector: Connector; access: StreamOptions['access'] }> {
    if (!p.permissions.has('admin') || this.internal.has(config.name.toLowerCase())) {
      throw this.refuse(
        { principal: p, source: config.name, path: 'probe', code: 'forbidden' },
        "Previewing a source's settings reads what they point at, so it needs the admin permission.",
      );
    }
    await this.allow.check(config);
    const connector = new GatedConnector(await this.factory(this.configure(config)), this, 'none', p);
    const name = config.name;
    return { connector, access: { canReadSource: (source) => source === name } };
  }

  /**
   * The execution backend (Trino) queries may run on. Its streams pass the gate like a source's:
   * each carries the statement's authority, which names the backend when binding admitted every
   * source the statement reads through it. It runs no native SQL; `explain` is the backend's own
   * plan of a statement the engine planned (EXPLAIN reads no rows), when the connector has one.
   */
  async backend(config: SourceConfig): Promise<{
    connector: Connector;
    explain?: (sql: string) => Promise<string>;
    checkCatalog?: (catalog: string, signal?: AbortSignal) => Promise<void>;
  }> {
    // no allow-list check: the backend is the operator's setting (JUNCTION_TRINO_URL), not a source's
    const inner = await this.factory(config);
    const explain = (inner as { explainDistributed?: (sql: string) => Promise<string> }).explainDistributed;
    const check = (inner as { checkCatalog?: (catalog: string, o: { signal?: AbortSignal }) => Promise<void> }).checkCatalog;
    return {
      connector: new GatedConnector(inner, this, 'none', null),
      ...(typeof explain === 'function' ? { explain: (sql: string) => explain.call(inner, sql) } : {}),
      ...(typeof check === 'function' ? { checkCatalog: (catalog: string, signal?: AbortSignal) => check.call(inner, catalog, { signal }) } : {}),
    };
  }

  /**
   * The server's own statements on the backend (CREATE and DROP CATALOG, SHOW SCHEMAS) that put
   * the sources in its catalogs: bookkeeping no route and no principal reaches.
   */
  async backendAdmin(config: SourceConfig): Promise<{ execute(sql: string): Promise<{ rows: Row[] }>; close(): Promise<void> }> {
    const inner = await this.factory(config);
    return { execute: async (sql) => ({ rows: [...(await inner.execute(sql)).rows] }), close: () => inner.close() };
  }

  /**
   * Native SQL of a principal on a source: the admin permission or a `native` grant, read-only.
   * The caller opens one session per run and closes it.
   */
  async native(p: Principal, source: string, config: () => Promise<SourceConfig>): Promise<NativeSession> {
    if (this.internal.has(source.toLowerCase()) || !(await this.grants.mayRunNative(p, source))) {
      throw this.refuse(
        { principal: p, source, path: 'native', code: 'native_forbidden' },
        `Sending "${source}" its own SQL needs the admin permission or a native grant on that source.`,
      );
    }
    const cfg = this.configure(await config());
    await this.allow.check(cfg);
    const c = new GatedConnector(await this.factory(cfg), this, 'read-only', p);
    return {
      execute: (sql, params, o) => c.execute(sql, params, { readOnly: true, ...o }),
      close: () => c.close(),
    };
  }

  /** Junction's fixed probes, on a source the principal may read; a probe the engine has none of answers null. */
  async probe(p: Principal, source: string, config: () => Promise<SourceConfig>): Promise<ProbeSession> {
    if (this.internal.has(source.toLowerCase()) || !(await this.grants.mayReadSource(p, source))) {
      throw this.refuse(
        { principal: p, source, path: 'probe', code: 'source_forbidden' },
        `You have no grant to read the source "${source}".`,
      );
    }
    const cfg = this.configure(await config());
    await this.allow.check(cfg);
    let c: Promise<Connector> | undefined;
    const sqlOf = (kind: ProbeKind): string | undefined =>
      (PROBES[kind] as Partial<Record<string, string>>)[cfg.engine];
    return {
      has: (kind) => sqlOf(kind) !== undefined,
      run: async (kind, options = {}) => {
        const sql = sqlOf(kind);
        if (!sql) return null;
        c ??= Promise.resolve(this.factory({ ...cfg, options: { ...cfg.options, pool: { max: 1 } } }));
        return (await (await c).execute(sql, [], { readOnly: true, ...options })).rows;
      },
      close: async () => {
        await (await c?.catch(() => undefined))?.close();
      },
    };
  }

  /** The data loader: creates and fills tables, so it needs the admin permission. */
  async loader(p: Principal, source: string, config: () => Promise<SourceConfig>): Promise<Connector> {
    if (!p.permissions.has('admin') || this.internal.has(source.toLowerCase())) {
      throw this.refuse(
        { principal: p, source, path: 'load', code: 'forbidden' },
        'Loading data replaces tables in a source, so it needs the admin permission.',
      );
    }
    const cfg = this.configure(await config());
    await this.allow.check(cfg);
    return new GatedConnector(await this.factory(cfg), this, 'any', p);
  }
}
