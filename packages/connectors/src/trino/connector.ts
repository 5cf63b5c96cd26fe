import type { Capabilities } from '../contract/capabilities.js';
import type { CatalogSnapshot, SourceSemantics } from '../contract/catalog.js';
import type { BulkTable, ConnectionDiagnosis, Connector, ExecuteOptions, SourceConfig, StreamOptions } from '../contract/connector.js';
import { JunctionError } from '../contract/errors.js';
import type { RemoteQuery, RenderedQuery } from '../contract/remote-query.js';
import type { Batch, ColumnMeta, Row, Value } from '../contract/types.js';
import {
  authDiagnosis,
  certificateDiagnosis,
  diagnoseNetworkError,
  failed,
  timeoutDiagnosis,
  unknownDiagnosis,
  withDeadline,
  type FailedDiagnosis,
} from '../runtime/diagnosis.js';
import { redact } from '../runtime/errors.js';
import { assertReadingStatement, notReadOnlyError } from '../runtime/native-sql.js';
import { NetworkSource } from '../runtime/network-source.js';
import { StatementControl } from '../runtime/statement-control.js';
import { coerce, sameRepresentation } from '../runtime/values.js';
import { renderQuery } from '../sql/generator.js';
import { trinoCapabilities } from './capabilities.js';
import { TrinoDialect } from './dialect.js';
import { inlineParams } from './literals.js';
import { TrinoHttp, TrinoHttpError, TrinoQueryError, TrinoStatement, type TrinoColumn } from './protocol.js';
import { mapTrinoType, type TrinoDecoder } from './type-map.js';

/** Where a Junction source's tables live in Trino. */
export interface TrinoCatalogRef {
  readonly catalog: string;
  readonly schema?: string;
}

/**
 * The Trino backend's settings: host/port/user/password/TLS as for any source; `database` is
 * the session catalog and `options.schema` the session schema (both optional: rendered
 * queries name catalog and schema themselves); `options.catalogs` maps Junction source names
 * to the Trino catalogs holding their tables.
 */
export type TrinoConfig = SourceConfig & {
  readonly options?: SourceConfig['options'] & { readonly catalogs?: Readonly<Record<string, TrinoCatalogRef>> };
};

/** Trino error names that are the data's fault: the codes Junction's own evaluation raises for them. */
const DATA_ERRORS: Record<string, string> = {
  DIVISION_BY_ZERO: 'division_by_zero',
  NUMERIC_VALUE_OUT_OF_RANGE: 'numeric_value_out_of_range',
  INVALID_CAST_ARGUMENT: 'invalid_text_representation',
};

function catalogsOf(config: TrinoConfig): ReadonlyMap<string, TrinoCatalogRef> {
  const raw = config.options?.catalogs;
  const out = new Map<string, TrinoCatalogRef>();
  if (raw === undefined) return out;
  if (typeof raw !== 'object' || raw === null) throw badCatalogs(config.name, 'options.catalogs must be an object');
  for (const [source, ref] of Object.entries(raw)) {
    const r = ref as Partial<TrinoCatalogRef> | undefined;
    if (typeof r?.catalog !== 'string' || r.catalog === '' || (r.schema !== undefined && typeof r.schema !== 'string'))
      throw badCatalogs(config.name, `options.catalogs["${source}"] must be { catalog: string; schema?: string }`);
    out.set(source, { catalog: r.catalog, ...(r.schema !== undefined ? { schema: r.schema } : {}) });
  }
  return out;
}

function badCatalogs(name: string, what: string): JunctionError {
  return new JunctionError('trino_config_invalid', 'user', `Trino backend "${name}": ${what}.`, { details: { source: name } });
}

/**
 * Trino as an execution backend: one RemoteQuery may read tables of several Junction sources,
 * each through the Trino catalog it is mapped to. Statements go over Trino's HTTP protocol
 * (protocol.ts); results stream page by page, cut into batches; a stop (signal, timeout, an
 * early break) cancels the query on Trino. introspect() lists nothing: Junction reads each
 * source's catalog from the source itself, and Trino only executes.
 */
