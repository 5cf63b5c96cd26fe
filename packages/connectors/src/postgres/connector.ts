import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Capabilities } from '../contract/capabilities.js';
import { withoutBookkeeping, type CatalogSnapshot, type SourceSemantics } from '../contract/catalog.js';
import type {
  BulkTable,
  ConnectionDiagnosis,
  Connector,
  ExecuteOptions,
  SourceConfig,
  StreamOptions,
} from '../contract/connector.js';
import { JunctionError } from '../contract/errors.js';
import type { RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import type { Batch, ColumnMeta, JType, Row, Value } from '../contract/types.js';
import {
  authDiagnosis,
  certificateDiagnosis,
  databaseMissingDiagnosis,
  diagnoseNetworkError,
  timeoutDiagnosis,
  tlsRequiredDiagnosis,
  tlsUnsupportedDiagnosis,
  unknownDiagnosis,
  withDeadline,
  type FailedDiagnosis,
} from '../runtime/diagnosis.js';
import { NetworkSource } from '../runtime/network-source.js';
import { connectionBrokeError, isSocketError, pgDataExceptionCode, sourceError } from '../runtime/errors.js';
import { acquireUnlessStopped, StatementControl } from '../runtime/statement-control.js';
import { assertReadingStatement, multipleStatementsError, notReadOnlyError } from '../runtime/native-sql.js';
import { coerce, sameRepresentation } from '../runtime/values.js';
import { sendCancelRequest } from './cancel.js';
import { copyRows } from './copy.js';
import { introspectPostgres, quoteIdent } from './introspect.js';
import { renderFor } from '../sql/dialects.js';
import { capabilitiesFor } from './capabilities.js';
import { cellDecoderForOid, cellOf, decoderForOid, mapOid } from './type-map.js';
import { PortalReader, type ColumnDecoder, type FieldLike, type PortalBatch } from './portal.js';
import { PreparedStatements, type StatementUse } from './statements.js';

// Every value arrives as the server's text so int8/numeric/timestamps never pass through
// a JS number or Date; type-map.ts decodes them exactly.
const RAW_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

// ISO dates and ISO 8601 intervals are the value model's spellings.
const SESSION_OPTIONS = '-c DateStyle=ISO,YMD -c IntervalStyle=iso_8601 -c client_encoding=UTF8';

const QUERY_CANCELED = '57014';
const READ_ONLY_SQL_TRANSACTION = '25006';

/**
 * Ends a read-only statement's transaction and undoes what a reading statement can still
 * leave on the pooled session: set_config(…, false) and session advisory locks are allowed
 * in a read-only transaction and would outlive it. RESET ALL returns every setting to the
 * connection's start-up values (SESSION_OPTIONS included); the named statements stay.
 */
const READ_ONLY_END =
  'COMMIT; SET SESSION AUTHORIZATION DEFAULT; RESET ROLE; RESET ALL; CLOSE ALL; UNLISTEN *; SELECT pg_advisory_unlock_all()';

/** PostgreSQL refuses to run a prepared statement whose result columns changed type since it was prepared. */
function stalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

/** invalid_sql_statement_name: the session does not hold the named statement. */
function statementMissing(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === '26000';
}

/**
 * The connection is gone or going (FATAL, connection-exception or operator-intervention
 * SQLSTATEs, or a driver error with no SQLSTATE such as a closed socket): it must not go
 * back to the pool, where pg may not yet have noticed.
 */
function connectionLost(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown } | undefined;
  if (e?.severity === 'FATAL' || e?.severity === 'PANIC') return true;
  // a reset or a network timeout carries the socket's errno as its code, which is no SQLSTATE
  if (typeof e?.code !== 'string' || isSocketError(err)) return true;
  return e.code.startsWith('08') || e.code.startsWith('57P');
}

/**
 * The session ended under a running statement without a socket error: the server shut down or
 * restarted (FATAL 57P01 "terminating connection due to administrator command") or closed the
 * socket cleanly (pg's "Connection terminated unexpectedly", which carries no code).
 */
