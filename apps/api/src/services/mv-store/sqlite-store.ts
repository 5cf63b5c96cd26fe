import Database from 'better-sqlite3';
import { JunctionError, type ColumnMeta, type JType, type Row, type SourceConfig } from '@junction/connectors';
import type { BackgroundLog } from '../junction.js';
import { STORE_SOURCE } from '../internal-sources.js';
import { BOOKKEEPING, COLUMNS, DROP_GRACE_MS, quoteIdent, rowBytes, type Claim, type MvStore, type Stored, type StoredFields } from './store.js';

/** Only this server refreshes here: the materializer's own one-refresh-per-view rule is the claim. */
const GRANTED: Claim = { release: async () => undefined };

/**
 * The single server's store: an SQLite file beside the metadata, settings and status in a
 * bookkeeping table of the same file (no catalog lists it). A refresh writes its whole table
 * through the WAL, which is truncated afterwards so a large or failed refresh gives its disk
 * space back.
 */
export class SqliteMvStore implements MvStore {
  readonly shared = false;
  #db: Database.Database | undefined;
  readonly #drops = new Set<NodeJS.Timeout>();

  constructor(
    readonly file: string,
    private readonly log: () => BackgroundLog,
  ) {}

  source(): SourceConfig {
    return { name: STORE_SOURCE, engine: 'sqlite', file: this.file, options: {} };
  }

