import Database from 'better-sqlite3';
import fs from 'node:fs';
import type { Capabilities } from '../contract/capabilities.js';
import type {
  CatalogSnapshot,
  ColumnInfo,
  ForeignKeyInfo,
  IndexInfo,
  SourceSemantics,
  TableInfo,
} from '../contract/catalog.js';
import { withoutBookkeeping } from '../contract/catalog.js';
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
import { sourceError } from '../runtime/errors.js';
import { StatementControl } from '../runtime/statement-control.js';
import { attachRefusedError, leadingKeyword, lex, multipleStatementsError, notReadOnlyError } from '../runtime/native-sql.js';
import { renderFor } from '../sql/dialects.js';
import { capabilitiesFor } from './capabilities.js';
import { stat1Estimates, type IndexShape, type Stat1Row } from './stats.js';
import { decodeByValue, decodeValue, mapDeclaredType, typeOfValue } from './type-map.js';

type Raw = null | bigint | number | string | Buffer;
type Db = Database.Database;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function toParam(v: Value): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

/** PRAGMAs whose argument only names what to read; every other PRAGMA with a value changes a setting. */
const READING_PRAGMAS = new Set([
  'TABLE_INFO',
  'TABLE_XINFO',
  'TABLE_LIST',
  'INDEX_INFO',
  'INDEX_XINFO',
  'INDEX_LIST',
  'FOREIGN_KEY_LIST',
  'FOREIGN_KEY_CHECK',
  'INTEGRITY_CHECK',
  'QUICK_CHECK',
]);

/**
 * Why a PRAGMA given a value is not a read. sqlite3_stmt_readonly() calls many of them
 * read-only (secure_delete, locking_mode, mmap_size, threads…) because they do not write the
 * file, yet they change how the connection behaves for everyone who uses it next.
 */
function pragmaSetting(sql: string): string | undefined {
  const tokens = lex(sql, 'sqlite').tokens;
  const arg = tokens.findIndex((t) => t.kind === 'punct' && (t.text === '=' || t.text === '('));
  if (arg < 0) return undefined;
  const name = tokens[arg - 1];
  if (name?.kind === 'word' && READING_PRAGMAS.has(name.text)) return undefined;
  return name?.kind === 'word' ? name.text.toLowerCase() : 'pragma';
}

function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/**
 * The embedded source. better-sqlite3 is synchronous: a statement runs on the calling
 * thread, and the driver has no interrupt, so cancellation and timeouts take effect
 * between batches (each batch yields to the event loop). A single step that runs long
 * before its first row (a big sort) cannot be stopped midway.
 *
 * A handle that iterates a statement is busy until the iterator closes, so every stream
 * takes its own handle from a small pool; ":memory:" databases have exactly one handle.
 */
export class SqliteConnector implements Connector {
  readonly name: string;
  readonly engine = 'sqlite' as const;
  readonly warnings: string[] = [];
  private semantics: SourceSemantics | undefined;
  private readonly file: string;
  private readonly idle: Db[] = [];
  /** handles opened with SQLITE_OPEN_READONLY (and query_only on): reads never get a handle that can write */
  private readonly readers = new WeakSet<Db>();
  private readonly all = new Set<Db>();
  private readonly max: number;
  private closed = false;

  constructor(private readonly config: SourceConfig) {
    this.name = config.name;
    this.file = config.file ?? ':memory:';
    this.max = this.file === ':memory:' ? 1 : (config.options?.pool?.max ?? 10);
  }

  capabilities(): Capabilities {
    return capabilitiesFor(this.semantics);
  }

  /** Renders with the dialect tuned to the probed semantics, the same ones capabilities() used. */
  render(query: RemoteQuery): RenderedQuery {
    return renderFor(this.engine, query, this.semantics);
  }

  private open(reading: boolean): Db {
    if (this.closed)
      throw new JunctionError('source_closed', 'external', `Source "${this.name}" is closed.`, {
        details: { source: this.name },
      });
    // ":memory:" cannot be opened read-only, nor can a file that does not exist yet (reading
    // it used to create it empty); those reads rely on query_only alone
    const readonly = reading && this.file !== ':memory:' && fs.existsSync(this.file);
    const db = new Database(this.file, {
      timeout: this.config.options?.connectTimeoutMs ?? 10_000,
      readonly,
      fileMustExist: readonly,
    });
    db.defaultSafeIntegers(true);
    if (readonly) {
      db.pragma('query_only = ON');
      this.readers.add(db);
    }
    this.all.add(db);
    return db;
  }

