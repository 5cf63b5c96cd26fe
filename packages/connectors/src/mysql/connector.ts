import mysql from 'mysql2';
import { Readable } from 'node:stream';
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
import { BatchQueue } from '../runtime/batch-queue.js';
import { textRowBytes } from '../contract/row-bytes.js';
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
import { mysqlDataExceptionCode, sourceError } from '../runtime/errors.js';
import { acquireUnlessStopped, StatementControl } from '../runtime/statement-control.js';
import { assertReadingStatement, notReadOnlyError } from '../runtime/native-sql.js';
import { coerce, decodeRows, sameRepresentation } from '../runtime/values.js';
import { introspectMysql } from './introspect.js';
import { encodeRows, fieldEncoder, loadDataStatement } from './load-data.js';
import { inlineParams, literal } from './literals.js';
import { withRangeLimits } from './range-limits.js';
import { renderFor } from '../sql/dialects.js';
import { capabilitiesFor } from './capabilities.js';
import { decoderFor, mapField, type Decoder, type FieldLike } from './type-map.js';

type Conn = mysql.PoolConnection;
type RawRow = (Buffer | null)[];

const ER_QUERY_INTERRUPTED = 1317;
const ER_STATEMENT_TIMEOUT = 1969; // MariaDB max_statement_time
const ER_QUERY_TIMEOUT = 3024; // MySQL max_execution_time
const ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION = 1792;
const CREATED = Symbol('createdAt');

/** Literals by column type: MySQL rejects the value model's 'T'/'Z' timestamp spelling in strict INSERTs. */
function bulkLiteral(type: JType): (v: Value) => string {
  if (type.kind === 'timestamptz' || type.kind === 'timestamp') {
    // the session time zone is UTC, so a UTC instant is written as its wall-clock text
    return (v) => (typeof v === 'string' ? `'${v.replace('T', ' ').replace(/Z$/, '')}'` : literal(v));
  }
  return literal;
}

function quoteIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

/**
 * MySQL and MariaDB over mysql2's text protocol with typeCast off: every value arrives as
 * the server's bytes and type-map.ts decodes it exactly (no float DECIMAL, no Date).
 * Parameters are inlined as literals (literals.ts) because prepared statements would hand
 * values back through the binary protocol's own conversions.
 */
export class MysqlConnector extends NetworkSource implements Connector {
  readonly engine = 'mysql' as const;
  private readonly pool: mysql.Pool;
  private readonly maxLifetimeMs: number;

  constructor(config: SourceConfig) {
    super(config, 3306);
    this.maxLifetimeMs = config.options?.pool?.maxLifetimeMs ?? 30 * 60_000;
    const max = config.options?.pool?.max ?? 10;
    this.pool = mysql.createPool({
      ...this.connectionOptions(),
      connectionLimit: max,
      // mysql2 runs its idle-timeout reaper only when maxIdle < connectionLimit: with maxIdle = max
      // idleTimeoutMs did nothing and idle connections stayed open until the server's wait_timeout,
      // holding slots of the server's max_connections that other clients may need
      maxIdle: max > 1 ? max - 1 : max,
      idleTimeout: config.options?.pool?.idleTimeoutMs ?? 30_000,
    });
    this.pool.on('connection', (conn) => {
      (conn as unknown as Record<symbol, number>)[CREATED] = Date.now();
      // TIMESTAMP columns are shown in the session zone: UTC makes them the value model's 'Z' form
      conn.query(`SET time_zone = '+00:00'`);
    });
  }

  private connectionOptions(): mysql.ConnectionOptions {
    const tls = this.config.options?.tls;
    return {
      host: this.host,
      port: this.port,
      user: this.config.user,
      password: this.config.password ?? '',
      database: this.config.options?.schema ?? this.config.database,
      connectTimeout: this.connectTimeoutMs,
      charset: 'UTF8MB4_GENERAL_CI',
      ssl: tls?.enabled
        ? { rejectUnauthorized: tls.rejectUnauthorized ?? true, ...(tls.ca ? { ca: tls.ca } : {}) }
        : undefined,
      enableKeepAlive: true,
      // one statement per call is what execute(…, { readOnly }) relies on: never turn this on
      multipleStatements: false,
    };
  }

  capabilities(): Capabilities {
    return capabilitiesFor(this.semantics);
  }

  /** Renders with the dialect tuned to the probed semantics, the same ones capabilities() used. */
  render(query: RemoteQuery): RenderedQuery {
    return withRangeLimits(renderFor(this.engine, query, this.semantics), query, this.semantics);
  }

