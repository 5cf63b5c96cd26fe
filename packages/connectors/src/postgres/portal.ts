import type pg from 'pg';

/** What pg's Connection offers a submittable; its typings do not export the class. */
interface Wire {
  readonly stream: { cork(): void; uncork(): void };
  parse(q: { text: string }, more: boolean): void;
  bind(c: { values: readonly unknown[] }, more: boolean): void;
  describe(m: { type: 'P'; name: string }, more: boolean): void;
  execute(m: { portal: string; rows: number }, more: boolean): void;
  flush(): void;
  sync(): void;
}

export interface FieldLike {
  readonly name: string;
  readonly dataTypeID: number;
  readonly dataTypeModifier: number;
}

/** One batch of rows as the server's text (null for SQL NULL) and whether the portal has more. */
export interface RawBatch {
  readonly rows: (string | null)[][];
  readonly fields: readonly FieldLike[];
  readonly more: boolean;
}

/**
 * A SELECT read through the unnamed portal of the extended protocol, `batchSize` rows per
 * Execute, submitted through pg's Submittable interface so that pg's client keeps queueing
 * and error bookkeeping.
 *
 * pg-cursor needs three round trips before the first row (Parse/Bind/Describe+Flush, then
 * Execute+Flush, then Close+Sync, whose ReadyForQuery releases the rows), which is most of a
 * sub-millisecond query. Here Parse, Bind, Describe and the first Execute leave in one write,
 * a batch is handed over as soon as PortalSuspended or CommandComplete arrives, and Sync
 * (which also drops the portal) is sent when the result is complete or abandoned.
 */
export class PortalReader implements pg.Submittable {
  private wire: Wire | undefined;
  private fields: FieldLike[] = [];
  private rows: (string | null)[][] = [];
  private waiter: { resolve: (b: RawBatch) => void; reject: (e: unknown) => void } | undefined;
  private ready: RawBatch | undefined;
  private failed: { error: unknown } | undefined;
  private executing = false;
  private synced = false;
  private readonly finished: Promise<void>;
  private finish!: () => void;

  constructor(
    private readonly text: string,
    private readonly values: readonly unknown[],
    private readonly batchSize: number,
  ) {
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }

  submit(connection: pg.Connection): void {
    const wire = connection as unknown as Wire;
    this.wire = wire;
    this.executing = true;
    // one write for the four messages instead of one per message
    wire.stream.cork();
    wire.parse({ text: this.text }, true);
    wire.bind({ values: this.values }, true);
    wire.describe({ type: 'P', name: '' }, true);
    wire.execute({ portal: '', rows: this.batchSize }, true);
    wire.flush();
    wire.stream.uncork();
  }

  /** The next batch; call again only after the previous call settled and reported `more`. */
  read(): Promise<RawBatch> {
    if (this.failed) return Promise.reject(this.failed.error);
    if (this.ready) {
      const b = this.ready;
      this.ready = undefined;
      return Promise.resolve(b);
    }
    if (!this.executing && !this.synced && this.wire) {
      this.executing = true;
      this.wire.execute({ portal: '', rows: this.batchSize }, true);
      this.wire.flush();
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** Ends the statement early (or after its last batch); resolves once the server is ready again. */
  close(): Promise<void> {
    this.sync();
    return this.finished;
  }

  handleRowDescription(msg: { fields: FieldLike[] }): void {
    this.fields = msg.fields;
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    this.rows.push(msg.fields);
  }

  handlePortalSuspended(): void {
    this.deliver(true);
  }

  handleCommandComplete(): void {
    this.deliver(false);
    this.sync();
  }

  handleEmptyQuery(): void {
    this.deliver(false);
    this.sync();
  }

  handleError(err: unknown): void {
    // the server skips everything up to the next Sync: send it unless it is already on its way
    this.sync();
    this.failed = { error: err };
    this.executing = false;
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(err);
    // pg clears its active query on an error, so no ReadyForQuery reaches this reader
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  private deliver(more: boolean): void {
    this.executing = false;
    const batch: RawBatch = { rows: this.rows, fields: this.fields, more };
    this.rows = [];
    if (this.synced) return;
    const w = this.waiter;
    this.waiter = undefined;
    if (w) w.resolve(batch);
    else this.ready = batch;
  }

  private sync(): void {
    if (this.synced || !this.wire) return;
    this.synced = true;
    this.wire.sync();
  }
}