function sessionEnded(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown; message?: unknown } | undefined;
  if (e?.severity === 'FATAL' || e?.severity === 'PANIC') return true;
  if (typeof e?.code === 'string') return e.code.startsWith('08') || e.code.startsWith('57P');
  return typeof e?.message === 'string' && /^Connection terminated/i.test(e.message);
}

/** A cancel request armed for one statement; once sent it may reach whatever the backend runs next. */
interface Cancel {
  send(): void;
  sent(): boolean;
  settled(): Promise<void>;
}

function toParam(v: Value): unknown {
  if (v === null || typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number')
    return Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : String(v);
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export class PostgresConnector extends NetworkSource implements Connector {
  readonly engine = 'postgresql' as const;
  private readonly pool: pg.Pool;

  constructor(config: SourceConfig) {
    super(config, 5432);
    // The connect timeout bounds opening a connection, on the client alone: given to the pool,
    // pg-pool also fails a statement that merely waits for a busy pool's connection after that
    // long, as source_unavailable ("No answer from …"), which marks a source that answers offline.
    // The wait is bounded by the statement's own timeout and signal (acquireUnlessStopped).
    const clientConfig = this.clientConfig();
    const Client = class extends pg.Client {
      constructor(config?: pg.ClientConfig) {
        // pg-pool keeps the password non-enumerable, so a spread alone would drop it
        super({ ...config, password: config?.password, connectionTimeoutMillis: clientConfig.connectionTimeoutMillis });
      }
    };
    this.pool = new pg.Pool({ ...clientConfig, ...this.poolConfig(), connectionTimeoutMillis: 0, Client });
    // an idle connection dropped by the server must not crash the process; the pool replaces it
    this.pool.on('error', () => undefined);
    // nor one in use: its statement fails through the query, and pg marks it unusable so the
    // pool drops it on release; pg still emits 'error' on the client, which must be heard
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  private clientConfig(): pg.ClientConfig {
    const tls = this.config.options?.tls;
    return {
      host: this.host,
      port: this.port,
      database: this.config.database,
      user: this.config.user,
      password: this.config.password ?? '',
      connectionTimeoutMillis: this.connectTimeoutMs,
      ssl: tls?.enabled
        ? { rejectUnauthorized: tls.rejectUnauthorized ?? true, ...(tls.ca ? { ca: tls.ca } : {}) }
        : false,
      options: this.config.options?.schema
        ? `${SESSION_OPTIONS} -c search_path=${this.config.options.schema.replace(/[^A-Za-z0-9_$]/g, '')}`
        : SESSION_OPTIONS,
      types: RAW_TYPES,
      application_name: 'junction',
      keepAlive: true,
    };
  }

  private poolConfig(): pg.PoolConfig {
    const p = this.config.options?.pool;
    return {
      max: p?.max ?? 10,
      idleTimeoutMillis: p?.idleTimeoutMs ?? 30_000,
      maxLifetimeSeconds: Math.max(1, Math.round((p?.maxLifetimeMs ?? 30 * 60_000) / 1000)),
    };
  }

  capabilities(): Capabilities {
    return capabilitiesFor(this.semantics);
  }

  /** Renders with the dialect tuned to the probed semantics, the same ones capabilities() used. */
  render(query: RemoteQuery): RenderedQuery {
    return renderFor(this.engine, query, this.semantics);
  }

  async test(): Promise<ConnectionDiagnosis> {
    const started = performance.now();
    const client = new pg.Client(this.clientConfig());
    client.on('error', () => undefined);
    try {
      const r = await withDeadline(
        client.connect().then(() => client.query({ text: 'SHOW server_version', rowMode: 'array' })),
        this.connectTimeoutMs + 250,
      );
      if ('timedOut' in r) return timeoutDiagnosis(this.target);
      return {
        ok: true,
        serverVersion: String(r.value.rows[0][0]),
        latencyMs: Math.round(performance.now() - started),
      };
    } catch (err) {
      return this.diagnose(err);
    } finally {
      client.end().catch(() => undefined);
    }
  }

  protected diagnose(err: unknown): FailedDiagnosis {
    const t = this.target;
    const net = diagnoseNetworkError(err, t);
    if (net) return net;
    const cert = certificateDiagnosis(err, t);
    if (cert) return cert;
    const e = err as { code?: string; message?: string };
    const msg = e?.message ?? '';
    if (e?.code === '28P01') return authDiagnosis(t, this.config.user);
    if (e?.code === '28000')
      return /no encryption|SSL off/i.test(msg) && !this.config.options?.tls?.enabled
        ? tlsRequiredDiagnosis(t)
        : authDiagnosis(t, this.config.user);
    if (e?.code === '3D000') return databaseMissingDiagnosis(t, this.config.database);
    if (/does not support SSL/i.test(msg)) return tlsUnsupportedDiagnosis(t);
    if (/timeout|timed out/i.test(msg)) return timeoutDiagnosis(t);
    return unknownDiagnosis(t, err);
  }

  /** Each pooled connection's named statements; they go with the connection. */
  private readonly statements = new WeakMap<pg.PoolClient, PreparedStatements>();
  /** false once the server lost a named statement (a pooler between): every statement unnamed */
  private namedStatements = true;

  private statementsOf(client: pg.PoolClient): PreparedStatements {
    let s = this.statements.get(client);
    if (!s || (!this.namedStatements && s.capacity > 0))
      this.statements.set(client, (s = new PreparedStatements(this.namedStatements ? undefined : 0)));
    return s;
  }

  /**
   * pool.connect(), withdrawable while it waits in pg-pool's queue. pg-pool has no way to give
   * up a queued request; left there, a stopped statement's request would later be served (and
   * in a blackhole, open a connection that hangs for the connect timeout) ahead of live ones.
   */
  private queueConnect(): { acquired: Promise<pg.PoolClient>; withdraw(): void } {
    let callback!: (err: Error | undefined, client: pg.PoolClient | undefined) => void;
    const acquired = new Promise<pg.PoolClient>((resolve, reject) => {
      callback = (err, client) => (err ? reject(err) : resolve(client!));
    });
    this.pool.connect(callback);
    return {
      acquired,
      withdraw: () => {
        // pg-pool 3 queues the caller's own callback; without that internal the request stays
        // queued and is handed back through acquireUnlessStopped once served
        const queue = (this.pool as unknown as { _pendingQueue?: { callback: unknown }[] })._pendingQueue;
        const i = queue?.findIndex((item) => item.callback === callback) ?? -1;
        if (i >= 0) queue!.splice(i, 1);
      },
    };
  }

  private async connect(control?: StatementControl): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    let queued: ReturnType<PostgresConnector['queueConnect']> | undefined;
    try {
      client = await acquireUnlessStopped(
        control,
        () => (queued = this.queueConnect()).acquired,
        (c) => c.release(),
      );
    } catch (err) {
      if (control?.stopped) queued?.withdraw();
      throw this.unavailable(err);
    }
    if (control?.stopped) {
      client.release();
      throw control.error();
    }
    return client;
  }

  /** Installs a canceller for `client`; the returned promise settles once a sent cancel was processed. */
  private armCancel(client: pg.PoolClient, control: StatementControl): Cancel {
    let pending: Promise<void> | undefined;
    const c = client as unknown as { processID: number; secretKey: number };
    const send = (): void => {
      pending ??= sendCancelRequest(this.host, this.port, c.processID, c.secretKey);
    };
    control.setCanceller(send);
    return { send, sent: () => pending !== undefined, settled: () => pending ?? Promise.resolve() };
  }

  private failure(err: unknown, control: StatementControl | undefined, what: string): JunctionError {
    if (control?.stopped) return control.error();
    const e = err as { code?: string; message?: string };
    if (e?.code === QUERY_CANCELED && /statement timeout/i.test(e.message ?? '')) {
      return new JunctionError(
        'source_statement_timeout',
        'timeout',
        `The statement on source "${this.name}" hit the server's statement_timeout.`,
        {
          details: { source: this.name },
        },
      );
    }
    if (e?.code === READ_ONLY_SQL_TRANSACTION)
      return notReadOnlyError(this.name, 'would change data, which the read-only transaction refused');
    if (e?.code === '42601' && /cannot insert multiple commands/i.test(e.message ?? ''))
      return multipleStatementsError(this.name);
    if (isSocketError(err) || sessionEnded(err)) return connectionBrokeError(this.name, err, this.secrets, what);
    return sourceError(this.name, err, this.secrets, what, pgDataExceptionCode(e?.code));
  }

  async probe(): Promise<SourceSemantics> {
    const r = await this.execute(
      `SELECT current_setting('server_version') AS version,
              (SELECT datcollate FROM pg_database WHERE datname = current_database()) AS collation,
              NOT ('a' = 'A') AS case_sensitive,
              NOT ('é' = 'e') AS accent_sensitive,
              ('a'::varchar = 'a '::varchar) AS pad_space,
              current_setting('TimeZone') AS time_zone,
              current_setting('max_identifier_length')::int AS max_ident`,
    );
    const row = r.rows[0];
    this.semantics = {
      serverVersion: String(row[0]),
      defaultCollation: String(row[1]),
      caseSensitive: row[2] === true,
      accentSensitive: row[3] === true,
      padSpace: row[4] === true,
      timeZone: String(row[5]),
      // the protocol's Bind message carries a 16-bit parameter count
      maxBindParams: 65535,
      maxIdentifierLength: Number(row[6]),
    };
    return this.semantics;
  }

  async introspect(): Promise<CatalogSnapshot> {
    const client = await this.connect();
    try {
      const snap = await introspectPostgres(
        async (sql, params) => (await client.query({ text: sql, values: params, types: pg.types })).rows,
        this.config.options?.schema,
      );
      this.warnings.push(...snap.warnings);
      return withoutBookkeeping(snap);
    } catch (err) {
      throw sourceError(this.name, err, this.secrets, 'introspection');
    } finally {
      client.release();
    }
  }

  private decoders(fields: readonly FieldLike[], expected: readonly ColumnMeta[] | undefined): ColumnDecoder[] {
    return fields.map((f, i) => {
      const base = decoderForOid(f.dataTypeID);
      const want: JType | undefined = expected?.[i]?.type;
      const mapped = mapOid(f.dataTypeID, f.dataTypeModifier);
      if (mapped.warning) this.warnings.push(`${this.name}: column "${f.name}": ${mapped.warning}`);
      if (!want || want.kind === 'unknown' || sameRepresentation(mapped.type, want)) return { text: base, cell: cellDecoderForOid(f.dataTypeID) };
      const text = (s: string): Value => coerce(base(s), want);
      return { text, cell: cellOf(text) };
    });
  }

  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const batchSize = options.batchSize ?? 1024;
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    let client: pg.PoolClient | undefined;
    let reader: PortalReader | undefined;
    let statements: PreparedStatements | undefined;
    let cancel: Cancel | undefined;
    let broken = false;
    let lost = false;
    try {
      client = await this.connect(control);
      const c = client;
      cancel = this.armCancel(c, control);
      const send = cancel.send;
      statements = this.statementsOf(c);
      const params = query.params.map(toParam);
      const start = (use: StatementUse): PortalReader => {
        const r = c.query(new PortalReader(query.sql, params, batchSize, (fields) => this.decoders(fields, query.columns), use, options.batchBytes));
        control.setCanceller(() => {
          send();
          // the consumer hears the stop now, not when a possibly frozen server answers the cancel
          r.interrupt(control.error());
        });
        return r;
      };
      let use = statements.use(query.sql);
      reader = start(use);
      let yielded = false;
      for (;;) {
        let raw: PortalBatch;
        try {
          raw = await reader.read();
        } catch (err) {
          if (!yielded && !use.parse && use.name !== '' && (stalePlan(err) || statementMissing(err)) && !control.stopped) {
            // a table the statement reads changed its columns' types since it was prepared, or
            // the session lost it: run it again (nothing was read yet, so it answers the same)
            if (statementMissing(err)) {
              // the server did not keep what this connection prepared: a pooler such as
              // PgBouncer in transaction mode hands each statement to some server session
              this.namedStatements = false;
            }
            statements.done(query.sql, false);
            statements = this.statementsOf(c);
            use = statements.use(query.sql);
            reader = start(use);
            continue;
          }
          lost = connectionLost(err) && !control.stopped;
          throw this.failure(err, control, 'query');
        }
        control.throwIfStopped();
        if (raw.rows.length > 0) {
          yielded = true;
          yield { rows: raw.rows };
          control.throwIfStopped();
        }
        if (!raw.more) break;
      }
      this.answered();
    } catch (err) {
      broken =
        lost ||
        !(err instanceof JunctionError) ||
        (err.kind !== 'cancelled' && err.kind !== 'timeout' && err.code !== 'source_error');
      throw err;
    } finally {
      control.dispose();
      const c = client;
      const rd = reader;
      statements?.done(query.sql, rd !== undefined && rd.complete && !broken);
      const cn = cancel;
      if (rd && rd.complete && !broken && !cn?.sent()) {
        // every row is here and Sync went with the statement: pg's client holds any later
        // statement until the server's ReadyForQuery, so neither the consumer nor the pool waits
        c?.release();
      } else if (c && !rd) {
        c.release(broken ? true : undefined);
      } else if (c && rd) {
        // stopped early (or failed): the statement may still run; stop it, drop what it sends
        if (rd.running) cn?.send();
        rd.abandon();
        const settle = async (): Promise<boolean> => {
          await rd.finished;
          await cn?.settled();
          return !broken;
        };
        this.retire(
          settle(),
          () => c.release(),
          () => {
            // end() would wait for the server to close its side: cut the socket instead
            (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
            c.release(true);
          },
        );
      }
    }
  }

  /**
   * Without `readOnly` the text goes as a simple query (administration may send a script).
   * With it, the statement runs inside BEGIN TRANSACTION READ ONLY on one connection and goes
   * through the extended protocol, whose Parse message takes exactly one statement: a text
   * like `SELECT 1; COMMIT; CREATE TABLE x ()` is refused by the server before anything runs.
   * A stop (signal or timeout) rejects at once; the cancel and the connection's return happen
   * in the background, as for stream().
   */
  async execute(
    sql: string,
    params: readonly Value[] = [],
    options: ExecuteOptions = {},
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }> {
    const readOnly = options.readOnly === true;
    // COPY … TO PROGRAM, DO blocks and SET are allowed in a read-only transaction
    if (readOnly) assertReadingStatement(this.name, sql, 'postgresql');
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    let client: pg.PoolClient;
    try {
      client = await this.connect(control);
    } catch (err) {
      control.dispose();
      throw err;
    }
    const c = client;
    const cancel = this.armCancel(c, control);
    let stop!: (err: JunctionError) => void;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    control.setCanceller(() => {
      cancel.send();
      // the caller hears the stop now, not when a possibly frozen server answers the cancel
      stop(control.error());
    });
    let lost = false;
    const values = params.map(toParam);
    const run = async (): Promise<pg.QueryResult | pg.QueryResult[]> => {
      if (!readOnly) return c.query({ text: sql, values, rowMode: 'array', types: RAW_TYPES });
      await c.query('BEGIN TRANSACTION READ ONLY');
      try {
        const res = await c.query({
          text: sql,
          values,
          rowMode: 'array',
          types: RAW_TYPES,
          queryMode: 'extended',
        } as pg.QueryConfig);
        await c.query(READ_ONLY_END);
        return res;
      } catch (err) {
        // a session that cannot roll back must not go back to the pool
        await c.query('ROLLBACK').catch(() => (lost = true));
        throw err;
      }
    };
    const work = run();
    work.catch(() => undefined);
    try {
      let res: pg.QueryResult | pg.QueryResult[];
      try {
        res = await Promise.race([work, stopped]);
      } catch (err) {
        if (!control.stopped && connectionLost(err)) lost = true;
        throw this.failure(err, control, 'statement');
      }
      control.throwIfStopped();
      // a multi-statement script answers with one result per statement: the last one counts
      const last = Array.isArray(res) ? res[res.length - 1] : res;
      const fields = (last.fields ?? []) as FieldLike[];
      const decoders = this.decoders(fields, undefined);
      const columns: ColumnMeta[] = fields.map((f) => ({
        name: f.name,
        type: mapOid(f.dataTypeID, f.dataTypeModifier).type,
        nullable: true,
      }));
      const rows = (last.rows as unknown[][]).map((raw) =>
        raw.map((v, i) => (v === null ? null : decoders[i].text(v as string))),
      );
      this.answered();
      return { rowCount: last.rowCount ?? rows.length, rows, columns };
    } finally {
      control.dispose();
      if (!cancel.sent()) {
        // not stopped, so the statement has finished
        c.release(lost ? true : undefined);
      } else {
        const settle = async (): Promise<boolean> => {
          const ok = await work.then(
            () => true,
            (err: unknown) => !connectionLost(err),
          );
          // a cancel still on its way could hit the next statement on this connection
          await cancel.settled();
          return ok && !lost;
        };
        this.retire(
          settle(),
          () => c.release(),
          () => {
            (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
            c.release(true);
          },
        );
      }
    }
  }

  async bulkLoad(table: BulkTable, rows: AsyncIterable<readonly Row[]>): Promise<number> {
    const target = (table.schema ? quoteIdent(table.schema) + '.' : '') + quoteIdent(table.name);
    const cols = table.columns.map((c) => quoteIdent(c.name)).join(', ');
    const client = await this.connect();
    let broken = false;
    try {
      const copy = client.query(copyFrom(`COPY ${target} (${cols}) FROM STDIN`));
      async function* encode(): AsyncIterable<string> {
        // COPY is cheaper per round trip with bigger chunks; ~64k rows of text stay well under 16 MB
        let buf: string[] = [];
        let size = 0;
        for await (const batch of rows) {
          const s = copyRows(batch);
          buf.push(s);
          size += s.length;
          if (size >= 1 << 20) {
            yield buf.join('');
            buf = [];
            size = 0;
          }
        }
        if (buf.length) yield buf.join('');
      }
      await pipeline(Readable.from(encode(), { objectMode: false }), copy);
      return Number(copy.rowCount);
    } catch (err) {
      broken = true;
      throw sourceError(this.name, err, this.secrets, `bulk load into ${table.name}`);
    } finally {
      client.release(broken ? true : undefined);
    }
  }

  /**
   * pool.end() waits for every connection in use. One a consumer left behind (a stream it never
   * finished nor returned) would hold a stopping server forever: after a grace such connections
   * are cut, and close() rejects naming how many (`connections_leaked`), a bug to fix.
   */
  async close(): Promise<void> {
    const ended = this.pool.end();
    const grace = Math.max(5000, this.cancelGraceMs * 2);
    if (!('timedOut' in (await withDeadline(ended, grace)))) return;
    const inUse = (this.pool as unknown as { _clients?: pg.PoolClient[] })._clients ?? [];
    const leaked = inUse.length;
    for (const c of inUse) (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    await withDeadline(ended, 1000);
    throw new JunctionError(
      'connections_leaked',
      'internal',
      `Source "${this.name}": ${leaked} connection(s) were still in use ${grace} ms after the source was closed; they were cut.`,
      { details: { source: this.name, connections: leaked } },
    );
  }
}