  protected diagnose(err: unknown): FailedDiagnosis {
    const t = this.target;
    const net = diagnoseNetworkError(err, t);
    if (net) return net;
    const cert = certificateDiagnosis(err, t);
    if (cert) return cert;
    const e = err as { errno?: number; code?: string; message?: string };
    const msg = e?.message ?? '';
    // 1698: MariaDB's denial for accounts of another auth plugin (root via unix_socket)
    if (
      [1044, 1045, 1130, 1698].includes(e?.errno ?? 0) ||
      e?.code === 'ER_ACCESS_DENIED_ERROR' ||
      e?.code === 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR'
    )
      return authDiagnosis(t, this.config.user);
    if (e?.errno === 1049) return databaseMissingDiagnosis(t, this.config.database);
    if (e?.errno === 3159 || /secure transport|SSL connection is required|require_secure_transport/i.test(msg))
      return tlsRequiredDiagnosis(t);
    if (e?.code === 'HANDSHAKE_NO_SSL_SUPPORT') return tlsUnsupportedDiagnosis(t);
    if (/timeout|timed out/i.test(msg)) return timeoutDiagnosis(t);
    return unknownDiagnosis(t, err);
  }

  async test(): Promise<ConnectionDiagnosis> {
    const started = performance.now();
    const conn = mysql.createConnection(this.connectionOptions());
    conn.on('error', () => undefined);
    try {
      const attempt = new Promise<string>((resolve, reject) => {
        conn.query({ sql: 'SELECT VERSION()', rowsAsArray: true }, (err, rows) =>
          err ? reject(err) : resolve(String((rows as unknown[][])[0][0])),
        );
      });
      const r = await withDeadline(attempt, this.connectTimeoutMs + 250);
      if ('timedOut' in r) return timeoutDiagnosis(this.target);
      return { ok: true, serverVersion: r.value, latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      return this.diagnose(err);
    } finally {
      conn.destroy();
    }
  }

  private async acquire(control?: StatementControl): Promise<Conn> {
    for (;;) {
      let conn: Conn;
      try {
        const start = (): Promise<Conn> =>
          new Promise<Conn>((resolve, reject) => this.pool.getConnection((err, c) => (err ? reject(err) : resolve(c))));
        conn = await acquireUnlessStopped(control, start, (c) => c.release());
      } catch (err) {
        throw this.unavailable(err);
      }
      // mysql2's pool has no maximum lifetime: retire old connections on the way out
      const created = (conn as unknown as Record<symbol, number>)[CREATED] ?? Date.now();
      if (Date.now() - created > this.maxLifetimeMs) {
        conn.destroy();
        continue;
      }
      if (control?.stopped) {
        conn.release();
        throw control.error();
      }
      return conn;
    }
  }

  /** KILL QUERY from a separate connection: the blocked one cannot speak while its statement runs. */
  private async killQuery(threadId: number): Promise<void> {
    const c = mysql.createConnection(this.connectionOptions());
    c.on('error', () => undefined);
    try {
      await new Promise<void>((resolve) => c.query(`KILL QUERY ${Number(threadId)}`, () => resolve()));
    } finally {
      c.destroy();
    }
  }

  private run(conn: Conn, sql: string): Promise<{ rows: RawRow[]; fields: FieldLike[]; affected: number }> {
    return new Promise((resolve, reject) => {
      conn.query({ sql, rowsAsArray: true, typeCast: false }, (err, res, fields) => {
        if (err) return reject(err);
        if (Array.isArray(res))
          resolve({
            rows: res as unknown as RawRow[],
            fields: (fields ?? []) as unknown as FieldLike[],
            affected: res.length,
          });
        else resolve({ rows: [], fields: [], affected: (res as mysql.ResultSetHeader).affectedRows ?? 0 });
      });
    });
  }

  /** After a KILL QUERY the connection must prove it is idle and healthy before it is reused. */
  private async settle(conn: Conn): Promise<boolean> {
    for (let i = 0; i < 2; i++) {
      try {
        await this.run(conn, 'DO 1');
        return true;
      } catch (err) {
        if ((err as { errno?: number }).errno !== ER_QUERY_INTERRUPTED) return false;
      }
    }
    return false;
  }

  private failure(err: unknown, control: StatementControl | undefined, what: string): JunctionError {
    if (control?.stopped) return control.error();
    const errno = (err as { errno?: number }).errno;
    if (errno === ER_STATEMENT_TIMEOUT || errno === ER_QUERY_TIMEOUT) {
      return new JunctionError(
        'source_statement_timeout',
        'timeout',
        `The statement on source "${this.name}" hit the server's statement time limit.`,
        {
          details: { source: this.name },
        },
      );
    }
    if (errno === ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION)
      return notReadOnlyError(this.name, 'would change data, which the read-only transaction refused');
    return sourceError(this.name, err, this.secrets, what, mysqlDataExceptionCode(errno));
  }

  private decoders(fields: readonly FieldLike[], expected: readonly ColumnMeta[] | undefined): Decoder[] {
    return fields.map((f, i) => {
      const mapped = mapField(f);
      if (mapped.warning) this.warnings.push(`${this.name}: ${mapped.warning}`);
      const base = decoderFor(mapped.type);
      const want = expected?.[i]?.type;
      if (!want || want.kind === 'unknown' || sameRepresentation(mapped.type, want)) return base;
      return (b: Buffer) => coerce(base(b), want);
    });
  }

  async probe(): Promise<SourceSemantics> {
    const r0 = await this.execute(
      `SELECT VERSION(), @@collation_database, @@character_set_database, @@session.time_zone, @@max_allowed_packet`,
    );
    const [version, collation, charset, timeZone] = r0.rows[0].map(String);
    const safe = (s: string): string => s.replace(/[^A-Za-z0-9_]/g, '');
    // literals compare with collation_connection; columns with the database's collation
    const c = (s: string): string => `CONVERT(${literal(s)} USING ${safe(charset)}) COLLATE ${safe(collation)}`;
    const r = await this.execute(`SELECT ${c('a')} = ${c('A')}, ${c('é')} = ${c('e')}, ${c('a')} = ${c('a ')}`);
    const [ci, ai, pad] = r.rows[0].map((v) => Number(v) === 1);
    this.semantics = {
      serverVersion: version,
      defaultCollation: collation,
      caseSensitive: !ci,
      accentSensitive: !ai,
      padSpace: pad,
      timeZone,
      // the prepared-statement limit; inlined literals are bounded by max_allowed_packet instead
      maxBindParams: 65535,
      maxIdentifierLength: 64,
    };
    return this.semantics;
  }

  async introspect(): Promise<CatalogSnapshot> {
    const schema = this.config.options?.schema ?? this.config.database;
    const conn = await this.acquire();
    try {
      const q = async (sql: string, params: readonly Value[] = []): Promise<Row[]> => {
        const { rows, fields } = await this.run(conn, inlineParams(sql, params));
        const dec = this.decoders(fields, undefined);
        return rows.map((raw) => raw.map((v, i) => (v === null ? null : dec[i](v))));
      };
      const db = schema ?? String((await q('SELECT DATABASE()'))[0][0] ?? '');
      const snap = await introspectMysql(q, db);
      this.warnings.push(...snap.warnings);
      return withoutBookkeeping(snap);
    } catch (err) {
      throw sourceError(this.name, err, this.secrets, 'introspection');
    } finally {
      conn.release();
    }
  }

  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const batchSize = options.batchSize ?? 1024;
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    let conn: Conn | undefined;
    let queue: BatchQueue<RawRow> | undefined;
    let kill: Promise<void> | undefined;
    let healthy = true;
    let onLost: ((err?: unknown) => void) | undefined;
    let completed = false;
    try {
      control.throwIfStopped();
      const sql = inlineParams(query.sql, query.params);
      conn = await this.acquire(control);
      const c = conn;
      const q = new BatchQueue<RawRow>(
        batchSize,
        () => c.pause(),
        () => c.resume(),
        undefined,
        options.batchBytes === undefined ? undefined : { maxBytes: options.batchBytes, sizeOf: textRowBytes },
      );
      queue = q;
      let fields: FieldLike[] | undefined;
      const cmd = c.query({ sql, rowsAsArray: true, typeCast: false });
      cmd.on('fields', (f: unknown) => (fields = f as FieldLike[]));
      // a statement without a result set reports one OkPacket as its 'result'
      cmd.on('result', (row: unknown) => fields && q.push(row as RawRow));
      cmd.on('error', (err: unknown) => q.fail(err));
      cmd.on('end', () => q.end());
      // a connection that dies under a streaming query tells only the connection, never the query
      onLost = (err?: unknown) => {
        healthy = false;
        q.fail(err ?? new Error('Connection lost: the server closed the connection.'));
      };
      c.on('error', onLost);
      c.on('end', onLost);
      control.setCanceller(() => {
        kill ??= this.killQuery(c.threadId);
        // the consumer hears the stop now, not when a possibly frozen server answers the KILL
        q.interrupt(control.error());
      });
      let decoders: Decoder[] | undefined;
      for (;;) {
        let raws: RawRow[] | undefined;
        try {
          raws = await q.next();
        } catch (err) {
          throw this.failure(err, control, 'query');
        }
        // an interrupted SLEEP() ends normally: only the control knows it was cancelled
        control.throwIfStopped();
        if (!raws) break;
        decoders ??= this.decoders(fields ?? [], query.columns);
        yield { rows: decodeRows(raws, decoders) };
        control.throwIfStopped();
      }
      completed = true;
      this.answered();
    } finally {
      control.dispose();
      const c = conn;
      const lost = onLost;
      const detach = (): void => {
        if (c && lost) {
          c.removeListener('error', lost);
          c.removeListener('end', lost);
        }
      };
      if (!c) {
        // never held a connection
      } else if (completed && !kill && healthy) {
        detach();
        c.release();
      } else {
        const q = queue;
        const settle = async (): Promise<boolean> => {
          if (q && !q.finished) {
            // stopped early: the server is still sending, so stop the statement and drain the rest
            kill ??= this.killQuery(c.threadId);
            await q.drain();
          }
          if (kill) {
            await kill;
            return healthy && (await this.settle(c));
          }
          return healthy;
        };
        this.retire(
          settle(),
          () => {
            detach();
            c.release();
          },
          () => {
            // keep a listener: a destroyed connection may still report its socket's error
            c.on('error', () => undefined);
            c.destroy();
          },
        );
      }
    }
  }

