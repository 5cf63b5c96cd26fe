import { sleep } from '../budget.js';
import type { RunContext } from '../context.js';
import { Recorder } from '../stats.js';

/**
 * `users` concurrent loops for `seconds`: each calls `body` (which records into the recorders it
 * is given), then thinks. Every `intervalSeconds` the interval's executions, throughput and
 * percentiles go to results.intervals. Returns the seconds it actually ran.
 */
export async function timedUsers(
  ctx: RunContext,
  opts: {
    users: number;
    seconds: number;
    intervalSeconds: number;
    thinkMs?: number;
    phase: string;
    phaseIndex: number;
    step: string;
  },
  body: (user: number, interval: () => Recorder) => Promise<unknown>,
): Promise<number> {
  const t0 = Date.now();
  const end = t0 + opts.seconds * 1000;
  let interval = new Recorder();
  let intervalStart = Date.now();
  const flush = () => {
    const now = Date.now();
    const seconds = (now - intervalStart) / 1000;
    if (seconds <= 0) return;
    const s = interval.stats();
    // a day at 0.1 s would be 864,000 intervals: the stored run keeps the first 20,000
    if (ctx.results.intervals.length < 20_000)
      ctx.results.intervals.push({
        phase: opts.phase,
        phaseIndex: opts.phaseIndex,
        step: opts.step,
        t: Math.round((now - ctx.started) / 10) / 100,
        seconds: Math.round(seconds * 100) / 100,
        executions: s.executions,
        errors: s.errors,
        throughput: Math.round((s.executions / seconds) * 100) / 100,
        p50Ms: s.p50Ms,
        p90Ms: s.p90Ms,
        p95Ms: s.p95Ms,
        p99Ms: s.p99Ms,
        maxMs: s.maxMs,
      });
    interval.destroy();
    interval = new Recorder();
    intervalStart = now;
  };
  const timer = setInterval(flush, Math.max(100, opts.intervalSeconds * 1000));
  try {
    await Promise.all(
      Array.from({ length: opts.users }, async (_, user) => {
        while (Date.now() < end) {
          ctx.throwIfCancelled();
          const errorsBefore = ctx.progress.errors;
          await body(user, () => interval);
          if (opts.thinkMs) await sleep(opts.thinkMs, ctx.signal);
          // a failing source answers at once: do not spin on it
          else if (ctx.progress.errors > errorsBefore) await sleep(20, ctx.signal);
        }
      }),
    );
  } finally {
    clearInterval(timer);
  }
  flush();
  interval.destroy();
  return (Date.now() - t0) / 1000;
}
