/**
 * The shadow catalog's child process: the server's memory comes back whole when it ends, and it
 * never outlives its use nor the server.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenOf } from '../../../test/private-postgres.js';
import { CatalogShadow, type ShadowCatalog } from './shadow.js';

const catalog: ShadowCatalog = {
  searchPath: ['s'],
  relations: [
    {
      schema: 's',
      name: 't',
      kind: 'table',
      columns: [
        { name: 'a', pgType: 'integer', nullable: false },
        { name: 'b', pgType: 'character varying(20)', nullable: true },
      ],
      primaryKey: ['a'],
    },
  ],
};
const PSQL_DT = `SELECT n.nspname, c.relname FROM pg_catalog.pg_class c
  LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r','p','') AND pg_catalog.pg_table_is_visible(c.oid) AND n.nspname <> 'pg_catalog' ORDER BY 1, 2`;

const MB = 2 ** 20;
const hasProc = existsSync('/proc/self/stat');

/** The shadow catalog processes whose parent is `parent` (Linux: read from /proc). */
function shadowChildren(parent = process.pid): number[] {
  return childrenOf(parent).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('shadow-boot.mjs');
    } catch {
      return false; // ended meanwhile
    }
  });
}

/** Whether a process of this pid exists (a zombie not yet reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!hasProc) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

function dt(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

describe('CatalogShadow child process', () => {
  it("gives the server's memory back: its RSS after close() is near what it was before the first start", async () => {
    // warm-up of the test's own code, so that what is measured is the shadow's
    const warm = new CatalogShadow();
    await warm.close();
    expect(dt(new Uint8Array(16))).toHaveLength(16);
    await new Promise((r) => setTimeout(r, 100));
    const before = process.memoryUsage().rss;

    const shadow = new CatalogShadow();
    let t = performance.now();
    const version = await shadow.serverVersion();
    const started = performance.now() - t;
    expect(dt(await shadow.simpleQuery(catalog, PSQL_DT))).toContain('SELECT 1');
    const running = process.memoryUsage().rss;
    const child = hasProc ? shadowChildren()[0] : undefined;
    const childRss =
      child === undefined
        ? undefined
        : Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child}/status`, 'utf8'))![1]) * 1024;
    t = performance.now();
    await shadow.close();
    const closed = performance.now() - t;
    const after = process.memoryUsage().rss;

    console.log(
      `shadow catalog: PostgreSQL ${version} started in ${started.toFixed(0)} ms, closed in ${closed.toFixed(0)} ms; ` +
        `server RSS ${(before / MB).toFixed(0)} MB before, ${(running / MB).toFixed(0)} MB running, ${(after / MB).toFixed(0)} MB after close` +
        (childRss === undefined ? '' : `; the child's RSS ${(childRss / MB).toFixed(0)} MB`),
    );
    // a worker thread left 250–400 MB behind here
    expect(after - before).toBeLessThan(60 * MB);
    expect(running - before).toBeLessThan(60 * MB);
  });

  describe.skipIf(!hasProc)('its end', () => {
    it('is gone once close() resolves, and the next call starts another', async () => {
      const shadow = new CatalogShadow();
      try {
        await shadow.serverVersion();
        const [pid] = shadowChildren();
        expect(pid).toBeDefined();
        await shadow.close();
        expect(alive(pid!)).toBe(false);
        expect(shadowChildren()).toEqual([]);

        expect(dt(await shadow.simpleQuery(catalog, PSQL_DT))).toContain('SELECT 1');
        const [next] = shadowChildren();
        expect(next).toBeDefined();
        expect(next).not.toBe(pid);
      } finally {
        await shadow.close();
      }
    });

    it('is gone after the idle period', async () => {
      const shadow = new CatalogShadow({ idleMs: 300 });
      try {
        await shadow.simpleQuery(catalog, PSQL_DT);
        const [pid] = shadowChildren();
        expect(pid).toBeDefined();
        expect(alive(pid!)).toBe(true);
        expect(await goneWithin(pid!, 5000)).toBe(true);
        expect(shadowChildren()).toEqual([]);
      } finally {
        await shadow.close();
      }
    });

    it('fails the pending call when it dies, and the next call starts another', async () => {
      const shadow = new CatalogShadow();
      try {
        await shadow.serverVersion();
        const [pid] = shadowChildren();
        const pending = shadow.simpleQuery(catalog, 'SELECT pg_catalog.pg_sleep(5)');
        const rejected = expect(pending).rejects.toThrow(/the shadow catalog's process ended \(signal SIGKILL\)/);
        await new Promise((r) => setTimeout(r, 200));
        process.kill(pid!, 'SIGKILL');
        await rejected;
        expect(dt(await shadow.simpleQuery(catalog, PSQL_DT))).toContain('SELECT 1');
        expect(shadowChildren()).not.toContain(pid);
      } finally {
        await shadow.close();
      }
    });
  });

  describe.skipIf(!hasProc)("the server's end", () => {
    const root = fileURLToPath(new URL('../../../../../', import.meta.url));
    const shadowUrl = new URL('./shadow.ts', import.meta.url).href;
    /** what a failed test leaves running is ended */
    const started: number[] = [];
    afterEach(() => {
      for (const pid of started.splice(0))
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
    });

    /**
     * Runs a server stand-in (`node --import tsx`, as `npm start` runs the API) that starts a
     * shadow, runs a query, prints its child's pid and then either ends by itself or keeps the
     * child busy in a statement that would run for ten minutes.
     */
    function server(mode: 'idle' | 'busy') {
      const script = `
        import { readFileSync, readdirSync } from 'node:fs';
        const { CatalogShadow } = await import(${JSON.stringify(shadowUrl)});
        const shadow = new CatalogShadow({ timeoutMs: 600_000 });
        const catalog = ${JSON.stringify(catalog)};
        await shadow.simpleQuery(catalog, 'SELECT 1');
        const children = readdirSync('/proc').filter((e) => {
          try {
            const stat = readFileSync('/proc/' + e + '/stat', 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid &&
              readFileSync('/proc/' + e + '/cmdline', 'utf8').includes('shadow-boot.mjs');
          } catch { return false; }
        });
        if (${JSON.stringify(mode)} === 'busy') {
          shadow.simpleQuery(catalog, 'SELECT pg_catalog.pg_sleep(600)').catch(() => undefined);
          await new Promise((r) => setTimeout(r, 300));
        }
        console.log(JSON.stringify({ children: children.map(Number) }));
      `;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.push(child.pid!);
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const pids = new Promise<number[]>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const line = /^\{.*\}$/m.exec(out);
          if (!line) return;
          const children = (JSON.parse(line[0]) as { children: number[] }).children;
          started.push(...children);
          resolve(children);
        });
        child.once('exit', () => reject(new Error(`the server stand-in ended first: ${stderr}`)));
      });
      const exit = new Promise<number | string | null>((resolve) => {
        child.once('exit', (code, signal) => resolve(signal ?? code));
        setTimeout(() => resolve('still running after 20 s'), 20_000).unref();
      });
      return { child, pids, exit };
    }

    it('an idle child neither keeps the server running nor outlives it', async () => {
      const s = server('idle');
      const [pid] = await s.pids;
      expect(pid).toBeDefined();
      // nothing else holds the stand-in: it ends by itself, and its child with it
      expect(await s.exit).toBe(0);
      expect(await goneWithin(pid!, 5000)).toBe(true);
    });

    it('a child busy in a statement does not outlive a server killed with SIGKILL', async () => {
      const s = server('busy');
      const [pid] = await s.pids;
      expect(pid).toBeDefined();
      s.child.kill('SIGKILL');
      expect(await s.exit).toBe('SIGKILL');
      // its main thread is in PGlite's WebAssembly for ten minutes: the watchdog thread ends it
      expect(await goneWithin(pid!, 5000)).toBe(true);
    });
  });
});