export class TrinoConnector extends NetworkSource implements Connector {
  readonly engine = 'trino' as const;
  private readonly http: TrinoHttp;
  private readonly dialect = new TrinoDialect();
  private readonly catalogs: ReadonlyMap<string, TrinoCatalogRef>;

  constructor(config: TrinoConfig) {
    super(config, 8080);
    this.catalogs = catalogsOf(config);
    const tls = config.options?.tls;
    const scheme = tls?.enabled ? 'https' : 'http';
    const host = this.host.includes(':') && !this.host.startsWith('[') ? `[${this.host}]` : this.host;
    this.http = new TrinoHttp({
      url: new URL(`${scheme}://${host}:${this.port}/`),
      user: config.user ?? 'junction',
      password: config.password,
      tls: tls?.enabled ? { rejectUnauthorized: tls.rejectUnauthorized, ca: tls.ca } : undefined,
      catalog: config.database,
      schema: config.options?.schema,
      connectTimeoutMs: this.connectTimeoutMs,
    });
  }

  /** The Trino catalog (and schema) a Junction source's tables are read through, if mapped. */
  catalogFor(source: string): TrinoCatalogRef | undefined {
    return this.catalogs.get(source);
  }

  capabilities(): Capabilities {
    return trinoCapabilities();
  }

  render(query: RemoteQuery): RenderedQuery {
    return renderQuery(this.dialect, query);
  }