  /** A handle for reading (read-only where the file allows) or for writing. */
  private acquire(reading = false): Db {
    const i = this.idle.findIndex((d) => this.file === ':memory:' || this.readers.has(d) === reading);
    if (i >= 0) return this.idle.splice(i, 1)[0];
    if (this.all.size >= this.max && this.file !== ':memory:') {
      // an idle handle of the other kind makes room
      const other = this.idle.pop();
      if (other) {
        other.close();
        this.all.delete(other);
      }
    }
    if (this.all.size >= this.max) {
      if (this.file === ':memory:') return [...this.all][0];
      throw new JunctionError(
        'source_busy',
        'resources',
        `All ${this.max} handles of source "${this.name}" are busy.`,
        { details: { source: this.name } },
      );
    }
    try {
      return this.open(reading);
    } catch (err) {
      throw sourceError(this.name, err, [], 'open');
    }
  }

  private release(db: Db): void {
    if (this.closed) {
      db.close();
      return;
    }
    if (!this.idle.includes(db)) this.idle.push(db);
  }

  async test(): Promise<ConnectionDiagnosis> {
    const started = performance.now();
    if (this.file !== ':memory:' && !fs.existsSync(this.file)) {
      return {
        ok: false,
        code: 'file_missing',
        message: `The database file of source "${this.name}" does not exist: ${this.file}`,
        hint: 'Check the path; it is resolved on the machine running Junction.',
      };
    }
    try {
      const db = new Database(this.file, {
        fileMustExist: this.file !== ':memory:',
        readonly: this.file !== ':memory:',
      });
      try {
        const v = db.prepare('SELECT sqlite_version()').pluck().get() as string;
        // reading the schema proves the file really is a database
        db.prepare('SELECT count(*) FROM sqlite_schema').get();
        return { ok: true, serverVersion: v, latencyMs: Math.round(performance.now() - started) };
      } finally {
        db.close();
      }
    } catch (err) {
      return {
        ok: false,
        code: 'unknown',
        message: `The file of source "${this.name}" could not be opened as an SQLite database: ${(err as Error).message}`,
        hint: 'Check that the file is an SQLite 3 database and readable by the Junction process.',
      };
    }
  }

  async probe(): Promise<SourceSemantics> {
    const db = this.acquire(true);
    try {
      const r = db.prepare(`SELECT sqlite_version(), 'a' = 'A', 'é' = 'e', 'a' = 'a '`).raw(true).get() as [
        string,
        bigint,
        bigint,
        bigint,
      ];
      const opts = (db.pragma('compile_options') as { compile_options: string }[]).map((o) => o.compile_options);
      const maxVar = opts.find((o) => o.startsWith('MAX_VARIABLE_NUMBER='));
      this.semantics = {
        serverVersion: r[0],
        defaultCollation: 'BINARY',
        caseSensitive: r[1] === 0n,
        accentSensitive: r[2] === 0n,
        padSpace: r[3] === 1n,
        // SQLite's date functions work in UTC unless told 'localtime'
        timeZone: 'UTC',
        maxBindParams: maxVar ? Number(maxVar.split('=')[1]) : 32766,
        // identifiers have no length limit in SQLite; this keeps generated aliases sane
        maxIdentifierLength: 1024,
      };
      return this.semantics;
    } finally {
      this.release(db);
    }
  }

