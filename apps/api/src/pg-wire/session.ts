import { randomUUID } from 'node:crypto';
import { JunctionError, type ColumnMeta, type JType, type Row, type Value } from '@junction/connectors';
import type { DescribeResult, QueryResult } from '@junction/query-core';
import type { Principal } from '../plugins/auth.js';
import type { CatalogShadow, ShadowCatalog } from './catalog/shadow.js';
import { formatAt, Output, ProtocolError, readBind, readParse, Reader } from './messages.js';
import { wireErrorOf } from './sqlstate.js';
import { classify, splitStatements, type StatementKind } from './statements.js';
import { binaryOf, OID, textOf, typeOfOid, wireType, paramValue } from './types.js';
import { SessionSettings } from './settings.js';

/** What a session needs from the server: the same services POST /api/v1/query uses. */
export interface WireBackend {
  startQuery(
    p: Principal,
    sql: string,
    opts: { params: Value[]; timeoutMs?: number; queryId: string; signal: AbortSignal },
  ): Promise<{ id: string; result: QueryResult; release: () => void }>;
  describe(p: Principal, sql: string): Promise<DescribeResult>;
  explain(p: Principal, sql: string, opts: { analyze: boolean; signal: AbortSignal }): Promise<{ text: string }>;
  record(
    p: Principal,
    entry: { queryId: string; sql: string; params?: unknown[]; started: number; rows?: number | null; error?: unknown },
  ): Promise<void>;
  /** the principal as it is now (a token revoked or a user disabled since sign-in: undefined) */
  current(p: Principal): Promise<Principal | undefined>;
  catalog(p: Principal): Promise<ShadowCatalog>;
  shadow: Pick<CatalogShadow, 'simpleQuery' | 'describe' | 'execute'>;
}

/** An error already framed by the shadow catalog (PostgreSQL's own ErrorResponse). */
class FramedError extends Error {
  constructor(readonly bytes: Uint8Array) {
    super('shadow catalog error');
  }
}

interface Statement {
  readonly sql: string;
  readonly kind: StatementKind;
  readonly declared: readonly number[];
  /** engine statements: what binding said */
  readonly described?: DescribeResult;
  /** catalog statements: what PostgreSQL said */
  readonly catalog?: { paramOids: number[]; rowDescription: Uint8Array | null };
}

interface Running {
  readonly queryId: string;
  readonly iterator: AsyncIterator<readonly Row[]>;
  readonly result: QueryResult;
  readonly release: () => void;
  readonly started: number;
  readonly params: Value[];
  pending: readonly Row[];
  at: number;
  rows: number;
}

interface Portal {
  readonly statement: Statement;
  readonly params: Value[];
  readonly paramFormats: number[];
  readonly resultFormats: number[];
  run?: Running;
  /** a SQL cursor declared WITH HOLD: it outlives the transaction */
  hold?: boolean;
  /** catalog portals: the whole reply, served in Execute-sized slices */
  reply?: { rowDescription: Uint8Array | null; rows: readonly Uint8Array[]; complete: Uint8Array; at: number };
  done?: boolean;
}

type Encoder = (out: Output, v: Value) => void;
const FLUSH_BYTES = 256 * 1024;

function encoderOf(type: JType, format: number): Encoder {
  if (format === 1) return (out, v) => out.bytesValue(binaryOf(type, v));
  switch (type.kind) {
    case 'string':
    case 'decimal':
    case 'date':
    case 'time':
    case 'uuid':
    case 'json':
    case 'unknown':
      return (out, v) => out.text(v === null ? null : typeof v === 'string' ? v : String(v));
    case 'int16':
    case 'int32':
    case 'int64':
      return (out, v) => out.text(v === null ? null : String(v));
    default:
      return (out, v) => out.text(textOf(type, v));
  }
}

/**
 * One client connection after sign-in: the simple and extended query protocols mapped onto
 * Junction's query service. Replies are buffered until Sync, Flush or 256 KiB, and rows stream
 * in batches with the socket's back-pressure (the generator is awaited write by write).
 */
export class WireSession {
  readonly statements = new Map<string, Statement>();
  readonly portals = new Map<string, Portal>();
  readonly settings: SessionSettings;
  #out = new Output();
  #status: 'I' | 'T' | 'E' = 'I';
  /** after an error in the extended protocol, messages up to Sync are skipped */
  #skipping = false;
  #cancel: AbortController | undefined;
  /** the portal whose rows are being sent now (a simple query's is in no map) */
  #active: Portal | undefined;
  /** where the statement being parsed or run starts its inner query (EXPLAIN, COPY, DECLARE) */
  #errorOffset = 0;
  #principal: Principal;

