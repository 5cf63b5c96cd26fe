import type pg from 'pg';
import { ROW, SLOT, STRING, textRowBytes } from '../contract/row-bytes.js';
import type { Row } from '../contract/types.js';
import { decodeRow } from '../runtime/values.js';
import { DataRowTap, type CellDecoder } from './data-rows.js';
import type { StatementUse } from './statements.js';
import type { Decoder } from './type-map.js';

/** What pg's Connection offers a submittable; its typings do not export the class. */
interface Wire {
  readonly stream: { cork(): void; uncork(): void; pause(): void; resume(): void; destroy(err: Error): void } & Parameters<typeof DataRowTap.attach>[0];
  parse(q: { text: string; name: string }, more: boolean): void;
  bind(c: { statement: string; values: readonly unknown[] }, more: boolean): void;
  close(m: { type: 'S'; name: string }, more: boolean): void;
  describe(m: { type: 'P'; name: string }, more: boolean): void;
  execute(m: { portal: string; rows: number }, more: boolean): void;
  sync(): void;
}

export interface FieldLike {
  readonly name: string;
  readonly dataTypeID: number;
  readonly dataTypeModifier: number;
}

/** A column's decoder from the text format: of a string (pg parsed the row) or of the bytes in place. */
export interface ColumnDecoder {
  readonly text: Decoder;
  readonly cell: CellDecoder;
}

/** One batch of decoded rows, and whether more may follow. */
export interface PortalBatch {
  readonly rows: Row[];
  readonly more: boolean;
}

/** Whole batches held before the socket is paused; the server then blocks on TCP. */
const HIGH_WATER_BATCHES = 2;

/**
 * A SELECT streamed through pg's Submittable interface (so pg's client keeps queueing and
 * error bookkeeping), in batches of `batchSize` rows or of `batchBytes` (textRowBytes of the
 * text cells), whichever comes first: the batches held below bound memory only if a batch of
 * wide rows is bounded too.
 *
 * Parse (unless `statement` names one the connection already holds, see statements.ts), Bind,
 * Describe, Execute and Sync leave in one write and the portal runs to the end
 * in one Execute: PostgreSQL runs a portal executed with a row limit (a cursor, pg-cursor's
 * way) without parallel workers, which made pushed-down joins and aggregates slower than
 * the same SQL sent directly; pg-cursor also needed three round trips before the first row.
 * Memory stays bounded by pausing the socket once HIGH_WATER_BATCHES batches wait for the
 * consumer: TCP flow control then holds the server, as a suspended portal would.
 * Rows are decoded by `columns`, made from the RowDescription: straight from the socket's
 * bytes while a DataRowTap holds it (data-rows.ts), from pg's strings otherwise.
 * A consumer that stops early must cancel the statement (the caller sends PostgreSQL's
 * cancel request) and `abandon()` this reader, which discards what still arrives until
 * the server is ready for the next statement.
 */
export class PortalReader implements pg.Submittable {
  private wire: Wire | undefined;
  /** each column's decoder, of pg's strings and of the bytes in place */
  private texts: readonly Decoder[] = [];
  private cells: readonly CellDecoder[] = [];
  private tap: DataRowTap | undefined;
  private current: Row[] = [];
  private currentBytes = 0;
  private readonly queue: PortalBatch[] = [];
  private waiter: { resolve: (b: PortalBatch) => void; reject: (e: unknown) => void } | undefined;
  private failed: { error: unknown } | undefined;
  private paused = false;
  private discarding = false;
  private ended = false;
  /** settles once the server is ready for the next statement (or the statement failed) */
  readonly finished: Promise<void>;
  private finish!: () => void;

  constructor(
    private readonly text: string,
    private readonly values: readonly unknown[],
    private readonly batchSize: number,
    private readonly columns: (fields: readonly FieldLike[]) => readonly ColumnDecoder[],
    private readonly statement: StatementUse = { name: '', parse: true, close: [] },
    private readonly batchBytes = Infinity,
  ) {
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }

  submit(connection: pg.Connection): void {
    const wire = connection as unknown as Wire;
    this.wire = wire;
    this.tap = DataRowTap.attach(wire.stream, (buf, start, end) => this.dataRow(buf, start, end));
    wire.stream.cork();
    for (const name of this.statement.close) wire.close({ type: 'S', name }, true);
    if (this.statement.parse) wire.parse({ text: this.text, name: this.statement.name }, true);
    wire.bind({ statement: this.statement.name, values: this.values }, true);
    wire.describe({ type: 'P', name: '' }, true);
    wire.execute({ portal: '', rows: 0 }, true);
    wire.sync();
    wire.stream.uncork();
  }

