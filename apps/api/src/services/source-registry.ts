import { createHash, randomUUID } from 'node:crypto';
import {
  JunctionError,
  isJunctionError,
  type CatalogSnapshot,
  type ConnectionDiagnosis,
  type Connector,
  type EngineName,
  type SourceConfig,
  type SourceSemantics,
} from '@junction/connectors';
import type { FragmentCachePolicy } from '@junction/query-core';
import type { Db } from '../db/client.js';
import type { Source } from '../generated/prisma/client.js';
import type { Admission } from '../lib/admission.js';
import { notFound } from '../lib/errors.js';
import { checkDocumentHeaders, checkHeadersFollowUrls } from '../lib/file-source-options.js';
import type { JunctionLimits } from '../lib/limits.js';
import type { SecretBox } from '../lib/secrets.js';
import { SharedConnector, SourceShare } from '../lib/source-share.js';
import { STORE_SOURCE } from './internal-sources.js';
import type { BackgroundLog, EngineLike } from './junction.js';
import type { SourceGate } from './source-gate.js';

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

/** Error codes that mean the source could not be reached at all (not that a statement failed on it). */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['source_unavailable']);

interface Live {
  connector: Connector;
  catalog: CatalogSnapshot;
  semantics?: SourceSemantics;
  /** the source's consent to reuse its fragments' results (source option fragmentCache) */
  fragmentCache?: FragmentCachePolicy;
  /** of the row this mirrors (fingerprintOf): another server's change is applied only when it differs */
  fingerprint?: string;
}

/** What of a source's row the engine and its connector are built from (not its status). */
function fingerprintOf(row: Source): string {
  const parts = [row.engine, row.host, row.port, row.database, row.user, row.file, row.passwordEncrypted, row.options];
  return createHash('sha256')
    .update(JSON.stringify([...parts, row.catalog, row.semantics]))
    .digest('hex');
}

/** The fragmentCache source option, as the engine takes it. */
function fragmentCacheOf(options: Record<string, unknown> | undefined): FragmentCachePolicy | undefined {
  const f = options?.fragmentCache as { ttlSeconds?: unknown; tables?: unknown } | undefined;
  if (!f || typeof f.ttlSeconds !== 'number' || f.ttlSeconds <= 0) return undefined;
  return Array.isArray(f.tables)
    ? { ttlSeconds: f.ttlSeconds, tables: f.tables.map(String) }
    : { ttlSeconds: f.ttlSeconds };
}

/**
 * The registered sources: their rows are the truth, and this mirrors them into the engine, one
 * connector each (opened through the source gate), behind the source's share of the query slots,
 * with each source's health written back to its row.
 */
