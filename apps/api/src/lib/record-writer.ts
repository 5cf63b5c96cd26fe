import { providerOf, type Db } from '../db/client.js';
import type { MetadataProvider } from '../db/migrate.js';
import { Prisma } from '../generated/prisma/client.js';

export interface HistoryRow {
  id: string;
  userId: string;
  queryId: string;
  sql: string;
  params: string | null;
  status: string;
  rows: number | null;
  elapsedMs: number | null;
  errorCode: string | null;
  createdAt: Date;
}

export interface AuditRow {
  id: string;
  actorId: string | null;
  actorName: string | null;
  action: string;
  target: string | null;
  details: string | null;
  ip: string | null;
  createdAt: Date;
}

export interface RecordWriterOptions {
  /** rows waiting at most this long before a write starts */
  readonly flushDelayMs?: number;
  /** a write starts at once when this many rows wait; also the size of one insert */
  readonly batchSize?: number;
  /**
   * rows that may wait in memory; beyond it add() waits for the database (backpressure, nothing
   * dropped), except while the database is down, when the oldest rows beyond it are dropped
   */
  readonly maxPending?: number;
  /** first retry after the database was found down; doubles up to retryMaxMs */
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
}

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * Query history and audit rows, written off the request path: a reply no longer waits for the
 * metadata database. Rows wait in memory for at most `flushDelayMs` (or until `batchSize` of
 * them wait) and go in with one multi-row insert per table, one write at a time so the metadata
 * database sees a bounded load. The buffer is bounded: past `maxPending`, add() waits until a
 * write has made room, so a slow database slows requests down rather than losing rows or
 * growing memory without end. close() writes what is left; the server calls it on a clean stop
 * (Fastify's onClose) before the database is closed. After close(), rows are written at once.
 *
 * A metadata database that is down (restarted, unreachable) is an outage, not a bad row: when a
 * batch fails and the database does not answer `SELECT 1` either, the batch goes back to the
 * front of the queue and is retried with a backoff (`retryMinMs` doubling to `retryMaxMs`), so
 * rows added during an outage are written once the database is back. Backpressure would turn
 * the outage into hung requests, so while it lasts add() does not wait: the loss window is
 * bounded instead. Up to `maxPending` rows (10,000 by default: minutes of a busy server's
 * history) survive an outage of any length; past that the oldest waiting rows are dropped,
 * counted in `dropped` and logged. A stop while the database is down loses what waits (logged).
 *
 * createdAt is taken when the row is added, not when it is written, so history keeps the order
 * queries finished in.
 */
export class RecordWriter {
  readonly #history: HistoryRow[] = [];
  readonly #audit: AuditRow[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #closed = false;
  readonly #room: (() => void)[] = [];
  readonly flushDelayMs: number;
  readonly batchSize: number;
  readonly maxPending: number;
  readonly retryMinMs: number;
  readonly retryMaxMs: number;
  /** the error that showed the database down, while it stays down */
  #outage: unknown;
  #retryDelay = 0;
  #droppedInOutage = 0;
  /** rows dropped because an outage outlasted the buffer, since the writer started */
  dropped = 0;

  constructor(
    readonly db: Db,
    readonly log: Log,
    opts: RecordWriterOptions = {},
  ) {
    // each write is a fixed cost on the server's thread (Prisma's call path, the statement's
    // preparation): 50 ms made it ~0.3 ms per query under load, 500 ms a tenth of that
    this.flushDelayMs = opts.flushDelayMs ?? 500;
    this.batchSize = opts.batchSize ?? 500;
    this.maxPending = opts.maxPending ?? 10_000;
    this.retryMinMs = opts.retryMinMs ?? 250;
    this.retryMaxMs = opts.retryMaxMs ?? 5000;
    this.#provider = providerOf(db);
  }

  readonly #provider: MetadataProvider;

  get pending(): number {
    return this.#history.length + this.#audit.length;
  }

  history(row: Omit<HistoryRow, 'createdAt'> & { createdAt?: Date }): Promise<void> {
    return this.#add(this.#history, { ...row, createdAt: row.createdAt ?? new Date() });
  }

  audit(row: Omit<AuditRow, 'createdAt'> & { createdAt?: Date }): Promise<void> {
    return this.#add(this.#audit, { ...row, createdAt: row.createdAt ?? new Date() });
  }

  async #add<T>(queue: T[], row: T): Promise<void> {
    if (this.#closed) {
      queue.push(row);
      await this.flush();
      return;
    }
    while (this.pending >= this.maxPending && this.#outage === undefined) {
      this.#schedule(0);
      await new Promise<void>((resolve) => this.#room.push(resolve));
    }
    queue.push(row);
    if (this.#outage !== undefined) {
      this.#trim();
      return; // the retry timer is set; a write now would only fail again
    }
    this.#schedule(this.pending >= this.batchSize ? 0 : this.flushDelayMs);
  }

  /** During an outage: the oldest rows beyond maxPending go, so memory stays bounded. */
  #trim(): void {
    let over = this.pending - this.maxPending;
    while (over > 0) {
      const h = this.#history[0];
      const a = this.#audit[0];
      // whichever row is older goes first
      if (h && (!a || h.createdAt <= a.createdAt)) this.#history.shift();
      else this.#audit.shift();
      this.dropped++;
      this.#droppedInOutage++;
      over--;
    }
  }

  #schedule(delay: number): void {
    if (this.#writing) return; // the running write reschedules when it is done
    if (this.#timer && delay > 0) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#drain();
    }, delay);
    // a pending write never keeps a process alive on its own; close() writes the rest
    this.#timer.unref();
  }

  /** Writes until nothing waits; one drain at a time. */
  #drain(): Promise<void> {
    this.#writing ??= (async () => {
      try {
        while (this.pending > 0) {
          const history = this.#history.splice(0, this.batchSize);
          const audit = this.#audit.splice(0, this.batchSize);
          const historyOk = history.length === 0 || (await this.#write('queryHistory', history));
          const auditOk = historyOk && (audit.length === 0 || (await this.#write('auditLog', audit)));
          if (!historyOk || !auditOk) {
            // back to the front, in order; a batch already written is not repeated (#write
            // answers false only when it wrote nothing of its batch)
            if (!historyOk) this.#history.unshift(...history);
            this.#audit.unshift(...audit);
            this.#trim();
            this.#retryLater();
            // adds waiting for room stop waiting: while the database is down they drop the oldest
            for (const wake of this.#room.splice(0)) wake();
            return;
          }
          if (this.#outage !== undefined) this.#recovered();
          for (const wake of this.#room.splice(0)) wake();
        }
      } finally {
        this.#writing = undefined;
      }
    })();
    return this.#writing;
  }

  #retryLater(): void {
    this.#retryDelay = Math.min(this.retryMaxMs, this.#retryDelay ? this.#retryDelay * 2 : this.retryMinMs);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#drain();
    }, this.#retryDelay);
    this.#timer.unref();
  }

  #recovered(): void {
    if (this.#droppedInOutage > 0)
      this.log.warn(
        { dropped: this.#droppedInOutage, maxPending: this.maxPending },
        'the metadata database was down longer than the record buffer lasts: the oldest history/audit rows were dropped',
      );
    this.#outage = undefined;
    this.#retryDelay = 0;
    this.#droppedInOutage = 0;
  }

  /** false when the database is down: the batch was not written and goes back to the queue */
  async #write(table: 'queryHistory' | 'auditLog', rows: (HistoryRow | AuditRow)[]): Promise<boolean> {
    try {
      await this.db.$executeRaw(insertSql(this.#provider, table, rows));
      return true;
    } catch (err) {
      // a failed batch and a failed `SELECT 1` is the database, not the rows
      const reachable = await this.db.$queryRaw`SELECT 1`.then(
        () => true,
        () => false,
      );
      if (!reachable) {
        if (this.#outage === undefined)
          this.log.warn(
            { err, table },
            'the metadata database is unreachable: history/audit rows wait and are retried',
          );
        this.#outage = err;
        return false;
      }
      // one bad row (a history row of a user deleted meanwhile) must not take the batch with it
      for (const row of rows) {
        await this.db
          .$executeRaw(insertSql(this.#provider, table, [row]))
          .catch((err: unknown) => this.log.warn({ err, table }, `could not record a ${table} row`));
      }
      return true;
    }
  }

  /** Resolves when every row added so far is in the database (reads that must see them call this first). */
  async flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    while (this.pending > 0 || this.#writing) {
      await this.#drain();
      // the database is down: the caller hears it now rather than waiting for the outage's end
      if (this.pending > 0 && this.#outage !== undefined) throw this.#outage;
    }
  }

  /** Writes what is left; later rows are written as they come. */
  async close(): Promise<void> {
    this.#closed = true;
    try {
      await this.flush();
    } catch (err) {
      this.log.warn(
        { err, lost: this.pending },
        'the metadata database is down at stop: waiting history/audit rows are lost',
      );
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#history.length = 0;
      this.#audit.length = 0;
    }
  }
}

const COLUMNS = {
  queryHistory: ['id', 'userId', 'queryId', 'sql', 'params', 'status', 'rows', 'elapsedMs', 'errorCode', 'createdAt'],
  auditLog: ['id', 'actorId', 'actorName', 'action', 'target', 'details', 'ip', 'createdAt'],
} as const;
const TABLE = { queryHistory: 'QueryHistory', auditLog: 'AuditLog' } as const;

/**
 * One INSERT whose rows arrive as one JSON array parameter, unpacked by the database itself
 * (SQLite's json_each, PostgreSQL's json_populate_recordset). Why not createMany, or a VALUES
 * list with a bound parameter per value: Prisma's call path costs CPU on the server's only
 * thread per parameter and per distinct statement text (createMany compiles each call anew for
 * its number of rows); one parameter and one constant text per table cost a fraction of that
 * (apps/api/bench/records.ts). Dates go in as Prisma writes them, so they read back equal:
 * ISO 8601 with "+00:00" in SQLite, UTC in PostgreSQL's timestamp(3).
 */
function insertSql(
  provider: MetadataProvider,
  table: keyof typeof COLUMNS,
  rows: readonly (HistoryRow | AuditRow)[],
): Prisma.Sql {
  const cols = COLUMNS[table];
  const json = JSON.stringify(
    rows.map((r) => {
      const o: Record<string, unknown> = { ...r };
      o.createdAt =
        provider === 'sqlite' ? r.createdAt.toISOString().replace('Z', '+00:00') : r.createdAt.toISOString();
      return o;
    }),
  );
  const list = cols.map((c) => `"${c}"`).join(', ');
  const into = `INSERT INTO "${TABLE[table]}" (${list}) `;
  return provider === 'sqlite'
    ? Prisma.sql`${Prisma.raw(`${into}SELECT ${cols.map((c) => `value->>'${c}'`).join(', ')} FROM json_each(`)}${json})`
    : Prisma.sql`${Prisma.raw(`${into}SELECT ${list} FROM json_populate_recordset(NULL::"${TABLE[table]}", `)}${json}::json)`;
}