  /**
   * With `readOnly` the statement runs inside START TRANSACTION READ ONLY on one connection.
   * That alone is not enough: DDL, account management and the like commit the transaction
   * implicitly and then run (MariaDB 10.11 creates tables and users inside one), so only
   * statements that start as queries are sent (runtime/native-sql.ts). The connection never
   * enables multipleStatements, so the server refuses a second statement.
   * A stop (signal or timeout) rejects at once; KILL QUERY and the connection's return happen
   * in the background, as for stream().
   */
  async execute(
    sql: string,
    params: readonly Value[] = [],
    options: ExecuteOptions = {},
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }> {
    const readOnly = options.readOnly === true;
    if (readOnly) assertReadingStatement(this.name, sql, 'mysql');
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    const text = inlineParams(sql, params);
    let conn: Conn;
    try {
      conn = await this.acquire(control);
    } catch (err) {
      control.dispose();
      throw err;
    }
    const c = conn;
    let kill: Promise<void> | undefined;
    let stop!: (err: JunctionError) => void;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    control.setCanceller(() => {
      kill ??= this.killQuery(c.threadId);
      // the caller hears the stop now, not when a possibly frozen server answers the KILL
      stop(control.error());
    });
    let healthy = true;
    const run = async (): Promise<{ rows: RawRow[]; fields: FieldLike[]; affected: number }> => {
      if (!readOnly) return this.run(c, text);
      await this.run(c, 'START TRANSACTION READ ONLY');
      try {
        const res = await this.run(c, text);
        await this.run(c, 'COMMIT');
        return res;
      } catch (err) {
        await this.run(c, 'ROLLBACK').catch(() => (healthy = false));
        throw err;
      }
    };
    const work = run();
    work.catch(() => undefined);
    try {
      let res: { rows: RawRow[]; fields: FieldLike[]; affected: number };
      try {
        res = await Promise.race([work, stopped]);
      } catch (err) {
        throw this.failure(err, control, 'statement');
      }
      // an interrupted SLEEP() ends normally: only the control knows it was cancelled
      control.throwIfStopped();
      const decoders = this.decoders(res.fields, undefined);
      const rows = res.rows.map((raw) => raw.map((v, i) => (v === null ? null : decoders[i](v))));
      const columns: ColumnMeta[] = res.fields.map((f) => ({ name: f.name, type: mapField(f).type, nullable: true }));
      this.answered();
      return { rowCount: res.affected, rows, columns };
    } finally {
      control.dispose();
      const k = kill;
      if (!k) {
        if (healthy) c.release();
        else c.destroy();
      } else {
        const settle = async (): Promise<boolean> => {
          await work.catch(() => undefined);
          await k;
          return healthy && (await this.settle(c));
        };
        this.retire(
          settle(),
          () => c.release(),
          () => {
            c.on('error', () => undefined);
            c.destroy();
          },
        );
      }
    }
  }

