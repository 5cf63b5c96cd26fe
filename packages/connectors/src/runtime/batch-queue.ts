/** Ends a batch by weight as well as by row count (StreamOptions.batchBytes). */
export interface BatchByteLimit<T> {
  readonly maxBytes: number;
  /** what a row will weigh once decoded, as the budget counts it (contract/row-bytes.ts) */
  readonly sizeOf: (row: T) => number;
}

/**
 * Turns a driver's push events (a row at a time) into batches pulled by an async
 * iterator, with backpressure: once `highWater` full batches wait unread the driver is
 * paused, and resumed when the reader catches up. Nothing beyond those batches is held.
 * A batch is full at `batchSize` rows or, with `byteLimit`, once its rows reach maxBytes
 * (the row that reaches it is the batch's last), so wide rows queue megabytes, not hundreds.
 */
export class BatchQueue<T> {
  private current: T[] = [];
  private currentBytes = 0;
  private readonly ready: T[][] = [];
  private ended = false;
  private error: unknown;
  private paused = false;
  private wake: (() => void) | undefined;
  /** set once end() or fail() ran: the driver has nothing more to say */
  finished = false;

  constructor(
    private readonly batchSize: number,
    private readonly pause: () => void,
    private readonly resume: () => void,
    private readonly highWater = 2,
    private readonly byteLimit?: BatchByteLimit<T>,
  ) {}

  push(row: T): void {
    this.current.push(row);
    const limit = this.byteLimit;
    if (limit) this.currentBytes += limit.sizeOf(row);
    if (this.current.length >= this.batchSize || (limit !== undefined && this.currentBytes >= limit.maxBytes)) {
      this.ready.push(this.current);
      this.current = [];
      this.currentBytes = 0;
      if (this.ready.length >= this.highWater && !this.paused) {
        this.paused = true;
        this.pause();
      }
      this.signal();
    }
  }

  end(): void {
    this.ended = true;
    this.finished = true;
    this.signal();
  }

  fail(err: unknown): void {
    this.error = err;
    this.finished = true;
    this.signal();
  }

  /**
   * The consumer stopped the statement: its next() throws `err` at once while the driver keeps
   * pushing into the queue until drain() (the server may take its time to answer the cancel).
   */
  interrupt(err: unknown): void {
    this.interrupted ??= { error: err };
    this.signal();
  }
  private interrupted: { error: unknown } | undefined;

  private signal(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** The next batch; undefined at the end; throws the driver's error. */
  async next(): Promise<T[] | undefined> {
    for (;;) {
      if (this.interrupted) throw this.interrupted.error;
      if (this.error !== undefined) throw this.error;
      const b = this.ready.shift();
      if (b) {
        if (this.paused && this.ready.length < this.highWater) {
          this.paused = false;
          this.resume();
        }
        return b;
      }
      if (this.ended) {
        if (this.current.length === 0) return undefined;
        const last = this.current;
        this.current = [];
        this.currentBytes = 0;
        return last;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Drops what is buffered and lets the driver run to its end (after a cancel). */
  drain(): Promise<void> {
    this.ready.length = 0;
    this.current = [];
    this.currentBytes = 0;
    this.push = () => undefined;
    if (this.paused) {
      this.paused = false;
      this.resume();
    }
    if (this.finished) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const check = (): void => {
        if (this.finished) resolve();
        else this.wake = check;
      };
      this.wake = check;
    });
  }
}