  constructor(
    private readonly backend: WireBackend,
    principal: Principal,
    startup: Record<string, string>,
  ) {
    this.#principal = principal;
    this.settings = new SessionSettings(principal.username, startup);
  }

  /** What follows AuthenticationOk: the parameters clients read, and the key a cancel names. */
  greeting(pid: number, secret: number, serverVersion: string): Buffer {
    const out = new Output();
    for (const [name, value] of this.settings.reported(serverVersion)) out.parameterStatus(name, value);
    out.backendKeyData(pid, secret);
    return out.take();
  }

  /** A CancelRequest naming this session: stops what runs now, as PostgreSQL does. */
  cancel(): void {
    this.#cancel?.abort(new JunctionError('query_cancelled', 'cancelled', 'The client sent a cancel request.'));
  }

  /** The client went away: whatever still runs stops and gives back its slot. */
  close(): void {
    this.cancel();
    if (this.#active) this.#closePortal(this.#active);
    for (const portal of this.portals.values()) this.#closePortal(portal);
    this.portals.clear();
  }

  async *handle(message: Buffer): AsyncGenerator<Buffer> {
    const r = new Reader(message);
    const type = r.type;
    if (this.#skipping && type !== 'S') return;
    this.#errorOffset = 0;
    try {
      switch (type) {
        case 'Q':
          yield* this.#simpleQuery(r.cstring());
          return;
        case 'P':
          await this.#parse(r);
          return;
        case 'B':
          await this.#bind(r);
          return;
        case 'D':
          this.#describe(r);
          return;
        case 'E':
          yield* this.#execute(r.cstring(), r.int32());
          return;
        case 'C': {
          const what = r.byte();
          const name = r.cstring();
          if (what === 'S') this.statements.delete(name);
          else {
            const p = this.portals.get(name);
            if (p) this.#closePortal(p);
            this.portals.delete(name);
          }
          this.#out.closeComplete();
          return;
        }
        case 'H':
          if (this.#out.length > 0) yield this.#out.take();
          return;
        case 'S':
          this.#skipping = false;
          // outside a transaction block, Sync ends the implicit transaction and its portals
          if (this.#status === 'I') this.#closeAllPortals();
          this.#out.readyForQuery(this.#status);
          yield this.#out.take();
          return;
        case 'F':
          throw new JunctionError(
            'feature_not_supported',
            'unsupported',
            'The function-call protocol is not supported.',
          );
        case 'd':
        case 'c':
        case 'f':
          // COPY FROM STDIN is refused before it starts; stray copy messages are ignored as PostgreSQL does
          return;
        default:
          throw new ProtocolError(`unknown message type "${type}"`);
      }
    } catch (e) {
      this.#failed(e, this.#errorOffset);
      if (type === 'Q') {
        this.#out.readyForQuery(this.#status);
        yield this.#out.take();
      } else this.#skipping = true;
    }
  }

  #failed(e: unknown, offset = 0): void {
    if (e instanceof FramedError) this.#out.raw(e.bytes);
    else if (e instanceof ProtocolError) this.#out.error({ sqlstate: '08P01', message: e.message });
    else this.#out.error(wireErrorOf(e, offset));
    if (this.#status === 'T') this.#status = 'E';
  }

  // ------------------------------------------------------------------ simple query

  async *#simpleQuery(sql: string): AsyncGenerator<Buffer> {
    const pieces = splitStatements(sql);
    for (const piece of pieces) {
      const kind = classify(piece.text);
      if (
        this.#status === 'E' &&
        !(kind.kind === 'session' && ['rollback', 'abort', 'commit', 'end'].includes(kind.verb))
      ) {
        this.#out.error({
          sqlstate: '25P02',
          message: 'current transaction is aborted, commands ignored until end of transaction block',
        });
        break;
      }
      try {
        yield* this.#runSimple(piece.text, kind);
      } catch (e) {
        this.#failed(e, piece.offset + innerOffset(piece.text, kind));
        break;
      }
      if (this.#out.length > FLUSH_BYTES) yield this.#out.take();
    }
    if (this.#status === 'I') this.#closeAllPortals();
    this.#out.readyForQuery(this.#status);
    yield this.#out.take();
  }

  async *#runSimple(sql: string, kind: StatementKind): AsyncGenerator<Buffer> {
    switch (kind.kind) {
      case 'empty':
        this.#out.emptyQuery();
        return;
      case 'session':
        this.#session(sql, kind.verb, true);
        return;
      case 'refused':
        throw this.#refusal(kind.verb);
      case 'forbidden':
        throw this.#forbidden(kind.what);
      case 'declare':
        await this.#declare(kind, []);
        return;
      case 'fetch':
        yield* this.#fetch(kind, true);
        return;
      case 'close':
        this.#closeCursor(kind.name);
        return;
      case 'catalog': {
        const p = await this.#allowed();
        this.#out.raw(await this.backend.shadow.simpleQuery(await this.backend.catalog(p), sql));
        return;
      }
      case 'explain':
        await this.#explain(kind.query, kind.analyze, true);
        return;
      case 'copy':
        yield* this.#copy(kind);
        return;
      case 'query': {
        const portal: Portal = {
          statement: { sql, kind, declared: [] },
          params: [],
          paramFormats: [],
          resultFormats: [],
        };
        yield* this.#run(portal, 0, { describe: true });
        return;
      }
    }
  }

  // ------------------------------------------------------------------ extended protocol

  async #parse(r: Reader): Promise<void> {
    const { name, sql, paramOids } = readParse(r);
    if (name !== '' && this.statements.has(name))
      throw new JunctionError('duplicate_prepared_statement', 'user', `prepared statement "${name}" already exists`);
    const pieces = splitStatements(sql);
    if (pieces.length > 1)
      throw new JunctionError('syntax_error', 'user', 'cannot insert multiple commands into a prepared statement');
    const kind = classify(sql);
    this.#errorOffset = innerOffset(sql, kind);
    let statement: Statement = { sql, kind, declared: paramOids };
    if (kind.kind === 'refused') throw this.#refusal(kind.verb);
    if (kind.kind === 'forbidden') throw this.#forbidden(kind.what);
    if (kind.kind === 'query' || kind.kind === 'declare') {
      const p = await this.#allowed();
      statement = {
        ...statement,
        described: await this.backend.describe(p, kind.kind === 'declare' ? kind.query : sql),
      };
    } else if (kind.kind === 'catalog') {
      const p = await this.#allowed();
      const d = await this.backend.shadow.describe(await this.backend.catalog(p), sql, paramOids);
      if ('error' in d) throw new FramedError(d.error);
      statement = { ...statement, catalog: d };
    }
    this.statements.set(name, statement);
    this.#out.parseComplete();
  }

  async #bind(r: Reader): Promise<void> {
    const m = readBind(r);
    const statement = this.statements.get(m.statement);
    if (!statement)
      throw new JunctionError(
        'undefined_prepared_statement',
        'user',
        `prepared statement "${m.statement}" does not exist`,
      );
    if (m.portal !== '' && this.portals.has(m.portal))
      throw new JunctionError('duplicate_cursor', 'user', `portal "${m.portal}" already exists`);
    const existing = this.portals.get(m.portal);
    if (existing) this.#closePortal(existing);
    const portal: Portal = {
      statement,
      params: [],
      paramFormats: m.paramFormats,
      resultFormats: m.resultFormats,
    };
    if (statement.kind.kind === 'query' || statement.kind.kind === 'declare') {
      const inferred = statement.described!.paramTypes;
      if (m.params.length < inferred.length)
        throw new JunctionError(
          'missing_parameter',
          'user',
          `bind message supplies ${m.params.length} parameters, but prepared statement "${m.statement}" requires ${inferred.length}`,
        );
      m.params.forEach((raw, i) =>
        portal.params.push(
          paramValue(raw, formatAt(m.paramFormats, i), typeOfOid(statement.declared[i] ?? 0), inferred[i]),
        ),
      );
    } else if (statement.kind.kind === 'catalog') {
      const p = await this.#allowed();
      const reply = await this.backend.shadow.execute(
        await this.backend.catalog(p),
        statement.sql,
        statement.declared,
        m.paramFormats,
        m.params,
        m.resultFormats,
      );
      if ('error' in reply) throw new FramedError(reply.error);
      portal.reply = { ...reply, at: 0 };
    }
    this.portals.set(m.portal, portal);
    this.#out.bindComplete();
  }

