import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * For tests of what happens when a disk fills: a small tmpfs that a filler file fills to a chosen
 * number of free bytes. Only root can mount one; `tmpfsUnavailable()` says why not, for skipIf.
 */
export function tmpfsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `tmpfs needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const t = new Tmpfs(64 * 1024);
  try {
    t.mount();
    return undefined;
  } catch (e) {
    return `mount -t tmpfs failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}`;
  } finally {
    t.close();
  }
}

export class Tmpfs {
  readonly dir = mkdtempSync(join(tmpdir(), 'jt-tmpfs-'));
  readonly #filler = join(this.dir, 'filler');
  #mounted = false;

  constructor(readonly sizeBytes: number) {}

  mount(): this {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${this.sizeBytes},mode=0700`, 'tmpfs', this.dir], { stdio: 'pipe' });
    this.#mounted = true;
    return this;
  }

  get freeBytes(): number {
    const s = statfsSync(this.dir);
    return s.bavail * s.bsize;
  }

  /** Leaves about `left` bytes free (tmpfs counts whole 4 KiB pages). */
  fill(left: number): void {
    const fd = openSync(this.#filler, 'a');
    try {
      const chunk = Buffer.alloc(64 * 1024, 1);
      for (let want = this.freeBytes - left; want >= 4096; want = this.freeBytes - left)
        writeSync(fd, chunk, 0, Math.min(chunk.length, want - (want % 4096)));
    } catch (e) {
      // something else on the disk grew meanwhile: it is full, which is what was asked
      if ((e as { code?: string }).code !== 'ENOSPC') throw e;
    } finally {
      closeSync(fd);
    }
  }

  free(): void {
    rmSync(this.#filler, { force: true });
  }

  close(): void {
    if (this.#mounted) {
      try {
        execFileSync('umount', [this.dir], { stdio: 'pipe' });
      } catch {
        // still busy (a handle left open): detach it lazily so the mount never outlives the run
        execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
      }
      this.#mounted = false;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