  async test(): Promise<ConnectionDiagnosis> {
    const started = performance.now();
    try {
      const r = await withDeadline(
        (async () => {
          const info = JSON.parse((await this.http.request('GET', '/v1/info')).body) as { nodeVersion?: { version?: string }; starting?: boolean };
          if (info.starting) throw new Error('Trino is still starting');
          // /v1/info answers anyone: a statement proves the credentials
          await this.run('SELECT 1', undefined);
          return info.nodeVersion?.version ?? 'unknown';
        })(),
        this.connectTimeoutMs + 250,
      );
      if ('timedOut' in r) return timeoutDiagnosis(this.target);
      return { ok: true, serverVersion: `Trino ${r.value}`, latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      return this.diagnose(err);
    }
  }

  protected diagnose(err: unknown): FailedDiagnosis {
    const net = diagnoseNetworkError(err, this.target);
    if (net) return net;
    const cert = certificateDiagnosis(err, this.target);
    if (cert) return cert;
    if (err instanceof TrinoHttpError && err.status === 401) return authDiagnosis(this.target, this.config.user);
    if (err instanceof Error && /still starting/.test(err.message))
      return failed('unknown', `Trino at ${this.host}:${this.port} (source "${this.name}") is still starting.`, 'Wait until it has started (GET /v1/info says "starting": false) and try again.', this.target);
    if (err instanceof Error && /ETIMEDOUT|timed out/i.test(err.message)) return timeoutDiagnosis(this.target);
    return unknownDiagnosis(this.target, err);
  }

  async probe(): Promise<SourceSemantics> {
    const info = JSON.parse((await this.http.request('GET', '/v1/info').catch((e: unknown) => Promise.reject(this.unavailable(e)))).body) as {
      nodeVersion?: { version?: string };
    };
    this.semantics = {
      serverVersion: `Trino ${info.nodeVersion?.version ?? 'unknown'}`,
      // varchar compares by code point, case-, accent- and blank-sensitive
      defaultCollation: 'ucs_basic',
      caseSensitive: true,
      accentSensitive: true,
      padSpace: false,
      timeZone: 'UTC',
      maxBindParams: 65535,
      maxIdentifierLength: 1024,
    };
    return this.semantics;
  }

  async introspect(): Promise<CatalogSnapshot> {
    return {
      defaultSchema: this.config.options?.schema ?? '',
      tables: [],
      introspectedAt: new Date().toISOString(),
      warnings: ['The Trino backend is not introspected: each source\'s tables are read from the source itself.'],
    };
  }

  /** The text of Trino's distributed plan for a statement (EXPLAIN (TYPE DISTRIBUTED)). */
  async explainDistributed(sql: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    const r = await this.execute(`EXPLAIN (TYPE DISTRIBUTED) ${sql}`, [], { signal: options.signal });
    return r.rows.map((row) => String(row[0])).join('\n');
  }

  /**
   * Lists a catalog's schemas: fails, with the error Trino gives, when Trino cannot reach or log
   * in to the database behind the catalog. Tells which source a failed statement could not read.
   */
  async checkCatalog(catalog: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.execute(`SHOW SCHEMAS FROM ${this.dialect.quoteIdentifier(catalog)}`, [], { signal: options.signal, readOnly: true });
  }

  /** A failure of Trino or of the way to it, as the JunctionError every connector raises. */
  private failure(err: unknown, control: StatementControl | undefined, what: string): JunctionError {
    if (control?.stopped) return control.error();
    if (err instanceof JunctionError) return err;
    if (err instanceof TrinoQueryError) {
      const { errorName, errorType, errorCode, message } = err.info;
      const details = { source: this.name, errorName, errorType, errorCode, queryId: err.queryId };
      const text = redact(message, this.secrets, [this.name]);
      if (errorName === 'USER_CANCELED')
        return new JunctionError('source_statement_cancelled', 'cancelled', `The statement on source "${this.name}" was cancelled on Trino.`, { details });
      if (errorName === 'EXCEEDED_TIME_LIMIT')
        return new JunctionError('source_statement_timeout', 'timeout', `The statement on source "${this.name}" hit Trino's query time limit: ${text}`, { details });
      const dataCode = DATA_ERRORS[errorName];
      if (dataCode) return new JunctionError(dataCode, 'user', text, { details });
      return new JunctionError('source_error', 'external', `Source "${this.name}" failed the ${what}: ${errorName}: ${text}`, {
        cause: new Error(text),
        details,
      });
    }
    if (err instanceof TrinoHttpError && err.status === 401) {
      const d = authDiagnosis(this.target, this.config.user);
      return new JunctionError('source_unavailable', 'external', d.message, { details: { source: this.name, diagnosis: d.code, hint: d.hint } });
    }
    if (err instanceof TrinoHttpError) {
      return new JunctionError('source_error', 'external', redact(`Source "${this.name}" failed the ${what}: ${err.message}`, this.secrets, [this.name]), {
        details: { source: this.name, httpStatus: err.status },
      });
    }
    // the request never got an answer: Trino is down or unreachable
    return this.unavailable(err);
  }

  /** Runs a statement to its end, every row decoded; the control stops it on Trino. */
  private async run(sql: string, control: StatementControl | undefined, headers?: Record<string, string>): Promise<{ statement: TrinoStatement; rows: Row[]; columns: ColumnMeta[] }> {
    const statement = new TrinoStatement(this.http, sql, headers);
    control?.setCanceller(() => void statement.cancel());
    const rows: Row[] = [];
    let decoders: TrinoDecoder[] | undefined;
    let columns: ColumnMeta[] = [];
    try {
      for (;;) {
        const page = await statement.next();
        control?.throwIfStopped();
        if (!page) break;
        if (page.columns && !decoders) ({ decoders, columns } = this.decoders(page.columns, undefined));
        if (decoders) for (const raw of page.rows) rows.push(decode(raw, decoders));
      }
      if (statement.columns && !decoders) columns = this.decoders(statement.columns, undefined).columns;
      return { statement, rows, columns };
    } catch (err) {
      if (!statement.done) void statement.cancel();
      throw this.failure(err, control, 'statement');
    }
  }

  private decoders(cols: readonly TrinoColumn[], expected: readonly ColumnMeta[] | undefined): { decoders: TrinoDecoder[]; columns: ColumnMeta[] } {
    const columns: ColumnMeta[] = [];
    const decoders = cols.map((c, i) => {
      const mapped = mapTrinoType(c.type);
      if (mapped.warning) this.warnings.push(`${this.name}: column "${c.name}": ${mapped.warning}`);
      columns.push({ name: c.name, type: mapped.type, nullable: true });
      const want = expected?.[i]?.type;
      if (!want || want.kind === 'unknown' || sameRepresentation(mapped.type, want)) return mapped.decode;
      return (raw: unknown) => coerce(mapped.decode(raw), want);
    });
    return { decoders, columns };
  }

  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const batchSize = options.batchSize ?? 1024;
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    let statement: TrinoStatement | undefined;
    try {
      control.throwIfStopped();
      const s = (statement = new TrinoStatement(this.http, inlineParams(query.sql, query.params)));
      control.setCanceller(() => void s.cancel());
      let decoders: TrinoDecoder[] | undefined;
      let pending: Row[] = [];
      // the next page is asked for while this one's rows are decoded and consumed
      let ahead = s.next();
      ahead.catch(() => undefined);
      for (;;) {
        let page: Awaited<ReturnType<TrinoStatement['next']>>;
        try {
          page = await ahead;
        } catch (err) {
          throw this.failure(err, control, 'query');
        }
        control.throwIfStopped();
        if (!page) break;
        ahead = s.next();
        ahead.catch(() => undefined);
        if (!decoders && page.columns) decoders = this.decoders(page.columns, query.columns).decoders;
        if (!decoders) continue;
        for (const raw of page.rows) {
          pending.push(decode(raw, decoders));
          if (pending.length >= batchSize) {
            const rows = pending;
            pending = [];
            yield { rows };
            control.throwIfStopped();
          }
        }
      }
      if (pending.length > 0) yield { rows: pending };
      this.answered();
    } finally {
      control.dispose();
      // stopped, failed or left early: the query may still run on Trino
      if (statement && !statement.done) void statement.cancel();
    }
  }