  /** The next batch; call again only after the previous call settled and reported `more`. */
  read(): Promise<PortalBatch> {
    if (this.interrupted) return Promise.reject(this.interrupted.error);
    const b = this.queue.shift();
    if (b) {
      if (this.paused && this.queue.length < HIGH_WATER_BATCHES) this.setPaused(false);
      return Promise.resolve(b);
    }
    if (this.failed) return Promise.reject(this.failed.error);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /**
   * The consumer stopped the statement: a pending or later read() rejects with `err` at once,
   * while the connection keeps its own bookkeeping until the server answers (see abandon()).
   */
  interrupt(err: unknown): void {
    if (this.failed) return;
    this.interrupted ??= { error: err };
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(err);
  }
  private interrupted: { error: unknown } | undefined;

  /** True once the last batch has arrived. */
  get complete(): boolean {
    return this.ended;
  }

  /** True while the server may still be executing the statement. */
  get running(): boolean {
    return !this.ended && !this.failed;
  }

  /** The consumer is gone: drop what still arrives, let the socket flow until ReadyForQuery. */
  abandon(): void {
    this.discarding = true;
    this.queue.length = 0;
    this.current = [];
    this.currentBytes = 0;
    this.setPaused(false);
  }

  handleRowDescription(msg: { fields: FieldLike[] }): void {
    const columns = this.columns(msg.fields);
    this.texts = columns.map((c) => c.text);
    this.cells = columns.map((c) => c.cell);
  }

  /** a row pg parsed (no tap on this connection) */
  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.discarding) return;
    let row: Row;
    try {
      row = decodeRow(msg.fields, this.texts);
    } catch (err) {
      return this.undecodable(err);
    }
    this.add(row, this.batchBytes === Infinity ? 0 : textRowBytes(msg.fields));
  }

  /** a DataRow's body in place (its cells weighed as textRowBytes weighs them): a cell count, then each cell's length (-1: NULL) and bytes */
  private dataRow(buf: Buffer, start: number, end: number): void {
    if (this.discarding) return;
    const n = (buf[start] << 8) | buf[start + 1];
    const row: Row = new Array(n);
    let bytes = ROW + n * SLOT;
    let p = start + 2;
    try {
      for (let i = 0; i < n; i++) {
        const len = (buf[p] << 24) | (buf[p + 1] << 16) | (buf[p + 2] << 8) | buf[p + 3];
        p += 4;
        if (len < 0) row[i] = null;
        else {
          row[i] = this.cells[i](buf, p, p + len);
          p += len;
          bytes += STRING + 2 * len;
        }
      }
      if (p !== end) throw new Error(`A DataRow message's cells ran to byte ${p - start} of ${end - start}.`);
    } catch (err) {
      return this.undecodable(err);
    }
    this.add(row, bytes);
  }

  /**
   * Rows are decoded in the socket's data listener, where a throw would end the process: the
   * statement fails instead, and the connection with it (its bytes can no longer be trusted).
   */
  private undecodable(err: unknown): void {
    this.discarding = true;
    this.wire?.stream.destroy(err instanceof Error ? err : new Error(String(err)));
  }

  private add(row: Row, bytes: number): void {
    this.current.push(row);
    this.currentBytes += bytes;
    if (this.current.length === this.batchSize || this.currentBytes >= this.batchBytes) this.push(true);
  }

  handleCommandComplete(): void {
    this.ended = true;
    if (!this.discarding) this.push(false);
  }

  handleEmptyQuery(): void {
    this.handleCommandComplete();
  }

  handlePortalSuspended(): void {
    // never suspended: every Execute asks for all rows
  }

  handleError(err: unknown): void {
    this.tap?.detach();
    this.setPaused(false);
    this.failed = { error: err };
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(err);
    // pg clears its active query on an error, so no ReadyForQuery reaches this reader;
    // pg holds any next statement until the server's ReadyForQuery (Sync is already sent)
    this.finish();
  }

  handleReadyForQuery(): void {
    this.tap?.detach();
    this.setPaused(false);
    this.finish();
  }

  private push(more: boolean): void {
    const batch: PortalBatch = { rows: this.current, more };
    this.current = [];
    this.currentBytes = 0;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w.resolve(batch);
      return;
    }
    this.queue.push(batch);
    if (more && this.queue.length >= HIGH_WATER_BATCHES) this.setPaused(true);
  }

  private setPaused(paused: boolean): void {
    if (this.paused === paused || !this.wire) return;
    this.paused = paused;
    if (paused) this.wire.stream.pause();
    else this.wire.stream.resume();
  }
}