  async introspect(): Promise<CatalogSnapshot> {
    const db = this.acquire(true);
    const warnings: string[] = [];
    try {
      const objects = db
        .prepare(
          `SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
        )
        .all() as { name: string; type: 'table' | 'view' }[];
      const hasStats = db.prepare(`SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'`).get() !== undefined;
      const tables: TableInfo[] = [];
      for (const o of objects) {
        const q = quoteIdent(o.name);
        const cols = db.prepare(`PRAGMA table_xinfo(${q})`).all() as {
          name: string;
          type: string;
          notnull: bigint;
          dflt_value: string | null;
          pk: bigint;
          hidden: bigint;
        }[];
        // SQLite lets a primary key column hold NULL (in several rows) unless it is the rowid's
        // alias (a lone INTEGER PRIMARY KEY) or the table is WITHOUT ROWID
        const pkCount = cols.filter((c) => c.pk > 0n).length;
        const withoutRowid = o.type === 'table' && (db.prepare(`PRAGMA table_list(${q})`).get() as { wr?: bigint } | undefined)?.wr === 1n;
        const keyNotNull = (c: { type: string; pk: bigint }): boolean =>
          c.pk > 0n && (withoutRowid || (pkCount === 1 && c.type.trim().toUpperCase() === 'INTEGER'));
        const columns: ColumnInfo[] = cols
          .filter((c) => c.hidden === 0n)
          .map((c) => {
            const m = mapDeclaredType(c.type);
            if (m.warning) warnings.push(`main.${o.name}.${c.name}: ${m.warning}`);
            return {
              name: c.name,
              type: m.type,
              nativeType: c.type,
              nullable: c.notnull === 0n && !keyNotNull(c),
              default: c.dflt_value,
            };
          });
        const pk = cols
          .filter((c) => c.pk > 0n)
          .sort((a, b) => Number(a.pk - b.pk))
          .map((c) => c.name);
        const fkRows = db.prepare(`PRAGMA foreign_key_list(${q})`).all() as {
          id: bigint;
          seq: bigint;
          table: string;
          from: string;
          to: string | null;
        }[];
        const fkById = new Map<bigint, ForeignKeyInfo & { columns: string[]; refColumns: string[] }>();
        for (const f of fkRows) {
          let fk = fkById.get(f.id);
          if (!fk)
            fkById.set(
              f.id,
              (fk = {
                name: `fk_${o.name}_${f.id}`,
                columns: [],
                refSchema: 'main',
                refTable: f.table,
                refColumns: [],
              }),
            );
          fk.columns.push(f.from);
          fk.refColumns.push(f.to ?? '');
        }
        const indexes: IndexInfo[] = [];
        const shapes: IndexShape[] = [];
        if (o.type === 'table') {
          const list = db.prepare(`PRAGMA index_list(${q})`).all() as {
            name: string;
            unique: bigint;
            origin: string;
            partial: bigint;
          }[];
          for (const ix of list) {
            const info = db.prepare(`PRAGMA index_info(${quoteIdent(ix.name)})`).all() as {
              seqno: bigint;
              name: string | null;
            }[];
            const ordered = info.sort((a, b) => Number(a.seqno - b.seqno));
            indexes.push({
              name: ix.name,
              columns: ordered.map((i) => i.name ?? '<expression>'),
              // a partial index (WHERE) is unique only over the rows it holds
              unique: ix.unique === 1n && ix.partial !== 1n,
            });
            const leading = ordered[0]?.name ?? null;
            shapes.push({ name: ix.name, leading, partial: ix.partial === 1n, origin: ix.origin });
          }
          indexes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        }
        let rowCount: number | undefined;
        let withStats = columns;
        if (o.type === 'table') {
          const stat1 = hasStats
            ? (db.prepare(`SELECT idx, stat FROM sqlite_stat1 WHERE tbl = ?`).all(o.name) as Stat1Row[])
            : [];
          const est = stat1Estimates(o.name, stat1, shapes);
          // without ANALYZE statistics an embedded table is counted: cheap for a local file
          rowCount = est.rowCount ?? Number(db.prepare(`SELECT count(*) FROM ${q}`).pluck().get() as bigint);
          withStats = columns.map((c) => {
            let d = est.distinct.get(c.name);
            if (d === undefined) return c;
            // ANALYZE counted NULL as a value; the index the count came from finds one in a seek
            const hasNull = `SELECT EXISTS (SELECT 1 FROM ${q} WHERE ${quoteIdent(c.name)} IS NULL)`;
            if (c.nullable && db.prepare(hasNull).pluck().get() === 1n) d -= 1;
            return d > 0 ? { ...c, stats: { distinct: d } } : c;
          });
        }
        tables.push({
          schema: 'main',
          name: o.name,
          kind: o.type,
          columns: withStats,
          ...(pk.length ? { primaryKey: pk } : {}),
          foreignKeys: [...fkById.values()],
          indexes,
          ...(rowCount !== undefined ? { rowCount } : {}),
        });
      }
      this.warnings.push(...warnings);
      return withoutBookkeeping({ defaultSchema: 'main', tables, introspectedAt: new Date().toISOString(), warnings });
    } catch (err) {
      throw sourceError(this.name, err, [], 'introspection');
    } finally {
      this.release(db);
    }
  }

  private prepare(db: Db, sql: string): Database.Statement {
    try {
      return db.prepare(sql);
    } catch (err) {
      throw sourceError(this.name, err, [], 'query');
    }
  }

  private static decoders(
    stmt: Database.Statement,
    expected: readonly ColumnMeta[] | undefined,
  ): ((v: Raw) => Value)[] {
    return stmt.columns().map((c, i) => {
      const want: JType | undefined = expected?.[i]?.type;
      const type = want ?? mapDeclaredType(c.type).type;
      if (type.kind === 'unknown' && !want) return decodeByValue;
      return (v: Raw) => decodeValue(v, type);
    });
  }

  async *stream(query: RenderedQuery, options: StreamOptions = {}): AsyncIterable<Batch> {
    const batchSize = options.batchSize ?? 1024;
    const control = new StatementControl(
      this.name,
      options.signal,
      options.timeoutMs ?? this.config.options?.statementTimeoutMs,
    );
    let db: Db | undefined;
    let it: IterableIterator<unknown> | undefined;
    try {
      control.throwIfStopped();
      db = this.acquire(true);
      const stmt = this.prepare(db, query.sql);
      if (!stmt.reader)
        throw new JunctionError(
          'source_not_a_query',
          'user',
          `Source "${this.name}" was asked to stream a statement that returns no rows.`,
        );
      stmt.raw(true);
      const decoders = SqliteConnector.decoders(stmt, query.columns);
      try {
        it = stmt.iterate(...query.params.map(toParam));
      } catch (err) {
        throw sourceError(this.name, err, [], 'query');
      }
      for (;;) {
        const out: Row[] = [];
        let done = false;
        try {
          while (out.length < batchSize) {
            const n = it.next();
            if (n.done) {
              done = true;
              break;
            }
            const raw = n.value as Raw[];
            const row: Row = new Array(raw.length);
            for (let c = 0; c < raw.length; c++) row[c] = raw[c] === null ? null : decoders[c](raw[c]);
            out.push(row);
          }
        } catch (err) {
          throw sourceError(this.name, err, [], 'query');
        }
        if (out.length) yield { rows: out };
        if (done) break;
        // lets an abort or the timeout fire between batches: the only place SQLite can stop
        await yieldToEventLoop();
        control.throwIfStopped();
      }
    } finally {
      control.dispose();
      it?.return?.();
      if (db) this.release(db);
    }
  }

  /**
   * Exactly one statement, never a script: db.exec() would run whatever follows the first
   * statement, e.g. `ATTACH 'junction.db' AS j; UPDATE j."User" …` against Junction's own
   * database. better-sqlite3 has no authorizer callback, so ATTACH/DETACH are refused by their
   * keyword (sqlite3_stmt_readonly() calls them read-only, and even under query_only an
   * ATTACH creates the file it names). With `readOnly` the statement must be a read-only
   * reader, must not set a PRAGMA, and runs on a read-only handle with query_only on.
   * better-sqlite3 cannot interrupt a running statement: the signal and timeout are honoured
   * before it starts.
   */
  async execute(
    sql: string,
    params: readonly Value[] = [],
    options: ExecuteOptions = {},
  ): Promise<{ rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] }> {
    const control = new StatementControl(
      this.name,
      options.signal,
      options.timeoutMs ?? this.config.options?.statementTimeoutMs,
    );
    try {
      control.throwIfStopped();
      const keyword = leadingKeyword(sql, 'sqlite');
      if (keyword === 'ATTACH' || keyword === 'DETACH') throw attachRefusedError(this.name, keyword);
      const readOnly = options.readOnly === true;
      // checked before prepare: SQLite applies a PRAGMA's value (query_only=0, locking_mode…) while compiling it
      const setting = readOnly && keyword === 'PRAGMA' ? pragmaSetting(sql) : undefined;
      if (setting) throw notReadOnlyError(this.name, `changes a setting (PRAGMA ${setting})`);
      const db = this.acquire(readOnly);
      let spoilt = false;
      try {
        // read-only handles keep query_only on; the single ":memory:" handle has it switched per statement
        const switched = readOnly && !SqliteConnector.queryOnly(db);
        if (switched) db.pragma('query_only = ON');
        try {
          let stmt: Database.Statement;
          try {
            stmt = db.prepare(sql);
          } catch (err) {
            if (err instanceof RangeError && /more than one statement/i.test(err.message))
              throw multipleStatementsError(this.name);
            throw sourceError(this.name, err, [], 'statement');
          }
          if (readOnly) {
            if (!stmt.readonly) throw notReadOnlyError(this.name, 'would write (to the database or to a file)');
            if (!stmt.reader) throw notReadOnlyError(this.name, 'returns no rows, so it is not a query');
            if (!SqliteConnector.queryOnly(db)) {
              // something the PRAGMA check missed switched it off while compiling: never reuse this handle
              spoilt = true;
              throw notReadOnlyError(this.name, 'changes a setting');
            }
          }
          try {
            return SqliteConnector.run(stmt, params.map(toParam));
          } catch (err) {
            throw sourceError(this.name, err, [], 'statement');
          }
        } finally {
          if (switched) db.pragma('query_only = OFF');
        }
      } finally {
        if (spoilt && this.readers.has(db)) {
          db.close();
          this.all.delete(db);
        } else this.release(db);
      }
    } finally {
      control.dispose();
    }
  }