  async open(): Promise<void> {
    const db = new Database(this.file);
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS ${BOOKKEEPING} (
      view TEXT PRIMARY KEY, tbl TEXT, interval_seconds INTEGER, max_staleness_seconds INTEGER NOT NULL,
      status TEXT NOT NULL, rows INTEGER, bytes INTEGER, refreshed_at INTEGER, duration_ms INTEGER, error TEXT, error_code TEXT)`);
    const has = (column: string) => (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(BOOKKEEPING) as string[]).includes(column);
    // stores written before error codes were kept
    if (!has('error_code')) db.exec(`ALTER TABLE ${BOOKKEEPING} ADD COLUMN error_code TEXT`);
    // stores written before an interrupted refresh was retried at start
    if (!has('unfinished_refreshes')) db.exec(`ALTER TABLE ${BOOKKEEPING} ADD COLUMN unfinished_refreshes INTEGER NOT NULL DEFAULT 0`);
    this.#db = db;
    // tables no materialization points at are left over from a crash mid-refresh
    const used = new Set(this.#all().map((r) => r.tbl));
    for (const t of db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'mv\\_%' ESCAPE '\\'`).pluck().all() as string[])
      if (!used.has(t)) db.exec(`DROP TABLE ${quoteIdent(t)}`);
  }

  async all(): Promise<Stored[]> {
    return this.#all();
  }

  async row(view: string): Promise<Stored | undefined> {
    return this.#store.prepare(`SELECT * FROM ${BOOKKEEPING} WHERE view = ?`).get(view) as Stored | undefined;
  }

  async insert(view: string, settings: { intervalSeconds: number | null; maxStalenessSeconds: number }): Promise<void> {
    this.#store
      .prepare(`INSERT INTO ${BOOKKEEPING} (view, interval_seconds, max_staleness_seconds, status) VALUES (?, ?, ?, 'never')`)
      .run(view, settings.intervalSeconds, settings.maxStalenessSeconds);
  }

  async update(view: string, fields: StoredFields): Promise<boolean> {
    const keys = COLUMNS.filter((k) => k in fields);
    if (!keys.length) return (await this.row(view)) !== undefined;
    const r = this.#store
      .prepare(`UPDATE ${BOOKKEEPING} SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE view = ?`)
      .run(...keys.map((k) => fields[k as keyof StoredFields] ?? null), view);
    return r.changes > 0;
  }

  async delete(view: string): Promise<void> {
    const r = await this.row(view);
    this.#store.prepare(`DELETE FROM ${BOOKKEEPING} WHERE view = ?`).run(view);
    if (r?.tbl) this.#dropLater(r.tbl);
  }

  async claim(): Promise<Claim> {
    return GRANTED;
  }

  async create(_view: string, table: string, columns: readonly ColumnMeta[]): Promise<void> {
    this.#store.exec(`CREATE TABLE ${quoteIdent(table)} (${columns.map(columnDdl).join(', ')})`);
  }

  async load(table: string, columns: readonly ColumnMeta[], batches: AsyncIterable<readonly Row[]>): Promise<{ rows: number; bytes: number }> {
    const db = this.#store;
    const insert = db.prepare(`INSERT INTO ${quoteIdent(table)} VALUES (${columns.map(() => '?').join(', ')})`);
    const load = db.transaction((batch: readonly Row[]) => {
      for (const row of batch) insert.run(row.map(toSqlite));
    });
    let rows = 0;
    let bytes = 0;
    for await (const batch of batches) {
      load(batch);
      rows += batch.length;
      for (const r of batch) bytes += rowBytes(r);
    }
    return { rows, bytes };
  }

  async swap(view: string, table: string | null, fields: StoredFields): Promise<boolean> {
    const previous = (await this.row(view))?.tbl ?? null;
    if (!(await this.update(view, { ...fields, tbl: table }))) return false;
    if (previous && previous !== table) this.#dropLater(previous);
    return true;
  }

  async discard(table: string): Promise<void> {
    try {
      this.#store.exec(`DROP TABLE IF EXISTS ${quoteIdent(table)}`);
    } catch (err) {
      this.log().error({ err, table }, 'could not drop the table of a failed refresh now; trying again later');
      this.#dropLater(table);
    }
  }

  async tick(): Promise<void> {}

  /**
   * A refresh writes its whole table through the WAL, and SQLite keeps the WAL file at its largest
   * size: after a refresh that filled the disk (or just a large one) that space stayed taken from
   * everything else on the disk, the metadata database included, until a restart. Copying the WAL
   * back and truncating it returns the space; a reader still in the WAL only makes it partial.
   */
  afterRefresh(attempt = 0): void {
    try {
      const [r] = (this.#db?.pragma('wal_checkpoint(TRUNCATE)') ?? []) as { busy: number }[];
      // a query that just read the store may still hold its snapshot for a moment: try again soon
      if (r?.busy && attempt < 5) this.#later(200, () => this.afterRefresh(attempt + 1));
    } catch (err) {
      this.log().error({ err }, 'could not truncate the WAL of the materialized view store');
    }
  }

  async close(): Promise<void> {
    for (const t of this.#drops) clearTimeout(t);
    this.#drops.clear();
    this.#db?.close();
    this.#db = undefined;
  }

  #dropLater(table: string): void {
    this.#later(DROP_GRACE_MS, () => {
      try {
        this.#db?.exec(`DROP TABLE IF EXISTS ${quoteIdent(table)}`);
      } catch (err) {
        this.log().error({ err, table }, 'could not drop a replaced materialization');
      }
    });
  }

  #later(ms: number, f: () => void): void {
    const t = setTimeout(() => {
      this.#drops.delete(t);
      f();
    }, ms);
    t.unref();
    this.#drops.add(t);
  }

  get #store(): Database.Database {
    if (!this.#db) throw new JunctionError('materializer_closed', 'internal', 'The materialized view store is not open.');
    return this.#db;
  }

  #all(): Stored[] {
    return this.#store.prepare(`SELECT * FROM ${BOOKKEEPING} ORDER BY view`).all() as Stored[];
  }
}

/**
 * A declared type the SQLite connector reads back as the same Junction type, or as one the engine
 * casts back to it (materializedSql in query-core).
 */
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
      // A DECIMAL column has NUMERIC affinity: SQLite keeps 1909572716.10 as the double
      // 1909572716.1 and a 38-digit value as 1.2345678901234569e+27. As TEXT it keeps every digit
      // and its scale; the view reads it through CAST(... AS numeric(p,s)), which the SQLite
      // store's capabilities leave to Junction, so no filter, sort or aggregate compares the text.
      return 'TEXT';
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
  return `${quoteIdent(c.name)} ${declared(c.type)}${c.nullable ? '' : ' NOT NULL'}`;
}

function toSqlite(v: Row[number]): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}
