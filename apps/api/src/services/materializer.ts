import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { DISK_FULL, JunctionError, diskFull, isDiskFull, isJunctionError, type ColumnMeta, type Connector, type JType, type Row } from '@junction/connectors';
import type { Db } from '../db/client.js';
import { notFound } from '../lib/errors.js';
import { STORE_SOURCE } from './internal-sources.js';
import type { BackgroundLog, JunctionService } from './junction.js';

/** What a refresh may read: everything, as the admin who materialized the view may. */
const MATERIALIZER_ACCESS = { key: 'all', canReadSource: () => true, canReadView: () => true } as const;

export { STORE_SOURCE };
/** how long a replaced table stays, so a query planned on it just before a refresh can finish */
const DROP_GRACE_MS = 60_000;
const TICK_MS = 1_000;
/** after a failed scheduled refresh, the next attempt waits at least this long */
const RETRY_MS = 30_000;
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

interface Stored {
  view: string;
  tbl: string | null;
  interval_seconds: number | null;
  max_staleness_seconds: number;
  status: MaterializationStatus['status'];
  rows: number | null;
  bytes: number | null;
  refreshed_at: number | null;
  duration_ms: number | null;
  error: string | null;
  error_code: string | null;
  /** refreshes started and not finished: more than 0 at start means the server stopped during one */
  unfinished_refreshes: number;
}

/**
 * Materialized views in Junction's own store, an SQLite file: a refresh runs the view's SQL,
 * loads the rows into a new table and only then points the engine at it (one synchronous step,
 * so a query reads either the old table or the new one, never a half-loaded one); a failed
 * refresh drops its table and keeps the previous one. Settings and status live in the same file
 * (a bookkeeping table no catalog lists). The engine reads a materialization while it is at most
 * maxStalenessSeconds old, else the view's definition.
 */
export class Materializer {
  #db: Database.Database | undefined;
  #connector: Connector | undefined;
  #registered = false;
  readonly #refreshing = new Map<string, Promise<MaterializationStatus>>();
  readonly #lastAttempt = new Map<string, number>();
  readonly #drops = new Set<NodeJS.Timeout>();
  #ticker: NodeJS.Timeout | undefined;
  #closing = false;
  log: BackgroundLog = { error: () => undefined };

  constructor(
    private readonly junction: JunctionService,
    private readonly meta: Db,
    readonly file: string,
  ) {}

