import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { Row } from '@junction/connectors';

/**
 * A sorted run on disk: length-prefixed chunks of rows in V8's serialisation, which keeps
 * bigint, Uint8Array and null exactly. Written once, read back sequentially.
 */
export class SpillFile {
  private handle: FileHandle | undefined;
  private writePos = 0;
  readonly path: string;

  private constructor(dir: string) {
    this.path = join(dir, `junction-spill-${randomUUID()}.bin`);
  }

  static async create(dir: string): Promise<SpillFile> {
    const f = new SpillFile(dir);
    f.handle = await open(f.path, 'w+');
    return f;
  }

  async write(rows: readonly Row[]): Promise<void> {
    const body = serialize(rows);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length, 0);
    const buf = Buffer.concat([head, body]);
    await this.handle!.write(buf, 0, buf.length, this.writePos);
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
  }
}
