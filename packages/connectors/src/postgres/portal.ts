import type pg from 'pg';
import { textRowBytes } from '../contract/row-bytes.js';
import type { StatementUse } from './statements.js';

/** What pg's Connection offers a submittable; its typings do not export the class. */
interface Wire {
  readonly stream: { cork(): void; uncork(): void; pause(): void; resume(): void };
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

/** One batch of rows as the server's text (null for SQL NULL), and whether more may follow. */
export interface RawBatch {
  readonly rows: (string | null)[][];
  readonly fields: readonly FieldLike[];
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
 * A consumer that stops early must cancel the statement (the caller sends PostgreSQL's
 * cancel request) and `abandon()` this reader, which discards what still arrives until
 * the server is ready for the next statement.
 */
export class PortalReader implements pg.Submittable {
  private wire: Wire | undefined;
  private fields: FieldLike[] = [];
  private current: (string | null)[][] = [];
  private currentBytes = 0;
  private readonly queue: RawBatch[] = [];
  private waiter: { resolve: (b: RawBatch) => void; reject: (e: unknown) => void } | undefined;
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
    private readonly statement: StatementUse = { name: '', parse: true, close: [] },
    private readonly batchBytes = Infinity,
  ) {
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }

  submit(connection: pg.Connection): void {
    const wire = connection as unknown as Wire;
    this.wire = wire;
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
  read(): Promise<RawBatch> {
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
    this.fields = msg.fields;
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.discarding) return;
    this.current.push(msg.fields);
    if (this.batchBytes !== Infinity) this.currentBytes += textRowBytes(msg.fields);
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
    this.setPaused(false);
    this.finish();
  }

  private push(more: boolean): void {
    const batch: RawBatch = { rows: this.current, fields: this.fields, more };
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
