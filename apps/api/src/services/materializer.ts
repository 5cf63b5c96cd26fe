import { randomBytes } from 'node:crypto';
import { DISK_FULL, JunctionError, diskFull, isDiskFull, isJunctionError, type CatalogSnapshot, type Connector } from '@junction/connectors';
import type { Db } from '../db/client.js';
import { notFound } from '../lib/errors.js';
import { STORE_SOURCE } from './internal-sources.js';
import type { BackgroundLog, JunctionService } from './junction.js';
import { SqliteMvStore } from './mv-store/sqlite-store.js';
import { splitView, type Claim, type MvStore, type Stored } from './mv-store/store.js';

/** What a refresh may read: everything, as the admin who materialized the view may. */
const MATERIALIZER_ACCESS = { key: 'all', canReadSource: () => true, canReadView: () => true } as const;

export { STORE_SOURCE };
const TICK_MS = 1_000;
/** after a failed scheduled refresh, the next attempt waits at least this long */
const RETRY_MS = 30_000;
/** how often a server sharing the store looks for refreshes a stopped server left unfinished */
const RECOVER_MS = 10_000;
/**
 * refreshes of one view the server's stop cut short in a row, after which a start no longer
 * retries it: a refresh that itself brings the server down (out of memory) must not do so at
 * every start
 */
export const MAX_INTERRUPTED_REFRESHES = 3;

export interface MaterializationStatus {
  readonly view: string;
  /** never refreshed, ok, failed (the previous rows, if any, are still used), outdated (the view changed since) */
  readonly status: 'never' | 'ok' | 'failed' | 'outdated';
  readonly refreshing: boolean;
  readonly intervalSeconds: number | null;
  readonly maxStalenessSeconds: number;
  readonly rows: number | null;
  readonly bytes: number | null;
  readonly refreshedAt: string | null;
  readonly durationMs: number | null;
  /** the driver's message: it may quote data values, so only admins see it (routes/materializations.ts) */
  readonly error: string | null;
  /** the failure's error code, safe for every reader of the view */
  readonly errorCode: string | null;
}

/**
 * why a refresh runs: asked for (waits for another server's refresh of the view and answers with
 * its outcome), on schedule (skipped unless still due once claimed), or to finish one a stopped
 * server left (skipped unless still unfinished once claimed)
 */
type Reason = 'demand' | 'schedule' | 'recover';

/**
 * Materialized views in a store of Junction's own (mv-store/): an SQLite file for a single server,
 * or a PostgreSQL schema every replica reads. A refresh runs the view's SQL, loads the rows into a
 * new table and only then points the engine at it, so a query reads either the old table or the
 * new one, never a half-loaded one; a failed refresh drops its table and keeps the previous one.
 * Settings and status live in the store (a bookkeeping table no catalog lists); this server keeps
 * the last rows it read of it, and a server sharing the store reads it again every second
 * (reloadFromStore), so its engine follows refreshes made elsewhere. The engine reads a
 * materialization while it is at most maxStalenessSeconds old, else the view's definition.
 */
export class Materializer {
  readonly store: MvStore;
  #open = false;
  #connector: Connector | undefined;
  #registered = false;
  /** the store's tables the engine's catalog of it lists */
  #published = new Set<string>();
  /** the bookkeeping as last read or written by this server */
  #rows = new Map<string, Stored>();
  readonly #refreshing = new Map<string, Promise<MaterializationStatus>>();
  readonly #lastAttempt = new Map<string, number>();
  #ticker: NodeJS.Timeout | undefined;
  #ticking = false;
  #lastRecover = 0;
  #closing = false;
  /** bookkeeping writes and reloads one after another, so an older read never undoes a newer swap */
  #serial: Promise<unknown> = Promise.resolve();
  #publishing: Promise<unknown> = Promise.resolve();
  log: BackgroundLog = { error: () => undefined };