  #started: Promise<void> | undefined;
  /** Opens the store once (after the engine has its sources and views). */
  ready(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  /** Opens the store and gives the engine the materializations a previous run left. */
  async #start(): Promise<void> {
    await this.junction.engine();
    const db = new Database(this.file);
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS _junction_materializations (
      view TEXT PRIMARY KEY, tbl TEXT, interval_seconds INTEGER, max_staleness_seconds INTEGER NOT NULL,
      status TEXT NOT NULL, rows INTEGER, bytes INTEGER, refreshed_at INTEGER, duration_ms INTEGER, error TEXT, error_code TEXT)`);
    // stores written before error codes were kept
    if (!(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('_junction_materializations') as string[]).includes('error_code'))
      db.exec('ALTER TABLE _junction_materializations ADD COLUMN error_code TEXT');
    // stores written before an interrupted refresh was retried at start
    if (!(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('_junction_materializations') as string[]).includes('unfinished_refreshes'))
      db.exec('ALTER TABLE _junction_materializations ADD COLUMN unfinished_refreshes INTEGER NOT NULL DEFAULT 0');
    this.#db = db;
    // tables no materialization points at are left over from a crash mid-refresh
    const used = new Set(this.#all().map((r) => r.tbl));
    for (const t of db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'mv\\_%' ESCAPE '\\'`).pluck().all() as string[])
      if (!used.has(t)) db.exec(`DROP TABLE "${t}"`);
    if (this.#all().some((r) => r.tbl)) {
      await this.#publish();
      for (const r of this.#all()) if (r.tbl && r.refreshed_at !== null) this.#point(r);
    }
    this.#ticker = setInterval(() => this.#tick(), TICK_MS);
    this.#ticker.unref();
    this.#retryInterrupted();
  }

  /**
   * A refresh the server's stop cut short (kill -9, power loss, out of memory) left its marker:
   * it runs again now, whatever the view's schedule (a view refreshed by hand would otherwise
   * wait for the next click), while queries read the previous rows. Its half-loaded table was
   * dropped above with the other tables nothing points at.
   */
  #retryInterrupted(): void {
    for (const r of this.#all()) {
      if (!r.unfinished_refreshes) continue;
      if (r.unfinished_refreshes >= MAX_INTERRUPTED_REFRESHES) {
        this.#store
          .prepare(`UPDATE _junction_materializations SET status = 'failed', error = ?, error_code = 'materialization_interrupted', unfinished_refreshes = 0 WHERE view = ?`)
          .run(`The server stopped during the last ${r.unfinished_refreshes} refreshes of ${r.view}, so it was not retried at start; queries keep reading the previous rows, if any.`, r.view);
        this.log.error({ view: r.view, interrupted: r.unfinished_refreshes }, 'an interrupted refresh is not retried again');
        continue;
      }
      const [schema, name] = splitView(r.view);
      this.refresh(schema, name).catch((err: unknown) => this.log.error({ err, view: r.view }, 'retrying an interrupted refresh failed'));
    }
  }

  list(): MaterializationStatus[] {
    return this.#all().map((r) => this.#status(r));
  }

  get(view: string): MaterializationStatus {
    const r = this.#row(view);
    if (!r) throw notFound('materialization', view);
    return this.#status(r);
  }

  /** Creates or changes a view's materialization (its rows come with the first refresh). */
  async configure(schema: string, name: string, settings: { intervalSeconds: number | null; maxStalenessSeconds: number }): Promise<MaterializationStatus> {
    const view = `${schema}.${name}`;
    await this.#viewSql(schema, name); // the view must exist
    const r = this.#row(view);
    if (r) {
      this.#store.prepare('UPDATE _junction_materializations SET interval_seconds = ?, max_staleness_seconds = ? WHERE view = ?').run(settings.intervalSeconds, settings.maxStalenessSeconds, view);
      const updated = this.#row(view)!;
      if (updated.tbl && updated.refreshed_at !== null && updated.status !== 'outdated') this.#point(updated);
    } else {
      this.#store
        .prepare(`INSERT INTO _junction_materializations (view, interval_seconds, max_staleness_seconds, status) VALUES (?, ?, ?, 'never')`)
        .run(view, settings.intervalSeconds, settings.maxStalenessSeconds);
    }
    return this.get(view);
  }

  /** Stops materializing a view: queries read its definition again, its table goes. */
  async remove(schema: string, name: string): Promise<void> {
    const view = `${schema}.${name}`;
    const r = this.#row(view);
    if (!r) throw notFound('materialization', view);
    await this.#refreshing.get(view)?.catch(() => undefined);
    const engine = await this.junction.engine();
    try {
      engine.setMaterialization(schema, name, undefined);
    } catch {
      // the view itself is gone: nothing to point back
    }
    this.#store.prepare('DELETE FROM _junction_materializations WHERE view = ?').run(view);
    if (r.tbl) this.#dropLater(r.tbl);
  }

  /** A view's definition changed or it was dropped: its rows no longer answer it. */
  viewChanged(schema: string, name: string): void {
    const view = `${schema}.${name}`;
    if (!this.#db || !this.#row(view)) return;
    this.#store.prepare(`UPDATE _junction_materializations SET status = 'outdated' WHERE view = ?`).run(view);
    this.#lastAttempt.delete(view);
  }

  /** Loads the view's rows into a new table and swaps it in; at most one refresh per view at a time. */
  refresh(schema: string, name: string): Promise<MaterializationStatus> {
    const view = `${schema}.${name}`;
    const running = this.#refreshing.get(view);
    if (running) return running;
    const p = this.#refresh(schema, name)
      .then(
        (done) => {
          this.#markUnfinished(view, null);
          return done;
        },
        (e: unknown) => {
          // one the server's stop cancelled is retried at the next start, as after a kill
          if (!this.#closing) this.#markUnfinished(view, null);
          throw e;
        },
      )
      .finally(() => {
        this.#refreshing.delete(view);
        this.#trimWal();
      });
    this.#refreshing.set(view, p);
    return p;
  }

  async close(): Promise<void> {
    this.#closing = true;
    if (this.#ticker) clearInterval(this.#ticker);
    await Promise.allSettled([...this.#refreshing.values()]);
    for (const t of this.#drops) clearTimeout(t);
    this.#drops.clear();
    await this.#connector?.close().catch(() => undefined);
    this.#db?.close();
    this.#db = undefined;
  }

  // ---------------------------------------------------------------------------------------------

  async #refresh(schema: string, name: string): Promise<MaterializationStatus> {
    const view = `${schema}.${name}`;
    if (!this.#row(view)) throw notFound('materialization', view);
    this.#lastAttempt.set(view, Date.now());
    this.#markUnfinished(view, 1);
    const sql = await this.#viewSql(schema, name);
    const engine = await this.junction.engine();
    const table = `mv_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const db = this.#store;
    const startedAt = Date.now();
    const t0 = performance.now();
    let created = false;
    try {
      // an admin materialized the view; its refresh reads with the server's own policy, whatever the
      // view reads (scheduled refreshes run with nobody signed in)
      const result = await engine.query(sql, { cache: 'off', timeoutMs: this.junction.limits.maxTimeoutMs, access: MATERIALIZER_ACCESS });
      db.exec(`CREATE TABLE "${table}" (${result.columns.map(columnDdl).join(', ')})`);
      created = true;
      const insert = db.prepare(`INSERT INTO "${table}" VALUES (${result.columns.map(() => '?').join(', ')})`);
      const load = db.transaction((batch: readonly Row[]) => {
        for (const row of batch) insert.run(row.map(toSqlite));
      });
      let rows = 0;
      let bytes = 0;
      for await (const batch of result.rows) {
        load(batch);
        rows += batch.length;
        for (const r of batch) bytes += rowBytes(r);
      }
      await this.#publish();
      const previous = this.#row(view)?.tbl ?? null;
      const stored: Stored = {
        ...this.#row(view)!,
        tbl: table,
        status: 'ok',
        rows,
        bytes,
        refreshed_at: startedAt,
        duration_ms: Math.round(performance.now() - t0),
        error: null,
        error_code: null,
      };
      // the swap: from this statement on, queries are planned on the new table
      this.#point(stored);
      db.prepare(
        `UPDATE _junction_materializations SET tbl = ?, status = 'ok', rows = ?, bytes = ?, refreshed_at = ?, duration_ms = ?, error = NULL, error_code = NULL WHERE view = ?`,
      ).run(table, rows, bytes, startedAt, stored.duration_ms, view);
      if (previous) this.#dropLater(previous);
      return { ...this.get(view), refreshing: false };
    } catch (e) {
      // the refresh's own error is the one to report: cleaning up on a full disk may fail too
      if (created) this.#dropNowOrLater(table);
      const full = isDiskFull(e);
      const message = e instanceof Error ? e.message : String(e);
      const code = full ? DISK_FULL : isJunctionError(e) ? e.code : 'internal';
      try {
        if (this.#row(view))
          db.prepare(`UPDATE _junction_materializations SET status = 'failed', error = ?, error_code = ?, duration_ms = ? WHERE view = ?`).run(
            message.slice(0, 2000),
            code,
            Math.round(performance.now() - t0),
            view,
          );
      } catch (err) {
        // the store's disk is full: its status keeps saying what the previous refresh left
        this.log.error({ err, view }, 'could not record a failed refresh');
      }
      if (full) {
        // a spill during the view's query already names its disk; otherwise it was the store filling
        if (isJunctionError(e) && e.code === DISK_FULL) throw new JunctionError(e.code, e.kind, e.message, { cause: e, details: { ...e.details, view } });
        throw diskFull('materialized_store', `refreshing ${view} failed and queries keep reading the previous rows, if any`, { cause: e, details: { view } });
      }
      throw new JunctionError('materialization_refresh_failed', 'user', `Refreshing ${view} failed; queries keep reading the previous rows, if any: ${message}`, {
        cause: e,
        details: { view },
      });
    }
  }

  /**
   * A refresh writes its whole table through the WAL, and SQLite keeps the WAL file at its largest
   * size: after a refresh that filled the disk (or just a large one) that space stayed taken from
   * everything else on the disk, the metadata database included, until a restart. Copying the WAL
   * back and truncating it returns the space; a reader still in the WAL only makes it partial.
   */
  #trimWal(attempt = 0): void {
    try {
      const [r] = (this.#db?.pragma('wal_checkpoint(TRUNCATE)') ?? []) as { busy: number }[];
      // a query that just read the store may still hold its snapshot for a moment: try again soon
      if (r?.busy && attempt < 5) {
        const t = setTimeout(() => {
          this.#drops.delete(t);
          this.#trimWal(attempt + 1);
        }, 200);
        t.unref();
        this.#drops.add(t);
      }
    } catch (err) {
      this.log.error({ err }, 'could not truncate the WAL of the materialized view store');
    }
  }

  /** Drops a half-loaded table; when the disk is too full even for that, tries again after the grace period. */
  #dropNowOrLater(table: string): void {
    try {
      this.#store.exec(`DROP TABLE IF EXISTS "${table}"`);
    } catch (err) {
      this.log.error({ err, table }, 'could not drop the table of a failed refresh now; trying again later');
      this.#dropLater(table);
    }
  }

  /**
   * Counts a refresh started (+1) or clears the count when one ends, however (null). Kept in the
   * store itself so a kill -9 leaves it behind for the next start; best effort: a store that
   * cannot take this write (disk full, closed) fails the refresh by its own error.
   */
  #markUnfinished(view: string, delta: 1 | null): void {
    try {
      this.#db
        ?.prepare(`UPDATE _junction_materializations SET unfinished_refreshes = ${delta === null ? '0' : 'unfinished_refreshes + 1'} WHERE view = ?`)
        .run(view);
    } catch (err) {
      this.log.error({ err, view }, 'could not record the state of a refresh');
    }
  }

  /** Registers the store with the engine, or tells it the store's tables changed. */
  async #publish(): Promise<void> {
    const engine = await this.junction.engine();
    this.#connector ??= await this.junction.gate.system({ name: STORE_SOURCE, engine: 'sqlite', file: this.file, options: {} }, 'store');
    const catalog = await this.#connector.introspect();
    if (!this.#registered) {
      await engine.addSource({ name: STORE_SOURCE, connector: this.#connector, catalog, semantics: await this.#connector.probe() });
      this.#registered = true;
    } else await engine.refreshSource(STORE_SOURCE, catalog);
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

  #dropLater(table: string): void {
    const t = setTimeout(() => {
      this.#drops.delete(t);
      try {
        this.#db?.exec(`DROP TABLE IF EXISTS "${table}"`);
      } catch (err) {
        this.log.error({ err, table }, 'could not drop a replaced materialization');
      }
    }, DROP_GRACE_MS);
    t.unref();
    this.#drops.add(t);
  }

  /** Scheduled refreshes: due when never refreshed, outdated, or older than the interval. */
  #tick(): void {
    if (!this.#db) return;
    const now = Date.now();
    for (const r of this.#all()) {
      if (r.interval_seconds === null || this.#refreshing.has(r.view)) continue;
      const last = this.#lastAttempt.get(r.view) ?? 0;
      if (r.status === 'failed' && now - last < Math.max(RETRY_MS, r.interval_seconds * 1000)) continue;
      const due = r.status === 'never' || r.status === 'outdated' || r.refreshed_at === null || now - r.refreshed_at >= r.interval_seconds * 1000;
      if (!due || now - last < 1000) continue;
      const [schema, name] = splitView(r.view);
      this.refresh(schema, name).catch((err: unknown) => this.log.error({ err, view: r.view }, 'scheduled refresh failed'));
    }
  }

  async #viewSql(schema: string, name: string): Promise<string> {
    const v = await this.meta.view.findFirst({ where: { name, schema: { name: schema } } });
    if (!v) throw notFound('view', `${schema}.${name}`);
    return v.sql;
  }

  get #store(): Database.Database {
    if (!this.#db) throw new JunctionError('materializer_closed', 'internal', 'The materialized view store is not open.');
    return this.#db;
  }

  #all(): Stored[] {
    return this.#store.prepare('SELECT * FROM _junction_materializations ORDER BY view').all() as Stored[];
  }

  #row(view: string): Stored | undefined {
    return this.#store.prepare('SELECT * FROM _junction_materializations WHERE view = ?').get(view) as Stored | undefined;
  }

  #status(r: Stored): MaterializationStatus {
    return {
      view: r.view,
      status: r.status,
      refreshing: this.#refreshing.has(r.view),
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

function splitView(view: string): [string, string] {
  const i = view.indexOf('.');
  return [view.slice(0, i), view.slice(i + 1)];
}

/** A declared type the SQLite connector reads back as the same Junction type (or one the engine casts back). */
function declared(t: JType): string {
  switch (t.kind) {
    case 'bool':
      return 'BOOLEAN';
    case 'int16':
      return 'SMALLINT';
    case 'int32':
      return 'INT4';
    case 'int64':
      return 'BIGINT';
    case 'decimal':
      return t.precision !== undefined ? `DECIMAL(${t.precision},${t.scale ?? 0})` : 'DECIMAL';
    case 'float32':
    case 'float64':
      return 'DOUBLE';
    case 'string':
      return t.length !== undefined ? `${t.fixed ? 'CHAR' : 'VARCHAR'}(${t.length})` : 'TEXT';
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'timestamp':
      return 'TIMESTAMP';
    case 'timestamptz':
      return 'TIMESTAMPTZ';
    case 'binary':
      return 'BLOB';
    case 'json':
      return 'JSON';
    case 'uuid':
      return 'UUID';
    default:
      return 'TEXT';
  }
}

function columnDdl(c: ColumnMeta): string {
  return `"${c.name.replace(/"/g, '""')}" ${declared(c.type)}${c.nullable ? '' : ' NOT NULL'}`;
}

function toSqlite(v: Row[number]): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

function rowBytes(row: Row): number {
  let n = 0;
  for (const v of row) n += typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.byteLength : 8;
  return n;
}