  /**
   * LOAD DATA LOCAL from an in-memory stream (no file is read: the stream factory ignores
   * the path the server asks for) is several times faster than INSERT; servers with
   * local_infile off get multi-row INSERTs instead.
   */
  async bulkLoad(table: BulkTable, rows: AsyncIterable<readonly Row[]>): Promise<number> {
    const target = (table.schema ? quoteIdent(table.schema) + '.' : '') + quoteIdent(table.name);
    const conn = await this.acquire();
    let healthy = true;
    try {
      const [local] = (await this.run(conn, 'SELECT @@local_infile')).rows[0];
      await this.run(conn, 'SET SESSION unique_checks = 0, foreign_key_checks = 0');
      await this.run(conn, 'START TRANSACTION');
      const count =
        local?.toString('latin1') === '1'
          ? await this.loadData(conn, target, table, rows)
          : await this.insertRows(conn, target, table, rows);
      await this.run(conn, 'COMMIT');
      await this.run(conn, 'SET SESSION unique_checks = 1, foreign_key_checks = 1');
      return count;
    } catch (err) {
      healthy = false;
      throw sourceError(this.name, err, this.secrets, `bulk load into ${table.name}`);
    } finally {
      // a failed load leaves an open transaction and relaxed checks behind: drop that connection
      if (healthy) conn.release();
      else conn.destroy();
    }
  }