  /**
   * One statement. With `readOnly` it runs inside a READ ONLY transaction (Trino then refuses
   * any write) after the text was checked to be a single query; EXPLAIN ANALYZE is refused
   * because it runs its statement.
   */
  async execute(
    sql: string,
    params: readonly Value[] = [],
    options: ExecuteOptions = {},
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }> {
    const text = inlineParams(sql, params);
    if (options.readOnly) {
      assertReadingStatement(this.name, text, 'postgresql');
      if (/^\s*EXPLAIN\s+ANALYZE\b/i.test(text))
        throw notReadOnlyError(this.name, 'is EXPLAIN ANALYZE, which runs its statement');
    }
    const control = new StatementControl(this.name, options.signal, options.timeoutMs ?? this.statementTimeoutMs);
    try {
      control.throwIfStopped();
      if (!options.readOnly) {
        const r = await this.run(text, control);
        this.answered();
        return { rowCount: r.rows.length, rows: r.rows, columns: r.columns };
      }
      const begin = await this.run('START TRANSACTION READ ONLY', control, { 'X-Trino-Transaction-Id': 'NONE' });
      const id = begin.statement.lastHeaders['x-trino-started-transaction-id'];
      if (typeof id !== 'string') throw new JunctionError('trino_transaction', 'external', `Trino (source "${this.name}") did not start a read-only transaction.`);
      const tx = { 'X-Trino-Transaction-Id': id };
      try {
        const r = await this.run(text, control, tx);
        await this.run('COMMIT', undefined, tx);
        this.answered();
        return { rowCount: r.rows.length, rows: r.rows, columns: r.columns };
      } catch (err) {
        await this.run('ROLLBACK', undefined, tx).catch(() => undefined);
        // Trino's own refusal, or the source's (Trino's JDBC connectors read through read-only connections)
        if (err instanceof JunctionError && (err.details?.errorName === 'READ_ONLY_VIOLATION' || /read-only transaction/i.test(err.message)))
          throw notReadOnlyError(this.name, 'would change data, which the read-only transaction refused');
        throw err;
      }
    } finally {
      control.dispose();
    }
  }

  async bulkLoad(_table: BulkTable, _rows: AsyncIterable<readonly Row[]>): Promise<number> {
    throw new JunctionError('bulk_load_unsupported', 'unsupported', `Trino (source "${this.name}") only executes queries: load data into the source itself.`, {
      details: { source: this.name },
    });
  }

  async close(): Promise<void> {
    this.http.close();
  }
}

function decode(raw: readonly unknown[], decoders: readonly TrinoDecoder[]): Row {
  const row: Row = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i];
    row[i] = v === null || v === undefined ? null : decoders[i](v);
  }
  return row;
}
