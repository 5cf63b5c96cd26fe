import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { JunctionError, diskFull, isDiskFull, type Row } from '@junction/connectors';
import type { DiskTracker } from '../context.js';
import { decodeChunk, encodeChunk } from './spill-codec.js';

/** Bytes asked of the disk per read: chunks are parsed out of it, so a file is read in few calls. */
const READ_BLOCK = 1024 * 1024;
/** chunk header: body length, records in it */
const HEAD = 8;
/**
 * Encoded bytes kept before one write, unless the caller asks otherwise: a sort run or a
 * join's stash written a chunk (1,024 rows) a call took twice as long (1.6M rows: 0.87 s
 * against 0.44 s). Partitioned spills keep less each (spill-partitions.ts): many are open.
 */
const WRITE_BLOCK = 1024 * 1024;

export interface SpillFileOptions {
  /**
   * Encoded chunks are kept until this many bytes are pending, then written in one call
   * (the file must be flush()ed before it is complete; read() does so). 0: every write()
   * goes to disk before it returns. Default 1 MiB.
   */
  readonly writeBlock?: number;
}

/**
 * The one on-disk format of every operator that spills (sort runs, window buffers, hash
 * join and hash aggregate partitions): chunks of records, each an 8-byte header (body
 * length, record count) and a body in spill-codec's columnar form, padded to 8 bytes so
 * typed blocks can be read in place. Exact for bigint, Uint8Array, NULL, decimal and date
 * strings and accumulator states. Appended to, then read back sequentially as often as
 * needed (a block join reads its probe partition once per block).
 */
export class SpillFile<T = Row> {
  private handle: FileHandle | undefined;
  /** bytes on disk */
  private writePos = 0;
  /** encoded chunks not yet written, and their size (already reserved on the disk tracker) */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private count = 0;
  readonly path: string;

  private constructor(
    dir: string,
    private readonly disk: DiskTracker | undefined,
    /** named in the spill-limit error */
    private readonly operator: string,
    private readonly writeBlock: number,
  ) {
    this.path = join(dir, `junction-spill-${randomUUID()}.bin`);
  }

  static async create<T = Row>(dir: string, disk?: DiskTracker, operator = 'Sort', options: SpillFileOptions = {}): Promise<SpillFile<T>> {
    const f = new SpillFile<T>(dir, disk, operator, options.writeBlock ?? WRITE_BLOCK);
    try {
      f.handle = await open(f.path, 'w+');
    } catch (e) {
      throw spillError(e, dir);
    }
    return f;
  }

  async write(records: readonly T[]): Promise<void> {
    if (!this.handle) throw new JunctionError('spill_file_closed', 'internal', 'A spill file was written after it was removed.');
    const chunk = encodeChunk(records, HEAD);
    chunk.writeUInt32LE(chunk.length - HEAD, 0);
    chunk.writeUInt32LE(records.length, 4);
    this.disk?.reserve(chunk.length, this.operator);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.count += records.length;
    if (this.pendingBytes >= this.writeBlock) await this.flush();
  }

  /** Writes what write() kept back. */
  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const handle = this.handle;
    if (!handle) throw new JunctionError('spill_file_closed', 'internal', 'A spill file was written after it was removed.');
    const buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    const n = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    try {
      await writeAll(handle, buf, this.writePos);
    } catch (e) {
      this.disk?.release(n);
      throw spillError(e, this.path);
    }
    this.writePos += n;
  }

  /** Chunks in the order they were written. */
  async *read(): AsyncIterable<T[]> {
    await this.flush();
    const end = this.writePos;
    // block: bytes [blockPos, blockPos + block.length) of the file, aligned in memory
    const block = Buffer.allocUnsafeSlow(Math.min(READ_BLOCK, end));
    let blockPos = 0;
    let blockLen = 0;
    let pos = 0;
    while (pos < end) {
      let at = pos - blockPos;
      if (at + HEAD > blockLen) {
        if (!(await this.fill(block, pos, Math.min(block.length, end - pos)))) return;
        blockPos = pos;
        blockLen = Math.min(block.length, end - pos);
        at = 0;
      }
      const len = block.readUInt32LE(at);
      let body: Buffer;
      if (at + HEAD + len <= blockLen) {
        body = block.subarray(at + HEAD, at + HEAD + len);
      } else if (HEAD + len <= block.length) {
        // the chunk runs past the block: read again from its start
        if (!(await this.fill(block, pos, Math.min(block.length, end - pos)))) return;
        blockPos = pos;
        blockLen = Math.min(block.length, end - pos);
        body = block.subarray(HEAD, HEAD + len);
      } else {
        // bigger than a block: a buffer of its own
        const big = Buffer.allocUnsafeSlow(len);
        if (!(await this.fill(big, pos + HEAD, len))) return;
        body = big;
        blockLen = 0;
      }
      pos += HEAD + len;
      // decoded before the next fill overwrites the block
      yield decodeChunk<T>(body);
    }
  }

  /** Reads exactly `len` bytes at `pos` into `buf`; false when the file was removed meanwhile. */
  private async fill(buf: Buffer, pos: number, len: number): Promise<boolean> {
    let done = 0;
    while (done < len) {
      const handle = this.handle;
      // removed while being read (the query ended): nothing more to give
      if (!handle) return false;
      const { bytesRead } = await handle.read(buf, done, len - done, pos + done);
      if (bytesRead <= 0) throw new JunctionError('spill_file_truncated', 'internal', `A spill file ended early: ${this.path}.`);
      done += bytesRead;
    }
    return true;
  }

  get bytes(): number {
    return this.writePos + this.pendingBytes;
  }

  /** records written */
  get records(): number {
    return this.count;
  }

  async remove(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
    await rm(this.path, { force: true });
    this.disk?.release(this.writePos + this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.writePos = 0;
    this.count = 0;
  }
}

/**
 * A write that fills the disk part-way returns short instead of failing: counting it as whole
 * would leave a chunk whose tail is missing, read back later as garbage. The rest is written
 * until the disk says ENOSPC; a write that makes no progress is taken as the same.
 */
async function writeAll(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await handle.write(buf, done, buf.length - done, position + done);
    if (bytesWritten <= 0) throw Object.assign(new Error('ENOSPC: no progress writing a spill file'), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}

/** A full disk or an unusable spill directory is the machine's limit, not a bug in the query. */
function spillError(e: unknown, where: string): unknown {
  if (isDiskFull(e)) {
    return diskFull('spill', 'the query needed to spill past its memory budget and was stopped', { cause: e, details: { path: where } });
  }
  const code = (e as { code?: string })?.code;
  if (code === 'EACCES' || code === 'ENOENT' || code === 'EROFS') {
    return new JunctionError('spill_dir_unusable', 'internal', `Junction cannot write spill files in ${where} (${code}); set spillDir to a writable directory.`, { cause: e });
  }
  return e;
}