  private async loadData(
    conn: Conn,
    target: string,
    table: BulkTable,
    rows: AsyncIterable<readonly Row[]>,
  ): Promise<number> {
    const encoders = table.columns.map((c) => fieldEncoder(c.type));
    let count = 0;
    async function* chunks(): AsyncIterable<Buffer> {
      let parts: string[] = [];
      let size = 0;
      for await (const batch of rows) {
        const text = encodeRows(batch, encoders);
        count += batch.length;
        parts.push(text);
        size += text.length;
        // each chunk becomes one protocol packet: stay far below its 16 MB ceiling
        if (size >= 1 << 20) {
          yield Buffer.from(parts.join(''), 'utf8');
          parts = [];
          size = 0;
        }
      }
      if (parts.length) yield Buffer.from(parts.join(''), 'utf8');
    }
    const source = Readable.from(chunks(), { objectMode: false });
    const sql = loadDataStatement(target, table.columns, quoteIdent);
    const { affected, warnings } = await new Promise<{ affected: number; warnings: number }>((resolve, reject) => {
      conn.query({ sql, infileStreamFactory: () => source } as mysql.QueryOptions, (err, res) => {
        if (err) return reject(err);
        const h = res as mysql.ResultSetHeader;
        resolve({ affected: h.affectedRows ?? 0, warnings: h.warningStatus ?? 0 });
      });
    });
    // LOCAL implies IGNORE: a value the column cannot hold is truncated with only a warning,
    // where an INSERT in strict mode fails. A load must be exact, so warnings fail it.
    if (warnings > 0) {
      const shown = (await this.run(conn, 'SHOW WARNINGS LIMIT 3')).rows.map((r) => r[2]?.toString('utf8'));
      throw new Error(`LOAD DATA reported ${warnings} warning(s), e.g. ${shown.join('; ')}`);
    }
    if (affected !== count) throw new Error(`LOAD DATA stored ${affected} of ${count} rows`);
    return count;
  }

  private async insertRows(
    conn: Conn,
    target: string,
    table: BulkTable,
    rows: AsyncIterable<readonly Row[]>,
  ): Promise<number> {
    const head = `INSERT INTO ${target} (${table.columns.map((c) => quoteIdent(c.name)).join(', ')}) VALUES `;
    const packet = Number((await this.run(conn, 'SELECT @@max_allowed_packet')).rows[0][0]?.toString('latin1'));
    // statements well under max_allowed_packet; a few MB keep the server's parse cheap
    const limit = Math.max(64 * 1024, Math.min(4 * 1024 * 1024, Math.floor(packet / 2)));
    let count = 0;
    let pending: Promise<unknown> | undefined;
    let parts: string[] = [];
    let size = head.length;
    const flush = async (): Promise<void> => {
      const sql = head + parts.join(',');
      parts = [];
      size = head.length;
      // the next statement is encoded while the server executes this one
      if (pending) await pending;
      pending = this.run(conn, sql);
      // awaited at the next flush; until then a failure must not count as unhandled
      pending.catch(() => undefined);
    };
    const formats = table.columns.map((c) => bulkLiteral(c.type));
    for await (const batch of rows) {
      for (const row of batch) {
        let tuple = '(';
        for (let i = 0; i < row.length; i++) tuple += (i ? ',' : '') + formats[i](row[i]);
        tuple += ')';
        if (size + tuple.length + 1 > limit && parts.length) await flush();
        parts.push(tuple);
        size += tuple.length + 1;
      }
      count += batch.length;
    }
    if (parts.length) await flush();
    if (pending) await pending;
    return count;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.pool.end(() => resolve()));
  }
}
