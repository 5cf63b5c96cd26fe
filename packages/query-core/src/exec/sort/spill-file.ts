import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { JunctionError, type Row } from '@junction/connectors';
import type { DiskTracker } from '../context.js';

/**
 * A sorted run on disk: length-prefixed chunks of rows in V8's serialisation, which keeps
 * bigint, Uint8Array and null exactly. Written once, read back sequentially.
 */
export class SpillFile {
  private handle: FileHandle | undefined;
  private writePos = 0;
  readonly path: string;

  private constructor(
    dir: string,
    private readonly disk: DiskTracker | undefined,
  ) {
    this.path = join(dir, `junction-spill-${randomUUID()}.bin`);
  }

  static async create(dir: string, disk?: DiskTracker): Promise<SpillFile> {
    const f = new SpillFile(dir, disk);
    try {
      f.handle = await open(f.path, 'w+');
    } catch (e) {
      throw spillError(e, dir);
    }
    return f;
  }

  async write(rows: readonly Row[]): Promise<void> {
    const body = serialize(rows);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length, 0);
    const buf = Buffer.concat([head, body]);
    this.disk?.reserve(buf.length, 'Sort');
    try {
      await this.handle!.write(buf, 0, buf.length, this.writePos);
    } catch (e) {
      this.disk?.release(buf.length);
      throw spillError(e, this.path);
    }
    this.writePos += buf.length;
  }

  /** Chunks in the order they were written. */
  async *read(): AsyncIterable<Row[]> {
    let pos = 0;
    const head = Buffer.alloc(4);
    while (pos < this.writePos) {
      await this.handle!.read(head, 0, 4, pos);
      const len = head.readUInt32LE(0);
      const body = Buffer.alloc(len);
      await this.handle!.read(body, 0, len, pos + 4);
      pos += 4 + len;
      yield deserialize(body) as Row[];
    }
  }

  get bytes(): number {
    return this.writePos;
  }

  async remove(): Promise<void> {
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await rm(this.path, { force: true });
    this.disk?.release(this.writePos);
    this.writePos = 0;
  }
}

/** A full disk or an unusable spill directory is the machine's limit, not a bug in the query. */
function spillError(e: unknown, where: string): unknown {
  const code = (e as { code?: string })?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new JunctionError('spill_disk_full', 'resources', `The disk holding Junction's spill files is full (${where}); the query was stopped.`, { cause: e });
  }
  if (code === 'EACCES' || code === 'ENOENT' || code === 'EROFS') {
    return new JunctionError('spill_dir_unusable', 'internal', `Junction cannot write spill files in ${where} (${code}); set spillDir to a writable directory.`, { cause: e });
  }
  return e;
}