export class SourceRegistry {
  /** each registered source's share of the query slots, by source name */
  readonly shares = new Map<string, SourceShare>();
  readonly #live = new Map<string, Live>();
  /**
   * told after the engine's set of sources changed (one added, swapped or removed, here or by
   * another server's announcement): the Trino backend places the source in a catalog of its own
   */
  readonly changed = new Set<(name: string) => void>();
  /** schemas of a source no catalog shows (lower-cased source name → schema names): Junction's own store in it */
  readonly #hidden = new Map<string, Set<string>>();
  /** when a query last reported each source reachable (noteSourcesReached) */
  readonly #reachedAt = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly limits: JunctionLimits,
    private readonly admission: Admission,
    private readonly gate: SourceGate,
    private readonly engine: () => Promise<EngineLike>,
    /** told when sources change, so access policies are read again */
    private readonly onChange: () => void,
    private readonly log: () => BackgroundLog,
    /** tells the other servers sharing the metadata database that this source's row changed */
    private readonly announce: (name: string) => Promise<void> = async () => undefined,
  ) {}

  /**
   * Keeps a schema of a source out of its catalog: the materialized-view store placed in a
   * registered source (JUNCTION_MV_STORE) holds every view's rows, which the source's readers
   * must not reach without the views' own grants. Set before start(); applied to stored
   * catalogs and to every introspection.
   */
  hideSchema(source: string, schema: string): void {
    const key = source.toLowerCase();
    const set = this.#hidden.get(key) ?? new Set<string>();
    set.add(schema.toLowerCase());
    this.#hidden.set(key, set);
  }

  #changed(name: string): void {
    this.onChange();
    for (const listener of this.changed) listener(name);
  }

  #visible(source: string, catalog: CatalogSnapshot): CatalogSnapshot {
    const hidden = this.#hidden.get(source.toLowerCase());
    if (!hidden) return catalog;
    return { ...catalog, tables: catalog.tables.filter((t) => !hidden.has(t.schema.toLowerCase())) };
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
      void update.catch((err: unknown) => this.log().error({ err, source: name }, 'could not record source health'));
    };
    return new SharedConnector(connector, share);
  }

  /** Registers stored sources without contacting any source: a source that is down fails only its queries. */
  async start(): Promise<void> {
    const engine = await this.engine();
    for (const row of await this.db.source.findMany()) {
      if (!row.catalog) continue;
      try {
        const config = this.configOf(row);
        const connector = await this.gate.system(config, 'startup');
        const live: Live = {
          connector,
          catalog: this.#visible(row.name, JSON.parse(row.catalog) as CatalogSnapshot),
          semantics: row.semantics ? JSON.parse(row.semantics) : undefined,
          fragmentCache: fragmentCacheOf(config.options),
          fingerprint: fingerprintOf(row),
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
  }

  /**
   * Mirrors one source's row as another server left it: added, swapped or removed, with the
   * catalog and semantics the row holds (no test, probe or introspection: the server that made
   * the change did them). Nothing happens when what the engine has was built from the same row.
   */
  async reload(name: string): Promise<void> {
    const row = await this.db.source.findUnique({ where: { name } });
    const live = this.#live.get(name);
    if (!row || !row.catalog) {
      if (!live) return;
      this.#changed(name);
      await (await this.engine()).removeSource(name);
      this.#live.delete(name);
      // in the background, as in #swap: the pool drains the statements still running on it
      void live.connector
        .close()
        .catch((err: unknown) => this.log().error({ err, source: name }, 'closing a removed connection pool failed'));
      return;
    }
    const fingerprint = fingerprintOf(row);
    if (live?.fingerprint === fingerprint) return;
    const config = this.configOf(row);
    const connector = await this.gate.system(config, 'startup');
    await this.#swap(name, {
      connector,
      catalog: this.#visible(row.name, JSON.parse(row.catalog) as CatalogSnapshot),
      semantics: row.semantics ? JSON.parse(row.semantics) : undefined,
      fragmentCache: fragmentCacheOf(config.options),
      fingerprint,
    });
  }

  /** Every source as the rows say now (after this server may have missed announcements). */
  async reloadAll(): Promise<void> {
    const names = new Set([
      ...this.#live.keys(),
      ...(await this.db.source.findMany({ select: { name: true } })).map((r) => r.name),
    ]);
    for (const name of names)
      await this.reload(name).catch((err: unknown) =>
        this.log().error({ err, source: name }, 'could not mirror a source'),
      );
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
    const connector = await this.gate.system(config, 'registration');
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
      const catalog = this.#visible(config.name, await connector.introspect());
      return { connector, semantics, catalog, diagnosis, fragmentCache: fragmentCacheOf(config.options) };
    } catch (e) {
      await connector.close().catch(() => undefined);
      throw e;
    }
  }

  async create(input: SourceInput, opts: { demo?: boolean } = {}): Promise<Source> {
    if (input.name.toLowerCase() === STORE_SOURCE) {
      throw new JunctionError(
        'source_name_reserved',
        'user',
        `"${STORE_SOURCE}" is Junction's own store of materialized views; choose another name.`,
        {
          details: { name: input.name },
        },
      );
    }
    if (await this.db.source.findUnique({ where: { name: input.name } })) {
      throw new JunctionError('source_exists', 'conflict', `A source named "${input.name}" already exists.`, {
        details: { name: input.name },
      });
    }
    const config: SourceConfig = { ...input, options: input.options ?? {} };
    const live = await this.#connect(config);
    let row: Source;
    try {
      row = await this.db.source.create({
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
      live.fingerprint = fingerprintOf(row);
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
      this.#changed(row.name);
    } catch (e) {
      this.#live.delete(input.name);
      await live.connector.close().catch(() => undefined);
      throw e;
    }
    await this.announce(row.name);
    return row;
  }

  async find(idOrName: string): Promise<Source> {
    const row =
      (await this.db.source.findUnique({ where: { id: idOrName } })) ??
      (await this.db.source.findUnique({ where: { name: idOrName } }));
    if (!row) throw notFound('source', idOrName);
    return row;
  }

  /**
   * Connection settings change (a rotated password, a new host): connect with the new settings
   * first, then swap the engine's source and drain the old pool, so no restart is needed and a
   * wrong new setting leaves the working one in place. A documents source's secret headers are
   * kept only while every table they go with stays on an origin they were already sent to.
   */
  async update(id: string, patch: Partial<Omit<SourceInput, 'name' | 'engine'>>): Promise<Source> {
    const row = await this.find(id);
    const merged: Source = {
      ...row,
      host: patch.host !== undefined ? patch.host : row.host,
      port: patch.port !== undefined ? patch.port : row.port,
      database: patch.database !== undefined ? patch.database : row.database,
      user: patch.user !== undefined ? patch.user : row.user,
      file: patch.file !== undefined ? patch.file : row.file,
      options: patch.options !== undefined ? JSON.stringify(patch.options) : row.options,
    };
    const stored = row.passwordEncrypted ? this.secrets.decrypt(row.passwordEncrypted) : undefined;
    const password = patch.password !== undefined ? patch.password : stored;
    if (row.engine === 'documents') {
      // before anything is fetched: the kept headers would otherwise go out with the first test
      checkDocumentHeaders(row.name, merged.options, password);
      if (patch.password === undefined) checkHeadersFollowUrls(row.name, row.options, merged.options, stored);
    }
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
    await this.#swap(updated.name, { ...live, fingerprint: fingerprintOf(updated) });
    await this.announce(updated.name);
    return updated;
  }

  async #swap(name: string, live: Live): Promise<void> {
    const engine = await this.engine();
    this.#changed(name);
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
      void old.connector
        .close()
        .catch((err: unknown) => this.log().error({ err, source: name }, 'closing a replaced connection pool failed'));
  }

  async delete(id: string): Promise<Source> {
    const row = await this.find(id);
    const live = this.#live.get(row.name);
    if (live) {
      await (await this.engine()).removeSource(row.name);
      this.#live.delete(row.name);
      await live.connector.close().catch(() => undefined);
    }
    await this.db.source.delete({ where: { id: row.id } });
    await this.db.grant.deleteMany({ where: { sourceName: row.name } });
    this.#changed(row.name);
    await this.announce(row.name);
    return row;
  }

  async test(id: string): Promise<ConnectionDiagnosis> {
    const row = await this.find(id);
    const connector = await this.gate.system(this.configOf(row), 'registration');
    try {
      const diagnosis = await connector.test();
      const status = diagnosis.ok ? 'online' : 'offline';
      const statusMessage = diagnosis.ok ? null : diagnosis.message;
      // the monitor tests every few seconds: write only what changed
      if (row.status !== status || row.statusMessage !== statusMessage)
        await this.db.source.update({ where: { id: row.id }, data: { status, statusMessage } });
      return diagnosis;
    } finally {
      await connector.close().catch(() => undefined);
    }
  }

  async refresh(id: string): Promise<Source> {
    const row = await this.find(id);
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
    await this.#swap(updated.name, { ...live, fingerprint: fingerprintOf(updated) });
    await this.announce(updated.name);
    return updated;
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
      .catch((err: unknown) => this.log().error({ err, source }, 'could not mark source offline'));
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
      .catch((err: unknown) => this.log().error({ err, sources: unique }, 'could not mark sources online'));
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.#live.values()].map((l) =>
        l.connector
          .close()
          .catch((err: unknown) => this.log().error({ err, source: l.connector.name }, 'source did not close cleanly')),
      ),
    );
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
