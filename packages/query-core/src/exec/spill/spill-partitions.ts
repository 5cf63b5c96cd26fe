import { checkAborted, type ExecContext } from '../context.js';
import { SpillFile } from './spill-file.js';

/** Partitions per split: 32 at each level covers a build side 32× the budget in one pass, 1024× in two. */
export const SPILL_FANOUT = 32;
/** Estimated bytes a partition buffers before they are written as one chunk. */
const FLUSH_BYTES = 64 * 1024;
/**
 * Encoded bytes a partition's file gathers before one write to disk. Outside the memory
 * budget (encoded chunks are a fraction of the rows they hold), so kept small enough that
 * the 32 files of two levels of splits stay a few MiB each.
 */
const WRITE_BLOCK = 256 * 1024;
/**
 * The buffers of one set of partitions take at most this share of the query's budget:
 * they must not crowd out the hash tables of other operators (or of this one's next
 * partition), or everything else would spill for want of memory the buffers hold.
 */
const BUFFER_SHARE = 1 / 16;

/**
 * A set of spill files written side by side, one per hash partition. Records are buffered
 * per partition and written in chunks; the buffers count against the query's memory
 * budget, and when it is tight a partition is written out at once instead. Files are
 * created on first use: an empty partition costs nothing.
 */
export class SpillPartitions<T> {
  readonly files: (SpillFile<T> | undefined)[];
  private readonly buffers: T[][];
  /** bytes buffered per partition, and how many of them are reserved in the memory budget */
  private readonly buffered: number[];
  private readonly reserved: number[];
  /** estimated in-memory bytes of the records written to each partition */
  readonly sizes: number[];

  /** a partition's buffer is written once it holds this many bytes */
  private readonly flushBytes: number;

  constructor(
    private readonly ctx: ExecContext,
    private readonly operator: string,
    readonly fanout = SPILL_FANOUT,
  ) {
    this.flushBytes = Math.max(1, Math.min(FLUSH_BYTES, Math.floor((ctx.memory.budgetBytes * BUFFER_SHARE) / fanout)));
    this.files = new Array<SpillFile<T> | undefined>(fanout).fill(undefined);
    this.buffers = Array.from({ length: fanout }, () => []);
    this.buffered = new Array<number>(fanout).fill(0);
    this.reserved = new Array<number>(fanout).fill(0);
    this.sizes = new Array<number>(fanout).fill(0);
  }

  /** Adds one record; call flushFull() after a batch of adds. */
  add(partition: number, record: T, bytes: number): void {
    this.buffers[partition].push(record);
    this.buffered[partition] += bytes;
    this.sizes[partition] += bytes;
    if (this.ctx.memory.tryReserve(bytes)) this.reserved[partition] += bytes;
    else this.buffered[partition] += this.flushBytes; // no memory to buffer in: written at the next flushFull
  }

  /** Writes the partitions whose buffers are full. */
  async flushFull(): Promise<void> {
    for (let p = 0; p < this.fanout; p++) if (this.buffered[p] >= this.flushBytes) await this.flush(p);
  }

  /** Writes every buffer; the files are complete afterwards. */
  async flushAll(): Promise<void> {
    for (let p = 0; p < this.fanout; p++) if (this.buffers[p].length > 0) await this.flush(p);
    for (const f of this.files) await f?.flush();
  }

  records(p: number): number {
    return (this.files[p]?.records ?? 0) + this.buffers[p].length;
  }

  get bytesWritten(): number {
    let n = 0;
    for (const f of this.files) n += f?.bytes ?? 0;
    return n;
  }

  /** Removes every file and drops the buffers (also on error and cancel). */
  async remove(): Promise<void> {
    for (const b of this.buffers) b.length = 0;
    this.buffered.fill(0);
    for (let p = 0; p < this.fanout; p++) this.ctx.memory.release(this.reserved[p]);
    this.reserved.fill(0);
    await Promise.all(this.files.map((f) => f?.remove()));
  }

  private async flush(p: number): Promise<void> {
    checkAborted(this.ctx.signal);
    const rows = this.buffers[p];
    this.buffers[p] = [];
    let file = this.files[p];
    if (!file) {
      file = await SpillFile.create<T>(this.ctx.spillDir, this.ctx.disk, this.operator, { writeBlock: WRITE_BLOCK });
      this.files[p] = file;
    }
    await file.write(rows);
    this.ctx.memory.release(this.reserved[p]);
    this.reserved[p] = 0;
    this.buffered[p] = 0;
  }
}
