import pg from 'pg';
import { JunctionError, type ColumnMeta, type Connector, type JType, type Row, type SourceConfig } from '@junction/connectors';
import type { BackgroundLog } from '../junction.js';
import { STORE_SOURCE } from '../internal-sources.js';
import { BOOKKEEPING, COLUMNS, DROP_GRACE_MS, quoteIdent, rowBytes, type Claim, type MvStore, type Stored, type StoredFields } from './store.js';

/** every table a refresh created and no view points at yet (loading) or any more (retired) */
const TABLES = '_junction_mv_tables';
/** retired tables are looked for every this many ticks (seconds) */
const UPKEEP_TICKS = 5;

export interface PgMvStoreOptions {
  /** the database: the metadata database's (DATABASE_URL) or a registered source's settings */
  readonly connection: () => Promise<SourceConfig>;
  /** the schema that holds the tables and the bookkeeping, created if missing */
  readonly schema: string;
  readonly log: () => BackgroundLog;
}

/**
 * Materialized views in a PostgreSQL schema several servers share. The bookkeeping (settings,
 * status, which table is current, unfinished refreshes, tables waiting to be dropped) is in the
 * same schema, so every server reads the same status and points its engine at the same table.
 * One server refreshes a view at a time: it holds a session advisory lock keyed by the view on a
 * connection of its own for the refresh's duration, which PostgreSQL releases if that server
 * dies. Tables are created and made current in transactions together with their bookkeeping
 * (PostgreSQL's DDL is transactional), so no server ever sees a table the bookkeeping does not
 * account for, and a start drops only tables no refresh can be writing.
 */
export class PgMvStore implements MvStore {
  readonly shared = true;
  #config: SourceConfig | undefined;
  #pool: pg.Pool | undefined;
  #connector: Connector | undefined;
  #ticks = 0;
  readonly #claims = new Set<pg.Client>();
  /** connections waiting for another server's refresh to end */
  readonly #waiting = new Set<pg.Client>();
  #stopped = false;

  constructor(private readonly opts: PgMvStoreOptions) {}

  get schema(): string {
    return this.opts.schema;
  }

