import { readFileSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loopDelayMs } from '../lib/runtime-stats.js';
import type { RunContext } from './context.js';

const LOOP_RESOLUTION_MS = 10;

interface CpuTimes {
  busy: number;
  /** time the CPUs sat idle with I/O outstanding; null where /proc/stat cannot be read */
  ioWait: number | null;
  total: number;
}

/**
 * The machine's CPU time since boot. /proc/stat's first line where Linux has it (the only place
 * I/O wait can be read: os.cpus() counts it as idle); os.cpus() elsewhere.
 */
function cpuTimes(): CpuTimes {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0];
    // cpu user nice system idle iowait irq softirq steal ...
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if ([user, nice, system, idle, iowait, irq, softirq].every(Number.isFinite)) {
      const busy = user + nice + system + irq + softirq + (steal || 0);
      return { busy, ioWait: iowait, total: busy + idle + iowait };
    }
  } catch {
    // not Linux: no I/O wait
  }
  let busy = 0;
  let total = 0;
  for (const c of os.cpus()) {
    const t = c.times;
    busy += t.user + t.nice + t.sys + t.irq;
    total += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { busy, ioWait: null, total };
}

const pct = (part: number, whole: number): number => Math.round((part / whole) * 1000) / 10;

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Samples Junction's process (CPU of this process, RSS, event-loop delay), the machine (CPU busy
 * and I/O wait from /proc/stat, 1-minute load)
 * and, where readable, each source of the run (active statements / running threads).
 */
export function startSampler(ctx: RunContext, everyMs: number, sources: () => readonly string[]): () => Promise<void> {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  let cpu = process.cpuUsage();
  let machine = cpuTimes();
  let wall = performance.now();
  let busy = false;

  const sample = async () => {
    if (busy) return;
    busy = true;
    try {
      const now = performance.now();
      const c = process.cpuUsage(cpu);
      const m = cpuTimes();
      const wallMs = now - wall;
      const src: Record<string, { active: number | null }> = {};
      for (const name of sources()) {
        try {
          // only sources the run's user may read (the gate refuses the others: not sampled)
          const probe = await ctx.probes(name);
          if (!probe.has('activity')) continue;
          const rows = await withTimeout(probe.run('activity', { timeoutMs: 1000 }), 1000);
          const v = rows?.[0]?.[0];
          src[name] = { active: v === undefined || v === null ? null : Number(v) };
        } catch {
          src[name] = { active: null };
        }
      }
      ctx.results.samples.push({
        t: Math.round((Date.now() - ctx.started) / 10) / 100,
        cpuPct: wallMs > 0 ? Math.round(((c.user + c.system) / 1000 / wallMs) * 1000) / 10 : 0,
        rssMb: Math.round(process.memoryUsage.rss() / 1024 / 10.24) / 100,
        eventLoopMeanMs: loopDelayMs(loop.mean, LOOP_RESOLUTION_MS),
        eventLoopMaxMs: loopDelayMs(loop.max, LOOP_RESOLUTION_MS),
        machineBusyPct: m.total > machine.total ? pct(m.busy - machine.busy, m.total - machine.total) : 0,
        ioWaitPct:
          m.ioWait !== null && machine.ioWait !== null && m.total > machine.total
            ? pct(m.ioWait - machine.ioWait, m.total - machine.total)
            : null,
        load1: Math.round(os.loadavg()[0] * 100) / 100,
        sources: src,
      });
      if (ctx.results.samples.length > 10_000) ctx.results.samples.splice(0, ctx.results.samples.length - 10_000);
      cpu = process.cpuUsage();
      machine = m;
      wall = now;
      loop.reset();
    } finally {
      busy = false;
    }
  };
  // the first sample comes one period after the start: CPU over a few microseconds says nothing
  const timer = setInterval(() => void sample(), everyMs);
  return async () => {
    clearInterval(timer);
    while (busy) await new Promise((r) => setTimeout(r, 20));
    // a last sample only over a period long enough to mean something (or when there is none yet)
    if (!ctx.results.samples.length || performance.now() - wall >= everyMs / 2) await sample();
    loop.disable();
  };
}