  constructor(
    private readonly junction: JunctionService,
    private readonly meta: Db,
    /** the store, or the SQLite file of a single server's */
    store: MvStore | string,
  ) {
    this.store = typeof store === 'string' ? new SqliteMvStore(store, () => this.log) : store;
  }

  /** The SQLite store's file (tests and the fault suites open it). */
  get file(): string {
    if (!(this.store instanceof SqliteMvStore)) throw new JunctionError('materialized_store_not_a_file', 'internal', 'The materialized view store is not an SQLite file.');
    return this.store.file;
  }

  #started: Promise<void> | undefined;
  /** Opens the store once (after the engine has its sources and views); a failed start is tried again by the next call. */
  ready(): Promise<void> {
    this.#started ??= this.#start().catch((e: unknown) => {
      this.#started = undefined;
      throw e;
    });
    return this.#started;
  }

  /** Opens the store and gives the engine the materializations a previous run (or another server) left. */
  async #start(): Promise<void> {
    await this.junction.engine();
    await this.store.open();
    this.#open = true;
    await this.reloadFromStore();
    this.#ticker = setInterval(() => void this.#tick(), TICK_MS);
    this.#ticker.unref();
    await this.#recover();
  }

  /**
   * Reads the bookkeeping again and points the engine at each view's current table: how a server
   * sharing the store learns of a refresh, a new setting or a removal made by another. Called every
   * second by the ticker; the cluster bus may call it on a notification too.
   */
  reloadFromStore(): Promise<void> {
    return this.#exclusive(async () => {
      if (!this.#open) return;
      const rows = await this.store.all();
      const next = new Map(rows.map((r) => [r.view, r]));
      const changed = rows.filter((r) => {
        const was = this.#rows.get(r.view);
        return !was || was.tbl !== r.tbl || was.refreshed_at !== r.refreshed_at || was.max_staleness_seconds !== r.max_staleness_seconds || was.status !== r.status;
      });
      // no longer materialized, or its table answered an older definition (and goes after the grace period)
      const dropped = [...this.#rows.values()].filter((was) => pointable(was) && !(next.has(was.view) && pointable(next.get(was.view)!)));
      this.#rows = next;
      if (changed.some((r) => pointable(r) && !this.#published.has(r.tbl!))) await this.#publish();
      for (const r of changed) if (pointable(r)) this.#point(r);
      if (dropped.length) {
        const engine = await this.junction.engine();
        for (const was of dropped) {
          const [schema, name] = splitView(was.view);
          try {
            engine.setMaterialization(schema, name, undefined);
          } catch {
            // the view itself is gone: nothing to point back
          }
        }
      }
    });
  }

  /**
   * A refresh a server's stop cut short (kill -9, power loss, out of memory) left its marker: it
   * runs again now, whatever the view's schedule (a view refreshed by hand would otherwise wait
   * for the next click), while queries read the previous rows. Its half-loaded table was dropped
   * when the store opened (or is dropped by the retry, in a shared store). In a shared store a
   * marker is a stopped server's only when no server holds the view's claim.
   */
  async #recover(): Promise<void> {
    this.#lastRecover = Date.now();
    for (const r of [...this.#rows.values()]) {
      if (!r.unfinished_refreshes || this.#refreshing.has(r.view)) continue;
      const claim = await this.store.claim(r.view, false);
      if (!claim) continue; // another server is refreshing it now
      if (this.#refreshing.has(r.view)) {
        await claim.release();
        continue;
      }
      const [schema, name] = splitView(r.view);
      // given up on at once, so a start reports it before it answers anyone
      if (r.unfinished_refreshes >= MAX_INTERRUPTED_REFRESHES) {
        await this.#claimed(schema, name, 'recover', claim);
        continue;
      }
      this.#launch(r.view, this.#claimed(schema, name, 'recover', claim)).catch((err: unknown) =>
        this.log.error({ err, view: r.view }, 'retrying an interrupted refresh failed'),
      );
    }
  }

  list(): MaterializationStatus[] {
    return [...this.#rows.values()].sort((a, b) => (a.view < b.view ? -1 : a.view > b.view ? 1 : 0)).map((r) => this.#status(r));
  }

  get(view: string): MaterializationStatus {
    const r = this.#rows.get(view);
    if (!r) throw notFound('materialization', view);
    return this.#status(r);
  }

  /** Creates or changes a view's materialization (its rows come with the first refresh). */
  async configure(schema: string, name: string, settings: { intervalSeconds: number | null; maxStalenessSeconds: number }): Promise<MaterializationStatus> {
    const view = `${schema}.${name}`;
    await this.#viewSql(schema, name); // the view must exist
    await this.#exclusive(async () => {
      const fields = { interval_seconds: settings.intervalSeconds, max_staleness_seconds: settings.maxStalenessSeconds };
      if (!(await this.store.update(view, fields))) await this.store.insert(view, settings);
      const updated = await this.store.row(view);
      if (!updated) return;
      this.#rows.set(view, updated);
      if (pointable(updated)) this.#point(updated);
    });
    return this.get(view);
  }

  /** Stops materializing a view: queries read its definition again, its table goes. */
  async remove(schema: string, name: string): Promise<void> {
    const view = `${schema}.${name}`;
    if (!this.#rows.has(view)) throw notFound('materialization', view);
    await this.#refreshing.get(view)?.catch(() => undefined);
    await this.#exclusive(async () => {
      await this.store.delete(view);
      await this.#forget(schema, name);
    });
  }

  /** Queries read the view's definition again, and this server no longer lists its materialization. */
  async #forget(schema: string, name: string): Promise<void> {
    this.#rows.delete(`${schema}.${name}`);
    const engine = await this.junction.engine();
    try {
      engine.setMaterialization(schema, name, undefined);
    } catch {
      // the view itself is gone: nothing to point back
    }
  }

  /** A view's definition changed or it was dropped: its rows no longer answer it. */
  viewChanged(schema: string, name: string): void {
    const view = `${schema}.${name}`;
    const r = this.#rows.get(view);
    if (!this.#open || !r) return;
    // its table answered the old definition: no server may point at it again (it goes after the grace period)
    this.#rows.set(view, { ...r, status: 'outdated', tbl: null });
    this.#lastAttempt.delete(view);
    this.#exclusive(() => this.store.swap(view, null, { status: 'outdated' })).catch((err: unknown) =>
      this.log.error({ err, view }, 'could not record that a materialized view is outdated'),
    );
  }

  /**
   * Loads the view's rows into a new table and swaps it in; at most one refresh per view at a
   * time, on this server and (in a shared store) on all of them: a request while another server
   * refreshes the view waits for that refresh and answers with its outcome.
   */
  refresh(schema: string, name: string): Promise<MaterializationStatus> {
    return this.#request(schema, name, 'demand');
  }

  async close(): Promise<void> {
    this.#closing = true;
    if (this.#ticker) clearInterval(this.#ticker);
    // a request waiting for another server's refresh need not keep this one from stopping
    this.store.stopWaiting?.();
    await Promise.allSettled([...this.#refreshing.values()]);
    await this.#serial.catch(() => undefined);
    this.#open = false;
    await this.#connector?.close().catch(() => undefined);
    await this.store.close();
  }

  // ---------------------------------------------------------------------------------------------

  #request(schema: string, name: string, reason: Reason): Promise<MaterializationStatus> {
    const view = `${schema}.${name}`;
    const running = this.#refreshing.get(view);
    if (running) return running;
    return this.#launch(
      view,
      (async () => {
        if (!this.#rows.has(view)) throw notFound('materialization', view);
        const claim = await this.store.claim(view, false);
        if (claim) return this.#claimed(schema, name, reason, claim);
        // another server holds the view: the schedule or the recovery is its business now
        if (reason !== 'demand') return this.get(view);
        const before = await this.store.row(view);
        return this.#claimed(schema, name, reason, (await this.store.claim(view, true))!, before);
      })(),
    );
  }

  #launch(view: string, work: Promise<MaterializationStatus>): Promise<MaterializationStatus> {
    const p = work.finally(() => {
      this.#refreshing.delete(view);
      this.store.afterRefresh();
    });
    this.#refreshing.set(view, p);
    return p;
  }

  /**
   * With the view's claim held: refreshes, unless what the claim found makes it needless.
   * `waitedFrom`: the claim waited for another server, and this was the view's bookkeeping then.
   */
  async #claimed(schema: string, name: string, reason: Reason, claim: Claim, waitedFrom?: Stored): Promise<MaterializationStatus> {
    const view = `${schema}.${name}`;
    try {
      // what the claim found, the engine pointed at it: another server may have refreshed the view meanwhile
      await this.reloadFromStore();
      const row = this.#rows.get(view);
      if (!row) throw notFound('materialization', view);
      // A refresh that ended there while this request waited answers it too (it started no earlier
      // than the request). Nothing ended (a look at the schedule, a server that died during its
      // refresh): this one refreshes.
      if (waitedFrom && outcome(row) !== outcome(waitedFrom)) {
        if (row.status === 'failed') throw refreshFailed(view, row.error ?? 'the refresh failed on another server', undefined);
        return this.get(view);
      }
      if (reason === 'schedule' && !this.#due(row, Date.now())) return this.get(view);
      if (reason === 'recover') {
        if (!row.unfinished_refreshes) return this.get(view);
        if (row.unfinished_refreshes >= MAX_INTERRUPTED_REFRESHES) {
          const fields = {
            status: 'failed' as const,
            error: `The server stopped during the last ${row.unfinished_refreshes} refreshes of ${view}, so it was not retried at start; queries keep reading the previous rows, if any.`,
            error_code: 'materialization_interrupted',
            unfinished_refreshes: 0,
          };
          await this.#exclusive(async () => {
            if (await this.store.update(view, fields)) this.#rows.set(view, { ...row, ...fields });
          });
          this.log.error({ view, interrupted: row.unfinished_refreshes }, 'an interrupted refresh is not retried again');
          return this.get(view);
        }
      }
      return await this.#refresh(schema, name, row);
    } finally {
      await claim.release();
    }
  }

  async #refresh(schema: string, name: string, row: Stored): Promise<MaterializationStatus> {
    const view = `${schema}.${name}`;
    const store = this.store;
    this.#lastAttempt.set(view, Date.now());
    // Counted in the store itself so a kill -9 leaves it behind for the next start; best effort: a
    // store that cannot take this write (disk full) fails the refresh by its own error.
    const unfinished = row.unfinished_refreshes + 1;
    await this.#write(view, { unfinished_refreshes: unfinished });
    const table = `mv_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const startedAt = Date.now();
    const t0 = performance.now();
    let created = false;
    let removed = false;
    try {
      const sql = await this.#viewSql(schema, name);
      const engine = await this.junction.engine();
      // an admin materialized the view; its refresh reads with the server's own policy, whatever the
      // view reads (scheduled refreshes run with nobody signed in)
      const result = await engine.query(sql, { cache: 'off', timeoutMs: this.junction.limits.maxTimeoutMs, access: MATERIALIZER_ACCESS });
      await store.create(view, table, result.columns);
      created = true;
      await this.#connect();
      const { rows, bytes } = await store.load(table, result.columns, result.rows);
      await this.#publish();
      const fields = {
        tbl: table,
        status: 'ok' as const,
        rows,
        bytes,
        refreshed_at: startedAt,
        duration_ms: Math.round(performance.now() - t0),
        error: null,
        error_code: null,
        unfinished_refreshes: 0,
      };
      await this.#exclusive(async () => {
        if (!(await store.swap(view, table, fields))) {
          removed = true;
          throw notFound('materialization', view);
        }
        const stored = { ...row, ...fields };
        this.#rows.set(view, stored);
        // from here on, queries on this server are planned on the new table; other servers follow within a second
        this.#point(stored);
      });
      return { ...this.get(view), refreshing: false };
    } catch (e) {
      // the refresh's own error is the one to report: cleaning up on a full disk may fail too
      if (created) await store.discard(table).catch((err: unknown) => this.log.error({ err, table }, 'could not drop the table of a failed refresh'));
      // removed (on any server) while it ran: nothing to record, and this server must stop reading
      // the previous table too; with the view gone from #rows, no reload would ever point it back
      if (removed) {
        await this.#exclusive(async () => this.#forget(schema, name));
        throw e;
      }
      const full = isDiskFull(e);
      const message = e instanceof Error ? e.message : String(e);
      const code = full ? DISK_FULL : isJunctionError(e) ? e.code : 'internal';
      // one the server's stop cancelled is retried at the next start, as after a kill
      await this.#write(view, {
        status: 'failed',
        error: message.slice(0, 2000),
        error_code: code,
        duration_ms: Math.round(performance.now() - t0),
        unfinished_refreshes: this.#closing ? unfinished : 0,
      });
      if (full) {
        // a spill during the view's query already names its disk; otherwise it was the store filling
        if (isJunctionError(e) && e.code === DISK_FULL) throw new JunctionError(e.code, e.kind, e.message, { cause: e, details: { ...e.details, view } });
        throw diskFull('materialized_store', `refreshing ${view} failed and queries keep reading the previous rows, if any`, { cause: e, details: { view } });
      }
      throw refreshFailed(view, message, e);
    }
  }

  /** Records fields of a view's bookkeeping; a store that cannot take the write (disk full) keeps its status, and says so in the log. */
  async #write(view: string, fields: Partial<Stored>): Promise<void> {
    try {
      await this.#exclusive(async () => {
        if (await this.store.update(view, fields)) {
          const r = this.#rows.get(view);
          if (r) this.#rows.set(view, { ...r, ...fields });
        }
      });
    } catch (err) {
      this.log.error({ err, view }, 'could not record the state of a refresh');
    }
  }

  async #connect(): Promise<Connector> {
    if (!this.#connector) {
      const c = await this.junction.gate.system(this.store.source(), 'store');
      this.#connector = onlyStoreTables(c);
    }
    this.store.useConnector?.(this.#connector);
    return this.#connector;
  }

  /** Registers the store with the engine, or tells it the store's tables changed (one at a time). */
  #publish(): Promise<void> {
    const run = this.#publishing.then(() => this.#publishNow());
    this.#publishing = run.catch(() => undefined);
    return run;
  }

  async #publishNow(): Promise<void> {
    const engine = await this.junction.engine();
    const connector = await this.#connect();
    const catalog = await connector.introspect();
    if (!this.#registered) {
      await engine.addSource({ name: STORE_SOURCE, connector, catalog, semantics: await connector.probe() });
      this.#registered = true;
    } else await engine.refreshSource(STORE_SOURCE, catalog);
    this.#published = new Set(catalog.tables.map((t) => t.name));
  }

  /** Points the engine at a stored table (synchronously: the swap). */
  #point(r: Stored): void {
    const [schema, name] = splitView(r.view);
    const engine = this.junction.engineNow();
    if (!engine || !r.tbl || r.refreshed_at === null) return;
    try {
      engine.setMaterialization(schema, name, {
        source: STORE_SOURCE,
        table: r.tbl,
        refreshedAt: r.refreshed_at,
        maxStalenessSeconds: r.max_staleness_seconds,
      });
    } catch (e) {
      this.log.error({ err: e, view: r.view }, 'a stored materialization no longer fits its view');
    }
  }

  /** Scheduled refreshes: due when never refreshed, outdated, or older than the interval. */
  async #tick(): Promise<void> {
    if (!this.#open || this.#ticking) return;
    this.#ticking = true;
    try {
      if (this.store.shared) {
        await this.reloadFromStore();
        if (Date.now() - this.#lastRecover >= RECOVER_MS) await this.#recover();
      }
      await this.store.tick();
      const now = Date.now();
      for (const r of this.#rows.values()) {
        if (r.interval_seconds === null || this.#refreshing.has(r.view)) continue;
        // another server is refreshing it (or stopped during it: #recover's business)
        if (this.store.shared && r.unfinished_refreshes > 0) continue;
        const last = this.#lastAttempt.get(r.view) ?? 0;
        if (r.status === 'failed' && now - last < Math.max(RETRY_MS, r.interval_seconds * 1000)) continue;
        if (!this.#due(r, now) || now - last < 1000) continue;
        this.#lastAttempt.set(r.view, now);
        const [schema, name] = splitView(r.view);
        this.#request(schema, name, 'schedule').catch((err: unknown) => this.log.error({ err, view: r.view }, 'scheduled refresh failed'));
      }
    } catch (err) {
      if (!this.#closing) this.log.error({ err }, 'the materialized view store could not be read');
    } finally {
      this.#ticking = false;
    }
  }

  #due(r: Stored, now: number): boolean {
    if (r.interval_seconds === null) return false;
    return r.status === 'never' || r.status === 'outdated' || r.refreshed_at === null || now - r.refreshed_at >= r.interval_seconds * 1000;
  }

  #exclusive<T>(f: () => Promise<T>): Promise<T> {
    const run = this.#serial.then(f, f);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  async #viewSql(schema: string, name: string): Promise<string> {
    const v = await this.meta.view.findFirst({ where: { name, schema: { name: schema } } });
    if (!v) throw notFound('view', `${schema}.${name}`);
    return v.sql;
  }

  #status(r: Stored): MaterializationStatus {
    return {
      view: r.view,
      status: r.status,
      // in a shared store, another server's refresh under way shows too
      refreshing: this.#refreshing.has(r.view) || (this.store.shared && r.unfinished_refreshes > 0),
      intervalSeconds: r.interval_seconds,
      maxStalenessSeconds: r.max_staleness_seconds,
      rows: r.rows,
      bytes: r.bytes,
      refreshedAt: r.refreshed_at === null ? null : new Date(r.refreshed_at).toISOString(),
      durationMs: r.duration_ms,
      error: r.error,
      errorCode: r.error_code,
    };
  }
}

/** what a refresh's end changes, successful or not */
function outcome(r: Stored): string {
  return JSON.stringify([r.tbl, r.refreshed_at, r.status, r.error, r.duration_ms]);
}

/** A table that answers the view: refreshed, and not for an older definition. */
function pointable(r: Stored): boolean {
  return r.tbl !== null && r.refreshed_at !== null && r.status !== 'outdated';
}

function refreshFailed(view: string, message: string, cause: unknown): JunctionError {
  return new JunctionError('materialization_refresh_failed', 'user', `Refreshing ${view} failed; queries keep reading the previous rows, if any: ${message}`, {
    cause,
    details: { view },
  });
}

/**
 * The store's connector as the engine sees it: only the materialized tables of the store's own
 * schema. A PostgreSQL store may share its database with Junction's metadata or a user's tables,
 * and none of those is read through the store.
 */
function onlyStoreTables(c: Connector): Connector {
  const introspect = async (): Promise<CatalogSnapshot> => {
    const snap = await c.introspect();
    return { ...snap, tables: snap.tables.filter((t) => t.schema === snap.defaultSchema && t.name.startsWith('mv_')) };
  };
  return new Proxy(c, {
    get(target, prop, receiver) {
      if (prop === 'introspect') return introspect;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