  source(): SourceConfig {
    if (!this.#config) throw closed();
    return { ...this.#config, name: STORE_SOURCE, engine: 'postgresql', options: { ...this.#config.options, schema: this.opts.schema } };
  }

  /** The engine's connector to the store: loads go through its COPY. */
  useConnector(c: Connector): void {
    this.#connector = c;
  }

  async open(): Promise<void> {
    const config = await this.opts.connection();
    if (config.engine !== 'postgresql')
      throw new JunctionError('materialized_store_invalid', 'user', `The materialized view store must be a PostgreSQL database; "${config.name}" is ${config.engine}.`, {
        details: { source: config.name },
      });
    this.#config = config;
    // a start that failed before (the database was down) left its pool
    await this.#pool?.end().catch(() => undefined);
    const pool = new pg.Pool({ ...clientConfig(config), max: 4, idleTimeoutMillis: 30_000 });
    pool.on('error', (err) => this.opts.log().error({ err }, 'a connection to the materialized view store failed'));
    this.#pool = pool;
    const s = quoteIdent(this.opts.schema);
    await this.#tx(async (c) => {
      // two servers starting together must not both try to create the schema
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('junction_mv.setup'), hashtext($1))`, [this.opts.schema]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${s}.${BOOKKEEPING} (
        view text PRIMARY KEY, tbl text, interval_seconds integer, max_staleness_seconds integer NOT NULL,
        status text NOT NULL, rows bigint, bytes bigint, refreshed_at bigint, duration_ms integer, error text, error_code text,
        unfinished_refreshes integer NOT NULL DEFAULT 0)`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${s}.${TABLES} (
        tbl text PRIMARY KEY, view text NOT NULL, state text NOT NULL CHECK (state IN ('loading', 'retired')), drop_after timestamptz)`);
    });
    // Left over: a table neither current nor accounted for, or one loaded for a view no longer
    // materialized. A table another server is loading is accounted for (create() records it in
    // the transaction that creates it), so it is never among these.
    const { rows } = await this.#q<{ tbl: string }>(
      `SELECT c.relname AS tbl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE 'mv\\_%'
          AND c.relname NOT IN (SELECT tbl FROM ${s}.${BOOKKEEPING} WHERE tbl IS NOT NULL)
          AND c.relname NOT IN (SELECT t.tbl FROM ${s}.${TABLES} t WHERE t.state = 'retired' OR t.view IN (SELECT view FROM ${s}.${BOOKKEEPING}))`,
      [this.opts.schema],
    );
    for (const r of rows) await this.#drop(r.tbl);
    await this.#dropRetired();
  }

  async all(): Promise<Stored[]> {
    const { rows } = await this.#q(`SELECT * FROM ${this.#t(BOOKKEEPING)} ORDER BY view`);
    return rows.map(fromPg);
  }

  async row(view: string): Promise<Stored | undefined> {
    const { rows } = await this.#q(`SELECT * FROM ${this.#t(BOOKKEEPING)} WHERE view = $1`, [view]);
    return rows[0] ? fromPg(rows[0]) : undefined;
  }

  async insert(view: string, settings: { intervalSeconds: number | null; maxStalenessSeconds: number }): Promise<void> {
    await this.#q(
      `INSERT INTO ${this.#t(BOOKKEEPING)} (view, interval_seconds, max_staleness_seconds, status) VALUES ($1, $2, $3, 'never')
       ON CONFLICT (view) DO UPDATE SET interval_seconds = EXCLUDED.interval_seconds, max_staleness_seconds = EXCLUDED.max_staleness_seconds`,
      [view, settings.intervalSeconds, settings.maxStalenessSeconds],
    );
  }

  async update(view: string, fields: StoredFields, c?: pg.ClientBase): Promise<boolean> {
    const keys = COLUMNS.filter((k) => k in fields);
    if (!keys.length) return (await this.row(view)) !== undefined;
    const sql = `UPDATE ${this.#t(BOOKKEEPING)} SET ${keys.map((k, i) => `${k} = $${i + 2}`).join(', ')} WHERE view = $1`;
    const params = [view, ...keys.map((k) => fields[k as keyof StoredFields] ?? null)];
    const r = c ? await c.query(sql, params) : await this.#q(sql, params);
    return (r.rowCount ?? 0) > 0;
  }

  async delete(view: string): Promise<void> {
    await this.#tx(async (c) => {
      const { rows } = await c.query<{ tbl: string | null }>(`DELETE FROM ${this.#t(BOOKKEEPING)} WHERE view = $1 RETURNING tbl`, [view]);
      if (rows[0]?.tbl) await this.#retire(c, rows[0].tbl, view);
    });
  }

  async claim(view: string, wait: boolean): Promise<Claim | undefined> {
    const c = new pg.Client(clientConfig(this.#configured()));
    // a lost connection ends the claim with it; the refresh's own statements report the failure
    c.on('error', (err) => this.opts.log().error({ err, view }, 'the connection holding a refresh lock failed'));
    await c.connect();
    const key = [`junction_mv.${this.opts.schema}`, view];
    try {
      const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok', key);
      if (!rows[0].ok) {
        if (!wait) {
          await c.end();
          return undefined;
        }
        this.#waiting.add(c);
        try {
          await c.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', key);
        } catch (e) {
          if (this.#stopped)
            throw new JunctionError('server_stopping', 'resources', `This server is stopping; the refresh of ${view} under way on another server goes on.`, {
              cause: e,
              details: { view },
            });
          throw e;
        } finally {
          this.#waiting.delete(c);
        }
      }
      this.#claims.add(c);
      return {
        release: async () => {
          if (!this.#claims.delete(c)) return;
          // closing the session releases its locks even when the unlock cannot be sent
          await c.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', key).catch(() => undefined);
          await c.end().catch(() => undefined);
        },
      };
    } catch (e) {
      await c.end().catch(() => undefined);
      throw e;
    }
  }

  async create(view: string, table: string, columns: readonly ColumnMeta[]): Promise<void> {
    // Tables a refresh of this view left loading were a stopped server's: the caller holds the
    // view's claim, so no live refresh is writing them.
    const { rows } = await this.#q<{ tbl: string }>(`SELECT tbl FROM ${this.#t(TABLES)} WHERE view = $1 AND state = 'loading'`, [view]);
    for (const r of rows) await this.#drop(r.tbl);
    await this.#tx(async (c) => {
      await c.query(`INSERT INTO ${this.#t(TABLES)} (tbl, view, state) VALUES ($1, $2, 'loading')`, [table, view]);
      await c.query(`CREATE TABLE ${this.#t(table)} (${columns.map(columnDdl).join(', ')})`);
    });
  }

  async load(table: string, columns: readonly ColumnMeta[], batches: AsyncIterable<readonly Row[]>): Promise<{ rows: number; bytes: number }> {
    if (!this.#connector) throw closed();
    let rows = 0;
    let bytes = 0;
    async function* counted(): AsyncIterable<readonly Row[]> {
      for await (const batch of batches) {
        rows += batch.length;
        for (const r of batch) bytes += rowBytes(r);
        yield batch;
      }
    }
    await this.#connector.bulkLoad({ schema: this.opts.schema, name: table, columns }, counted());
    await this.#q(`ANALYZE ${this.#t(table)}`);
    return { rows, bytes };
  }

  async swap(view: string, table: string | null, fields: StoredFields): Promise<boolean> {
    return this.#tx(async (c) => {
      const { rows } = await c.query<{ tbl: string | null }>(`SELECT tbl FROM ${this.#t(BOOKKEEPING)} WHERE view = $1 FOR UPDATE`, [view]);
      if (!rows[0]) return false;
      await this.update(view, { ...fields, tbl: table }, c);
      if (table) await c.query(`DELETE FROM ${this.#t(TABLES)} WHERE tbl = $1`, [table]);
      if (rows[0].tbl && rows[0].tbl !== table) await this.#retire(c, rows[0].tbl, view);
      return true;
    });
  }

  async discard(table: string): Promise<void> {
    try {
      await this.#drop(table);
    } catch (err) {
      this.opts.log().error({ err, table }, 'could not drop the table of a failed refresh now; trying again later');
      await this.#q(`UPDATE ${this.#t(TABLES)} SET state = 'retired', drop_after = now() WHERE tbl = $1`, [table]).catch(() => undefined);
    }
  }

  async tick(): Promise<void> {
    if (++this.#ticks % UPKEEP_TICKS === 0) await this.#dropRetired();
  }

  afterRefresh(): void {}

  stopWaiting(): void {
    this.#stopped = true;
    for (const c of this.#waiting) void c.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const c of this.#claims) await c.end().catch(() => undefined);
    this.#claims.clear();
    await this.#pool?.end().catch(() => undefined);
    this.#pool = undefined;
  }

  // ---------------------------------------------------------------------------------------------

  /** A replaced table stays for the grace period: queries planned on it, on any server, may still run. */
  async #retire(c: pg.ClientBase, table: string, view: string): Promise<void> {
    await c.query(
      `INSERT INTO ${this.#t(TABLES)} (tbl, view, state, drop_after) VALUES ($1, $2, 'retired', now() + $3 * interval '1 millisecond')
       ON CONFLICT (tbl) DO UPDATE SET state = 'retired', drop_after = EXCLUDED.drop_after`,
      [table, view, DROP_GRACE_MS],
    );
  }

  async #dropRetired(): Promise<void> {
    const { rows } = await this.#q<{ tbl: string }>(`SELECT tbl FROM ${this.#t(TABLES)} WHERE state = 'retired' AND drop_after <= now()`);
    for (const r of rows) {
      try {
        await this.#drop(r.tbl);
      } catch (err) {
        // a long query still reads it: the next upkeep tries again
        this.opts.log().error({ err, table: r.tbl }, 'could not drop a replaced materialization');
      }
    }
  }

  /** Drops a table and forgets it; waits at most a few seconds for queries still reading it. */
  async #drop(table: string): Promise<void> {
    await this.#tx(async (c) => {
      await c.query(`SET LOCAL lock_timeout = '5s'`);
      await c.query(`DROP TABLE IF EXISTS ${this.#t(table)}`);
      await c.query(`DELETE FROM ${this.#t(TABLES)} WHERE tbl = $1`, [table]);
    });
  }

  #t(name: string): string {
    return `${quoteIdent(this.opts.schema)}.${quoteIdent(name)}`;
  }

  #configured(): SourceConfig {
    if (!this.#config) throw closed();
    return this.#config;
  }

  #q<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    if (!this.#pool) throw closed();
    return this.#pool.query<R>(sql, params);
  }

  async #tx<T>(f: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    if (!this.#pool) throw closed();
    const c = await this.#pool.connect();
    let broken = false;
    try {
      await c.query('BEGIN');
      const out = await f(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw e;
    } finally {
      c.release(broken);
    }
  }
}

