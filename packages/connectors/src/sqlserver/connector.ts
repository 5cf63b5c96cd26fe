import { Connection, Request, type ConnectionConfiguration } from 'tedious';

type ColumnMetadata = {
  colName: string;
  type: { name: string };
  precision?: number;
  scale?: number;
  dataLength?: number;
};
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
import type { JunctionError } from '../contract/errors.js';
import type { RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import type { Batch, ColumnMeta, JType, Row, Value } from '../contract/types.js';
import { BatchQueue } from '../runtime/batch-queue.js';
import {
  authDiagnosis,
  certificateDiagnosis,
  databaseMissingDiagnosis,
  diagnoseNetworkError,
  timeoutDiagnosis,
  tlsRequiredDiagnosis,
  unknownDiagnosis,
  withDeadline,
  type FailedDiagnosis,
  type Target,
} from '../runtime/diagnosis.js';
import { NetworkSource } from '../runtime/network-source.js';
import { sourceError } from '../runtime/errors.js';
import { ResourcePool } from '../runtime/pool.js';
import { acquireUnlessStopped, StatementControl } from '../runtime/statement-control.js';
import { assertReadingStatement } from '../runtime/native-sql.js';
import { renderFor } from '../sql/dialects.js';
import { capabilitiesFor } from './capabilities.js';
import { withTextTransport } from './exact-transport.js';
import { introspectSqlServer } from './introspect.js';
import { decodeNative, mapTediousType } from './type-map.js';
import { bulkColumn, bulkValue, parameterFor } from './values.js';

type NativeValue = Parameters<typeof decodeNative>[0];
type Cell = { value: NativeValue; metadata: ColumnMetadata };
type Collected = { rows: NativeValue[][]; meta: ColumnMetadata[]; rowCount: number };

function metaType(m: ColumnMetadata): JType {
  const x = m as unknown as { type: { name: string }; precision?: number; scale?: number; dataLength?: number };
  return mapTediousType(x.type.name, x.precision, x.scale, x.dataLength).type;
}

/**
 * SQL Server through tedious. tedious has no pool, so runtime/pool.ts keeps one; a
 * connection runs one request at a time, rows arrive as events and are paused/resumed
 * through the batch queue. A stop ends the statement for the caller at once; the request's
 * TDS attention, which leaves the connection usable once the server acknowledges it, is
 * awaited in the background for at most cancelGraceMs (settleLater()).
 */
export class SqlServerConnector extends NetworkSource implements Connector {
  readonly engine = 'sqlserver' as const;
  private readonly pool: ResourcePool<Connection>;

  constructor(config: SourceConfig) {
    super(config, 1433);
    const p = config.options?.pool;
    this.pool = new ResourcePool<Connection>(
      {
        create: () => this.open(),
        destroy: (c) => c.close(),
        healthy: (c) => !isClosed(c),
      },
      p?.max ?? 10,
      p?.idleTimeoutMs ?? 30_000,
      p?.maxLifetimeMs ?? 30 * 60_000,
    );
  }

  private connectionConfig(): ConnectionConfiguration {
    const tls = this.config.options?.tls;
    return {
      server: this.host,
      authentication: {
        type: 'default',
        options: { userName: this.config.user, password: this.config.password ?? '' },
      },
      options: {
        port: this.port,
        database: this.config.database,
        encrypt: tls?.enabled ?? false,
        trustServerCertificate: tls?.enabled ? !(tls.rejectUnauthorized ?? true) : true,
        ...(tls?.ca ? { cryptoCredentialsDetails: { ca: tls.ca } } : {}),
        connectTimeout: this.connectTimeoutMs,
        // statement timeouts are Junction's (StatementControl), not the driver's
        requestTimeout: 0,
        // an unanswered attention is Junction's to handle (retire() within cancelGraceMs, then
        // the source is reported degraded); tedious's own limit only backs that up
        cancelTimeout: this.cancelGraceMs + 5000,
        useUTC: true,
        useColumnNames: false,
        rowCollectionOnRequestCompletion: false,
      },
    };
  }

  private open(): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const c = new Connection(this.connectionConfig());
      const onEnd = (): void => {
        (c as unknown as { closed: boolean }).closed = true;
      };
      c.on('end', onEnd);
      c.on('error', onEnd);
      c.connect((err) => (err ? reject(err) : resolve(c)));
    });
  }

  capabilities(): Capabilities {
    return capabilitiesFor(this.semantics);
  }

  /** Renders with the dialect; DECIMAL and date/time select items travel as server-side text (exact-transport.ts). */
  render(query: RemoteQuery): RenderedQuery {
    const rendered = renderFor(this.engine, withTextTransport(query), this.semantics);
    const columns = query.select.map((s) => ({ name: s.alias, type: s.expr.type, nullable: true }));
    return { ...rendered, columns };
  }

  diagnose(err: unknown): FailedDiagnosis {
    return diagnoseTedious(err, this.target, this.config);
  }

  async test(): Promise<ConnectionDiagnosis> {
    const started = performance.now();
    let conn: Connection | undefined;
    try {
      const attempt = this.open().then(async (c) => {
        conn = c;
        return (await this.query(c, `SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128))`, [])).rows[0][0];
      });
      const r = await withDeadline(attempt, this.connectTimeoutMs + 250);
      if ('timedOut' in r) return timeoutDiagnosis(this.target);
      return { ok: true, serverVersion: String(r.value), latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      return this.diagnose(err);
    } finally {
      conn?.close();
    }
  }

  private async acquire(control?: StatementControl): Promise<Connection> {
    let c: Connection;
    try {
      c = await acquireUnlessStopped(
        control,
        () => this.pool.acquire(),
        (x) => this.pool.release(x),
      );
    } catch (err) {
      throw this.unavailable(err);
    }
    if (control?.stopped) {
      this.pool.release(c);
      throw control.error();
    }
    return c;
  }

  /** One whole request, rows collected (catalog queries). */
  private query(c: Connection, sql: string, params: readonly Value[]): Promise<Collected> {
    return this.run(c, sql, params).done;
  }

  /** Sends one request whose rows are collected; the request is returned so a stop can cancel it. */
  private run(c: Connection, sql: string, params: readonly Value[]): { request: Request; done: Promise<Collected> } {
    let request!: Request;
    const done = new Promise<Collected>((resolve, reject) => {
      let rows: NativeValue[][] = [];
      let meta: ColumnMetadata[] = [];
      const req = new Request(sql, (err, rowCount) =>
        err ? reject(err) : resolve({ rows, meta, rowCount: rowCount ?? rows.length }),
      );
      request = req;
      params.forEach((v, i) => {
        const p = parameterFor(v);
        req.addParameter(`p${i + 1}`, p.type, p.value, p.options);
      });
      // a batch of several statements answers with the last result set, as the other engines do
      req.on('columnMetadata', (m) => {
        meta = (Array.isArray(m) ? m : Object.values(m)) as ColumnMetadata[];
        rows = [];
      });
      req.on('row', (cols) => rows.push((cols as Cell[]).map((x) => x.value)));
      c.execSql(req);
    });
    return { request, done };
  }

  /**
   * Returns the connection of a statement that was stopped or failed. An attention (sent by
   * Request.cancel()) is answered by the server only after it stopped the statement, and a frozen
   * server never answers: so the drain of what it still sends runs in the background and
   * retire() closes the connection if it has not settled within cancelGraceMs. A connection
   * tedious closed itself (socket lost) is never reused.
   */
  private settleLater(c: Connection, settled: Promise<unknown>): void {
    this.retire(
      settled.then(
        () => !isClosed(c),
        () => !isClosed(c),
      ),
      () => this.pool.release(c),
      // close() cuts the socket at once and fails the request with ECLOSE, ending the drain
      () => this.pool.release(c, true),
    );
  }

  private failure(err: unknown, control: StatementControl | undefined, what: string): JunctionError {
    if (control?.stopped) return control.error();
    return sourceError(this.name, err, this.secrets, what);
  }

  async probe(): Promise<SourceSemantics> {
    const r = await this.execute(
      `SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)),
              CAST(DATABASEPROPERTYEX(DB_NAME(), 'Collation') AS nvarchar(128)),
              CASE WHEN 'a' = 'A' THEN 1 ELSE 0 END,
              CASE WHEN N'é' = N'e' THEN 1 ELSE 0 END,
              CASE WHEN 'a' = 'a ' THEN 1 ELSE 0 END,
              DATENAME(TZOFFSET, SYSDATETIMEOFFSET())`,
    );
    const row = r.rows[0];
    this.semantics = {
      serverVersion: String(row[0]),
      defaultCollation: String(row[1]),
      caseSensitive: Number(row[2]) === 0,
      accentSensitive: Number(row[3]) === 0,
      padSpace: Number(row[4]) === 1,
      timeZone: String(row[5]),
      // 2100 per request, one kept for sp_executesql's statement text
      maxBindParams: 2099,
      maxIdentifierLength: 128,
    };
    return this.semantics;
  }

  async introspect(): Promise<CatalogSnapshot> {
    const c = await this.acquire();
    try {
      const snap = await introspectSqlServer(
        async (sql) => (await this.query(c, sql, [])).rows,
        this.config.options?.schema,
      );
      this.warnings.push(...snap.warnings);
      return withoutBookkeeping(snap);
    } catch (err) {
      throw sourceError(this.name, err, this.secrets, 'introspection');
    } finally {
      this.pool.release(c);
    }
  }

  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const batchSize = options.batchSize ?? 1024;
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    let c: Connection | undefined;
    let req: Request | undefined;
    let queue: BatchQueue<NativeValue[]> | undefined;
    let completed = false;
    try {
      c = await this.acquire(control);
      let meta: ColumnMetadata[] = [];
      const r = new Request(query.sql, (err) => (err ? q.fail(err) : q.end()));
      const q = new BatchQueue<NativeValue[]>(
        batchSize,
        () => r.pause(),
        () => r.resume(),
      );
      query.params.forEach((v, i) => {
        const p = parameterFor(v);
        r.addParameter(`p${i + 1}`, p.type, p.value, p.options);
      });
      r.on('columnMetadata', (m) => (meta = (Array.isArray(m) ? m : Object.values(m)) as ColumnMetadata[]));
      r.on('row', (cols) => q.push((cols as Cell[]).map((x) => x.value)));
      c.execSql(r);
      req = r;
      queue = q;
      control.setCanceller(() => {
        // the request's own cancel, never the connection's: that could hit a later statement
        r.cancel();
        // the consumer hears the stop now, not when a possibly frozen server acknowledges the attention
        q.interrupt(control.error());
      });
      let types: JType[] | undefined;
      for (;;) {
        let raws: NativeValue[][] | undefined;
        try {
          raws = await q.next();
        } catch (err) {
          throw this.failure(err, control, 'query');
        }
        control.throwIfStopped();
        if (!raws) break;
        types ??= meta.map((m, i) => query.columns[i]?.type ?? metaType(m));
        const t = types;
        yield { rows: raws.map((raw) => raw.map((v, i) => decodeNative(v, t[i]))) };
        control.throwIfStopped();
      }
      completed = true;
      this.answered();
    } finally {
      control.dispose();
      const q = queue;
      if (!c) {
        // never held a connection
      } else if (!req || !q || completed) {
        // nothing was sent, or every row arrived: tedious is idle again (a closed one is dropped by the pool)
        this.pool.release(c);
      } else {
        // stopped early (cancel, timeout, a consumer that quit, a failure): the server may still be sending
        if (!q.finished) req.cancel();
        this.settleLater(c, q.drain());
      }
    }
  }

  /**
   * One batch per call. SQL Server has no read-only transaction, and T-SQL needs no `;`
   * between statements, so `readOnly` can only refuse, before anything is sent, a batch that
   * holds any reserved word that starts or controls a statement other than a query
   * (runtime/native-sql.ts). That is a filter, not a guarantee: a source whose native SQL
   * must be read-only should connect with a login that has only db_datareader.
   * A stop (signal or timeout) rejects at once; the attention and the connection's return
   * happen in the background, as for stream().
   */
  async execute(
    sql: string,
    params: readonly Value[] = [],
    options: ExecuteOptions = {},
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }> {
    if (options.readOnly === true) assertReadingStatement(this.name, sql, 'sqlserver');
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    let c: Connection;
    try {
      c = await this.acquire(control);
    } catch (err) {
      control.dispose();
      throw err;
    }
    const conn = c;
    const { request, done } = this.run(conn, sql, params);
    done.catch(() => undefined);
    let stop!: (err: JunctionError) => void;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    let cancelled = false;
    control.setCanceller(() => {
      cancelled = true;
      request.cancel();
      // the caller hears the stop now, not when a possibly frozen server acknowledges the attention
      stop(control.error());
    });
    try {
      let r: Collected;
      try {
        r = await Promise.race([done, stopped]);
      } catch (err) {
        throw this.failure(err, control, 'statement');
      }
      const types = r.meta.map(metaType);
      this.answered();
      return {
        rowCount: r.rowCount,
        rows: r.rows.map((raw) => raw.map((v, i) => decodeNative(v, types[i]))),
        columns: r.meta.map((m, i) => ({
          name: (m as unknown as { colName: string }).colName,
          type: types[i],
          nullable: true,
        })),
      };
    } finally {
      control.dispose();
      // not stopped, so tedious has called back: the connection is idle (or closed, and dropped)
      if (!cancelled) this.pool.release(conn);
      else this.settleLater(conn, done);
    }
  }

  /** tedious's BulkLoad (the TDS bulk insert), fed from the batches as an async iterable. */
  async bulkLoad(table: BulkTable, rows: AsyncIterable<readonly Row[]>): Promise<number> {
    const target =
      (table.schema ? `[${table.schema.replace(/]/g, ']]')}].` : '') + `[${table.name.replace(/]/g, ']]')}]`;
    const c = await this.acquire();
    let healthy = true;
    try {
      return await new Promise<number>((resolve, reject) => {
        const bulk = c.newBulkLoad(target, { keepNulls: true }, (err, rowCount) =>
          err ? reject(err) : resolve(rowCount ?? 0),
        );
        for (const col of table.columns) {
          const b = bulkColumn(col.type);
          bulk.addColumn(col.name, b.type, { nullable: col.nullable, ...b.options });
        }
        const converters = table.columns.map((col) => bulkValue(col.type));
        async function* flat(): AsyncIterable<unknown[]> {
          for await (const batch of rows) for (const row of batch) yield row.map((v, i) => converters[i](v));
        }
        c.execBulkLoad(bulk, flat());
      });
    } catch (err) {
      healthy = false;
      throw sourceError(this.name, err, this.secrets, `bulk load into ${table.name}`);
    } finally {
      this.pool.release(c, !healthy);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** tedious sets `closed` once its socket is gone (and open() once the connection ended or failed) */
function isClosed(c: Connection): boolean {
  return (c as unknown as { closed?: boolean }).closed === true;
}

/** tedious wraps socket errors in ConnectionError('…', 'ESOCKET') with the socket error as its cause. */
export function diagnoseTedious(err: unknown, t: Target, config: SourceConfig): FailedDiagnosis {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const msg = e?.message ?? '';
  const net = diagnoseNetworkError(err, t) ?? certificateDiagnosis(err, t);
  if (net) return net;
  if (e?.code === 'ETIMEOUT') return timeoutDiagnosis(t);
  if (/Cannot open database/i.test(msg)) return databaseMissingDiagnosis(t, config.database);
  if (e?.code === 'ELOGIN' || /Login failed/i.test(msg)) return authDiagnosis(t, config.user);
  if (/encrypt/i.test(msg) && !config.options?.tls?.enabled) return tlsRequiredDiagnosis(t);
  return unknownDiagnosis(t, err);
}