  private static queryOnly(db: Db): boolean {
    return Number(db.pragma('query_only', { simple: true })) === 1;
  }

  private static run(
    stmt: Database.Statement,
    bound: unknown[],
  ): { rowCount: number; rows: Row[]; columns: readonly ColumnMeta[] } {
    if (!stmt.reader) {
      const r = stmt.run(...bound);
      return { rowCount: r.changes, rows: [], columns: [] };
    }
    stmt.raw(true);
    const decoders = SqliteConnector.decoders(stmt, undefined);
    const raws = stmt.all(...bound) as Raw[][];
    const rows = raws.map((raw) => raw.map((v, i) => (v === null ? null : decoders[i](v))));
    const columns: ColumnMeta[] = stmt.columns().map((c, i) => {
      const declared = mapDeclaredType(c.type).type;
      const first = raws.find((r) => r[i] !== null)?.[i];
      return {
        name: c.name,
        type: declared.kind === 'unknown' && first !== undefined ? typeOfValue(first) : declared,
        nullable: true,
      };
    });
    return { rowCount: rows.length, rows, columns };
  }

  async bulkLoad(table: BulkTable, rows: AsyncIterable<readonly Row[]>): Promise<number> {
    const db = this.acquire();
    const target = (table.schema ? quoteIdent(table.schema) + '.' : '') + quoteIdent(table.name);
    const cols = table.columns.map((c) => quoteIdent(c.name)).join(', ');
    const one = `(${table.columns.map(() => '?').join(', ')})`;
    // several rows per INSERT cut the per-statement overhead; stay under the bind limit
    const perStmt = Math.max(1, Math.min(64, Math.floor(32766 / Math.max(1, table.columns.length))));
    let count = 0;
    try {
      const multi = db.prepare(`INSERT INTO ${target} (${cols}) VALUES ${Array(perStmt).fill(one).join(', ')}`);
      const single = db.prepare(`INSERT INTO ${target} (${cols}) VALUES ${one}`);
      const insertBatch = db.transaction((batch: readonly Row[]) => {
        let i = 0;
        const width = table.columns.length;
        const args: unknown[] = new Array(perStmt * width);
        for (; i + perStmt <= batch.length; i += perStmt) {
          for (let r = 0; r < perStmt; r++) {
            const row = batch[i + r];
            for (let c = 0; c < width; c++) args[r * width + c] = toParam(row[c]);
          }
          multi.run(args);
        }
        for (; i < batch.length; i++) single.run(batch[i].map(toParam));
      });
      // the whole load is one transaction (all rows or none); each batch runs as a savepoint inside it
      db.exec('BEGIN');
      try {
        for await (const batch of rows) {
          insertBatch(batch);
          count += batch.length;
        }
        db.exec('COMMIT');
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
      return count;
    } catch (err) {
      throw sourceError(this.name, err, [], `bulk load into ${table.name}`);
    } finally {
      this.release(db);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const db of this.idle.splice(0)) {
      db.close();
      this.all.delete(db);
    }
  }
}