  #describe(r: Reader): void {
    const what = r.byte();
    const name = r.cstring();
    if (what === 'S') {
      const s = this.statements.get(name);
      if (!s)
        throw new JunctionError('undefined_prepared_statement', 'user', `prepared statement "${name}" does not exist`);
      if (s.catalog) {
        this.#out.parameterDescription(s.catalog.paramOids);
        if (s.catalog.rowDescription) this.#out.raw(s.catalog.rowDescription);
        else this.#out.noData();
        return;
      }
      const inferred = s.described?.paramTypes ?? [];
      const count = Math.max(inferred.length, s.declared.length);
      const oids: number[] = [];
      for (let i = 0; i < count; i++) oids.push(s.declared[i] || (inferred[i] ? wireType(inferred[i]!).oid : OID.text));
      this.#out.parameterDescription(oids);
      this.#rowDescription(s, []);
      return;
    }
    const portal = this.portals.get(name);
    if (!portal) throw new JunctionError('undefined_cursor', 'user', `portal "${name}" does not exist`);
    if (portal.reply) {
      if (portal.reply.rowDescription) this.#out.raw(portal.reply.rowDescription);
      else this.#out.noData();
      return;
    }
    this.#rowDescription(portal.statement, portal.resultFormats);
  }

  #rowDescription(s: Statement, formats: readonly number[]): void {
    const columns = this.#columnsOf(s);
    if (!columns) {
      this.#out.noData();
      return;
    }
    this.#out.rowDescription(
      columns.map((c, i) => ({ name: c.name, ...wireType(c.type), format: formatAt(formats, i) })),
    );
  }

  /** The columns a statement returns; undefined: it returns no rows (NoData). */
  #columnsOf(s: Statement): readonly ColumnMeta[] | undefined {
    switch (s.kind.kind) {
      case 'query':
        return s.described!.columns;
      case 'explain':
        return [{ name: 'QUERY PLAN', type: { kind: 'string' }, nullable: false }];
      case 'session':
        return s.kind.verb === 'show' ? this.settings.showColumns(s.sql) : undefined;
      case 'fetch': {
        const cursor = this.portals.get(s.kind.name);
        return cursor ? this.#columnsOf(cursor.statement) : undefined;
      }
      default:
        return undefined;
    }
  }

  async *#execute(name: string, maxRows: number): AsyncGenerator<Buffer> {
    const portal = this.portals.get(name);
    if (!portal) throw new JunctionError('undefined_cursor', 'user', `portal "${name}" does not exist`);
    const kind = portal.statement.kind;
    this.#errorOffset = innerOffset(portal.statement.sql, kind);
    if (portal.reply) {
      const reply = portal.reply;
      const end = maxRows > 0 ? Math.min(reply.rows.length, reply.at + maxRows) : reply.rows.length;
      for (; reply.at < end; reply.at++) this.#out.raw(reply.rows[reply.at]!);
      if (reply.at < reply.rows.length) this.#out.portalSuspended();
      else this.#out.raw(reply.complete);
      return;
    }
    switch (kind.kind) {
      case 'empty':
        this.#out.emptyQuery();
        return;
      case 'session':
        this.#session(portal.statement.sql, kind.verb, false);
        return;
      case 'explain':
        await this.#explain(kind.query, kind.analyze, false);
        return;
      case 'copy':
        yield* this.#copy(kind);
        return;
      case 'query':
        yield* this.#run(portal, maxRows, { describe: false });
        return;
      case 'declare':
        await this.#declare(kind, portal.params);
        return;
      case 'fetch':
        yield* this.#fetch(kind, false);
        return;
      case 'close':
        this.#closeCursor(kind.name);
        return;
      default:
        throw this.#refusal(portal.statement.sql.trim().split(/\s+/)[0]!.toUpperCase());
    }
  }

  // ------------------------------------------------------------------ running queries

  /** The caller as they are now, allowed to run SQL (the REST API's `query` permission). */
  async #allowed(): Promise<Principal> {
    const now = await this.backend.current(this.#principal);
    if (!now)
      throw new JunctionError(
        'unauthenticated',
        'auth',
        'The sign-in of this connection is no longer valid (token revoked or user disabled).',
      );
    this.#principal = now;
    if (!now.permissions.has('query'))
      throw new JunctionError(
        'forbidden',
        'forbidden',
        `permission denied: running SQL needs the query permission, which ${now.username}'s ${now.via === 'token' ? 'token' : 'role'} does not have`,
      );
    return now;
  }

  async #start(sql: string, params: Value[]): Promise<Running> {
    const p = await this.#allowed();
    const cancel = new AbortController();
    this.#cancel = cancel;
    const queryId = randomUUID();
    const started = Date.now();
    try {
      const run = await this.backend.startQuery(p, sql, {
        params,
        queryId,
        signal: cancel.signal,
        ...(this.settings.timeoutMs ? { timeoutMs: this.settings.timeoutMs } : {}),
      });
      cancel.signal.addEventListener('abort', () => run.result.cancel('cancel request'), { once: true });
      return {
        queryId,
        iterator: run.result.rows[Symbol.asyncIterator](),
        result: run.result,
        release: run.release,
        started,
        params,
        pending: [],
        at: 0,
        rows: 0,
      };
    } catch (e) {
      await this.backend.record(p, { queryId, sql, params, started, error: e });
      throw e;
    }
  }

  /**
   * Rows of a portal: up to maxRows (0: all). An Execute that stops short answers
   * PortalSuspended; a SQL FETCH answers `FETCH n` and keeps its place the same way.
   * `describe`: the simple protocol sends RowDescription before the rows.
   */
  async *#run(portal: Portal, maxRows: number, opts: { describe: boolean; fetch?: boolean }): AsyncGenerator<Buffer> {
    const tag = opts.fetch ? 'FETCH' : 'SELECT';
    if (portal.done) {
      if (opts.describe) this.#rowDescriptionOf(this.#columnsOf(portal.statement) ?? [], []);
      this.#out.commandComplete(`${tag} 0`);
      return;
    }
    const run = (portal.run ??= await this.#start(portal.statement.sql, portal.params));
    if (opts.describe) this.#rowDescriptionOf(run.result.columns, portal.resultFormats);
    const columns = run.result.columns;
    const encoders = columns.map((c, i) => encoderOf(c.type, formatAt(portal.resultFormats, i)));
    const out = this.#out;
    const n = encoders.length;
    let sent = 0;
    // a generator ended from outside (the link broke while its rows were being written) stops
    // the query and gives back its slot here, since no code after that yield runs
    let settled = false;
    this.#active = portal;
    try {
      for (;;) {
        if (run.at >= run.pending.length) {
          const next = await run.iterator.next();
          if (next.done) {
            settled = true;
            break;
          }
          run.pending = next.value;
          run.at = 0;
        }
        const rows = run.pending;
        let i = run.at;
        for (; i < rows.length; i++) {
          if (maxRows > 0 && sent === maxRows) break;
          const row = rows[i]!;
          out.begin('D').int16(n);
          for (let c = 0; c < n; c++) encoders[c]!(out, row[c]!);
          out.end();
          sent++;
        }
        run.rows += i - run.at;
        run.at = i;
        if (maxRows > 0 && sent === maxRows) {
          // more rows may follow: the portal keeps its place
          if (opts.fetch) out.commandComplete(`FETCH ${sent}`);
          else out.portalSuspended();
          settled = true;
          return;
        }
        if (out.length > FLUSH_BYTES) yield out.take();
      }
    } catch (e) {
      settled = true;
      this.#finish(portal, e);
      throw e;
    } finally {
      this.#active = undefined;
      if (!settled) this.#closePortal(portal);
    }
    this.#finish(portal);
    // PostgreSQL counts the rows of this Execute (or FETCH), not the portal's
    out.commandComplete(`${tag} ${sent}`);
  }

  #finish(portal: Portal, error?: unknown): void {
    const run = portal.run;
    if (!run || portal.done) return;
    portal.done = true;
    run.release();
    if (this.#cancel && run) this.#cancel = undefined;
    void this.backend
      .record(this.#principal, {
        queryId: run.queryId,
        sql: portal.statement.sql,
        params: run.params.map((v) =>
          typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? '(binary)' : v,
        ),
        started: run.started,
        rows: run.rows,
        ...(error !== undefined ? { error } : {}),
      })
      .catch(() => undefined);
  }

  #closePortal(portal: Portal): void {
    if (portal.run && !portal.done) {
      portal.run.result.cancel('portal closed');
      void portal.run.iterator.return?.().catch(() => undefined);
      this.#finish(
        portal,
        new JunctionError('query_cancelled', 'cancelled', 'The portal was closed before its last row.'),
      );
    }
  }

  /** The end of a transaction closes its portals and cursors, but not a cursor WITH HOLD. */
  #closeAllPortals(): void {
    for (const [name, p] of this.portals) {
      if (p.hold) continue;
      this.#closePortal(p);
      this.portals.delete(name);
    }
  }

  async #declare(kind: Extract<StatementKind, { kind: 'declare' }>, params: Value[]): Promise<void> {
    if (!kind.hold && this.#status === 'I')
      throw new JunctionError(
        'no_active_sql_transaction',
        'user',
        'DECLARE CURSOR can only be used in transaction blocks',
      );
    if (this.portals.has(kind.name))
      throw new JunctionError('duplicate_cursor', 'user', `cursor "${kind.name}" already exists`);
    const inner = classify(kind.query);
    if (inner.kind !== 'query')
      throw new JunctionError(
        'feature_not_supported',
        'unsupported',
        'A cursor reads a query over the sources (not the catalog or a session statement).',
      );
    const p = await this.#allowed();
    const described = await this.backend.describe(p, kind.query);
    this.portals.set(kind.name, {
      statement: { sql: kind.query, kind: inner, declared: [], described },
      params,
      paramFormats: [],
      resultFormats: [],
      hold: kind.hold,
    });
    this.#out.commandComplete('DECLARE CURSOR');
  }

  async *#fetch(kind: Extract<StatementKind, { kind: 'fetch' }>, describe: boolean): AsyncGenerator<Buffer> {
    const cursor = this.portals.get(kind.name);
    if (!cursor || cursor.statement.kind.kind !== 'query')
      throw new JunctionError('undefined_cursor', 'user', `cursor "${kind.name}" does not exist`);
    yield* this.#run(cursor, kind.count, { describe, fetch: true });
  }

  #closeCursor(name: string | null): void {
    if (name === null) {
      for (const p of this.portals.values()) this.#closePortal(p);
      this.portals.clear();
    } else {
      const cursor = this.portals.get(name);
      if (!cursor) throw new JunctionError('undefined_cursor', 'user', `cursor "${name}" does not exist`);
      this.#closePortal(cursor);
      this.portals.delete(name);
    }
    this.#out.commandComplete(name === null ? 'CLOSE CURSOR ALL' : 'CLOSE CURSOR');
  }

  #rowDescriptionOf(columns: readonly ColumnMeta[], formats: readonly number[]): void {
    this.#out.rowDescription(
      columns.map((c, i) => ({ name: c.name, ...wireType(c.type), format: formatAt(formats, i) })),
    );
  }

  async #explain(sql: string, analyze: boolean, simple: boolean): Promise<void> {
    const p = await this.#allowed();
    const cancel = new AbortController();
    this.#cancel = cancel;
    const { text } = await this.backend.explain(p, sql, { analyze, signal: cancel.signal });
    this.#cancel = undefined;
    if (simple) this.#rowDescriptionOf([{ name: 'QUERY PLAN', type: { kind: 'string' }, nullable: false }], []);
    const lines = text.split('\n');
    for (const line of lines) this.#out.begin('D').int16(1).text(line).end();
    this.#out.commandComplete('EXPLAIN');
  }

  /** COPY (query) TO STDOUT: what psql's \copy (query) to 'file' sends. */
  async *#copy(kind: Extract<StatementKind, { kind: 'copy' }>): AsyncGenerator<Buffer> {
    const portal: Portal = {
      statement: { sql: kind.query, kind: { kind: 'query' }, declared: [] },
      params: [],
      paramFormats: [],
      resultFormats: [],
    };
    const run = (portal.run = await this.#start(kind.query, []));
    const columns = run.result.columns;
    const out = this.#out;
    out.begin('H').byte('\0').int16(columns.length);
    for (let i = 0; i < columns.length; i++) out.int16(0);
    out.end();
    const cell = kind.csv ? csvCell : copyTextCell;
    const sep = kind.csv ? ',' : '\t';
    if (kind.header)
      out
        .begin('d')
        .raw(Buffer.from(columns.map((c) => (kind.csv ? csvCell(c.name) : copyTextCell(c.name))).join(sep) + '\n'))
        .end();
    try {
      for (;;) {
        const next = await run.iterator.next();
        if (next.done) break;
        let chunk = '';
        for (const row of next.value) {
          chunk += row.map((v, i) => cell(textOf(columns[i]!.type, v))).join(sep) + '\n';
          run.rows++;
        }
        out.begin('d').raw(Buffer.from(chunk, 'utf8')).end();
        if (out.length > FLUSH_BYTES) yield out.take();
      }
    } catch (e) {
      this.#finish(portal, e);
      out.begin('f').cstring('query failed').end();
      throw e;
    }
    this.#finish(portal);
    out.begin('c').end();
    out.commandComplete(`COPY ${run.rows}`);
  }

  // ------------------------------------------------------------------ session statements

  #session(sql: string, verb: string, simple: boolean): void {
    switch (verb) {
      case 'begin':
      case 'start':
        if (this.#status === 'T') this.#out.notice('there is already a transaction in progress');
        this.#status = this.#status === 'E' ? 'E' : 'T';
        this.#out.commandComplete(verb === 'begin' ? 'BEGIN' : 'START TRANSACTION');
        return;
      case 'commit':
      case 'end': {
        const failed = this.#status === 'E';
        this.#status = 'I';
        this.#closeAllPortals();
        this.#out.commandComplete(failed ? 'ROLLBACK' : 'COMMIT');
        return;
      }
      case 'rollback':
      case 'abort':
        if (/^\s*rollback\s+(work\s+|transaction\s+)?to\b/i.test(sql)) {
          if (this.#status === 'E') this.#status = 'T';
          this.#out.commandComplete('ROLLBACK');
          return;
        }
        this.#status = 'I';
        this.#closeAllPortals();
        this.#out.commandComplete('ROLLBACK');
        return;
      case 'savepoint':
        this.#out.commandComplete('SAVEPOINT');
        return;
      case 'release':
        this.#out.commandComplete('RELEASE');
        return;
      case 'listen':
      case 'unlisten':
        this.#out.commandComplete(verb.toUpperCase());
        return;
      case 'discard':
        this.#closeAllPortals();
        if (/\ball\b/i.test(sql)) {
          this.statements.clear();
          this.settings.resetAll();
        }
        this.#out.commandComplete(`DISCARD ${sql.trim().split(/\s+/)[1]?.toUpperCase() ?? 'ALL'}`);
        return;
      case 'deallocate': {
        const m = /^\s*deallocate\s+(?:prepare\s+)?("(?:[^"]|"")*"|\S+)/i.exec(sql);
        const name = m?.[1]?.replace(/;$/, '') ?? '';
        if (name.toLowerCase() === 'all') {
          this.statements.clear();
          this.#out.commandComplete('DEALLOCATE ALL');
          return;
        }
        const key = name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name.toLowerCase();
        if (!this.statements.delete(key) && !this.statements.delete(name))
          throw new JunctionError('undefined_prepared_statement', 'user', `prepared statement "${key}" does not exist`);
        this.#out.commandComplete('DEALLOCATE');
        return;
      }
      case 'show': {
        const { columns, rows } = this.settings.show(sql);
        if (simple) this.#rowDescriptionOf(columns, []);
        for (const row of rows) {
          this.#out.begin('D').int16(row.length);
          for (const v of row) this.#out.text(v);
          this.#out.end();
        }
        this.#out.commandComplete('SHOW');
        return;
      }
      case 'set':
      case 'reset': {
        const changed = verb === 'set' ? this.settings.set(sql) : this.settings.reset(sql);
        for (const [name, value] of changed) this.#out.parameterStatus(name, value);
        this.#out.commandComplete(verb.toUpperCase());
        return;
      }
    }
  }

  #forbidden(what: string): JunctionError {
    return new JunctionError('forbidden', 'forbidden', `permission denied: ${what} is not available through Junction`);
  }

  #refusal(verb: string): JunctionError {
    return new JunctionError(
      'read_only_sql_transaction',
      'unsupported',
      `cannot execute ${verb} through Junction: it reads sources and never writes to them`,
    );
  }
}

/** A position in an EXPLAIN's, COPY's or DECLARE's query counts from the statement's start. */
function innerOffset(text: string, kind: StatementKind): number {
  return kind.kind === 'explain' || kind.kind === 'copy' || kind.kind === 'declare'
    ? Math.max(0, text.lastIndexOf(kind.query))
    : 0;
}

function copyTextCell(v: string | null): string {
  if (v === null) return '\\N';
  return v.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

function csvCell(v: string | null): string {
  if (v === null) return '';
  return /[",\n\r]/.test(v) || v === '' ? `"${v.replaceAll('"', '""')}"` : v;
}
