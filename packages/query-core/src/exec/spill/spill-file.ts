import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { JunctionError, diskFull, isDiskFull, type Row } from '@junction/connectors';
import type { DiskTracker } from '../context.js';

/**
 * The one on-disk format of every operator that spills (sort runs, hash join and hash
 * aggregate partitions): length-prefixed chunks of records in V8's serialisation, which
 * keeps bigint, Uint8Array, NULL, decimal and date strings and accumulator states (plain
 * objects, Maps, arrays) exactly. Appended to, then read back sequentially as often as
 * needed (a block join reads its probe partition once per block).
 */
export class SpillFile<T = Row> {
  private handle: FileHandle | undefined;
  private writePos = 0;
  private count = 0;
  readonly path: string;

  private constructor(
    dir: string,
    private readonly disk: DiskTracker | undefined,
    /** named in the spill-limit error */
    private readonly operator: string,
  ) {
    this.path = join(dir, `junction-spill-${randomUUID()}.bin`);
  }

  static async create<T = Row>(dir: string, disk?: DiskTracker, operator = 'Sort'): Promise<SpillFile<T>> {
    const f = new SpillFile<T>(dir, disk, operator);
    try {
      f.handle = await open(f.path, 'w+');
    } catch (e) {
      throw spillError(e, dir);
    }
    return f;
  }

  async write(records: readonly T[]): Promise<void> {
    if (!this.handle) throw new JunctionError('spill_file_closed', 'internal', 'A spill file was written after it was removed.');
    const body = serialize(records);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length, 0);
    const buf = Buffer.concat([head, body]);
    this.disk?.reserve(buf.length, this.operator);
    try {
      await writeAll(this.handle, buf, this.writePos);
    } catch (e) {
      this.disk?.release(buf.length);
      throw spillError(e, this.path);
    }
    this.writePos += buf.length;
    this.count += records.length;
  }

  /** Chunks in the order they were written. */
  async *read(): AsyncIterable<T[]> {
    let pos = 0;
    const head = Buffer.alloc(4);
    while (pos < this.writePos) {
      const handle = this.handle;
      // removed while being read (the query ended): nothing more to give
      if (!handle) return;
      await handle.read(head, 0, 4, pos);
      const len = head.readUInt32LE(0);
      const body = Buffer.alloc(len);
      await handle.read(body, 0, len, pos + 4);
      pos += 4 + len;
      yield deserialize(body) as T[];
    }
  }

  get bytes(): number {
    return this.writePos;
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
    this.disk?.release(this.writePos);
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