function closed(): JunctionError {
  return new JunctionError('materializer_closed', 'internal', 'The materialized view store is not open.');
}

/** node-postgres settings for a PostgreSQL source's configuration (as the connector connects). */
function clientConfig(c: SourceConfig): pg.ClientConfig {
  const tls = c.options?.tls;
  return {
    host: c.host,
    port: c.port ?? 5432,
    database: c.database,
    user: c.user,
    password: c.password ?? '',
    connectionTimeoutMillis: c.options?.connectTimeoutMs ?? 10_000,
    ssl: tls?.enabled ? { rejectUnauthorized: tls.rejectUnauthorized ?? true, ...(tls.ca ? { ca: tls.ca } : {}) } : false,
    application_name: 'junction materialized views',
  };
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function fromPg(r: Record<string, unknown>): Stored {
  return {
    view: String(r.view),
    tbl: (r.tbl as string | null) ?? null,
    interval_seconds: num(r.interval_seconds),
    max_staleness_seconds: Number(r.max_staleness_seconds),
    status: r.status as Stored['status'],
    rows: num(r.rows),
    bytes: num(r.bytes),
    refreshed_at: num(r.refreshed_at),
    duration_ms: num(r.duration_ms),
    error: (r.error as string | null) ?? null,
    error_code: (r.error_code as string | null) ?? null,
    unfinished_refreshes: Number(r.unfinished_refreshes),
  };
}

/** The PostgreSQL type that reads back as exactly this Junction type, so the view reads the column as is. */
function pgType(t: JType): string {
  const frac = t.precision !== undefined ? `(${t.precision})` : '';
  switch (t.kind) {
    case 'bool':
      return 'boolean';
    case 'int16':
      return 'smallint';
    case 'int32':
      return 'integer';
    case 'int64':
      return 'bigint';
    case 'decimal':
      // numeric keeps every digit and the scale of each value, as the source's did
      return t.precision !== undefined && t.scale !== undefined ? `numeric(${t.precision},${t.scale})` : 'numeric';
    case 'float32':
      return 'real';
    case 'float64':
      return 'double precision';
    case 'string':
      return t.length !== undefined ? `${t.fixed ? 'char' : 'varchar'}(${t.length})` : 'text';
    case 'date':
      return 'date';
    case 'time':
      return `time${frac}`;
    case 'timestamp':
      return `timestamp${frac}`;
    case 'timestamptz':
      return `timestamptz${frac}`;
    case 'interval':
      return 'interval';
    case 'binary':
      return 'bytea';
    case 'json':
      // json, not jsonb: the text is kept as the view gave it
      return 'json';
    case 'uuid':
      return 'uuid';
    default:
      return 'text';
  }
}

function columnDdl(c: ColumnMeta): string {
  return `${quoteIdent(c.name)} ${pgType(c.type)}${c.nullable ? '' : ' NOT NULL'}`;
}
