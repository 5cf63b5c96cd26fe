import { sleep } from '../budget.js';
import type { RunContext } from '../context.js';
import type { IntervalEntry } from '../results.js';
import { Recorder } from '../stats.js';

/**
 * `users` concurrent loops for `seconds`: each calls `body` (which records into the recorders it
 * is given), then thinks. Every `intervalSeconds` the interval's executions, throughput and
 * percentiles go to results.intervals. Returns the seconds it actually ran.
 *
 * A step rarely lasts a whole number of intervals, and its last executions end after its time:
 * a tail shorter than half an interval joins the interval before it, since a few executions
 * over a few hundredths of a second read as a throughput spike that never happened.
 *
 * A cancel lets every user's execution end (each stops at once on the signal), records the
 * last interval, then throws: the caller keeps what the step did.
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
    /** how far the step is, 0…1 by its time, several times a second */
    progress?: (fraction: number) => void;
  },
  body: (user: number, interval: () => Recorder) => Promise<unknown>,
): Promise<number> {
  const t0 = Date.now();
  const end = t0 + opts.seconds * 1000;
  const intervalMs = Math.max(100, opts.intervalSeconds * 1000);
  let interval = new Recorder();
  let intervalStart = t0;
  /** the interval recorded last, kept so a short tail can join it */
  let last: { rec: Recorder; start: number; at: number } | null = null;

  const entry = (rec: Recorder, start: number, now: number): IntervalEntry => {
    const seconds = (now - start) / 1000;
    const s = rec.stats();
    return {
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
    };
  };
  const flush = (final: boolean) => {
    const now = Date.now();
    if (now <= intervalStart) return;
    if (final && last && now - intervalStart < intervalMs / 2) {
      last.rec.add(interval);
      ctx.results.intervals[last.at] = entry(last.rec, last.start, now);
      interval.destroy();
      interval = new Recorder();
      return;
    }
    last?.rec.destroy();
    last = null;
    // a day at 0.1 s would be 864,000 intervals: the stored run keeps the first 20,000
    if (ctx.results.intervals.length < 20_000) {
      ctx.results.intervals.push(entry(interval, intervalStart, now));
      last = { rec: interval, start: intervalStart, at: ctx.results.intervals.length - 1 };
    } else interval.destroy();
    interval = new Recorder();
    intervalStart = now;
  };
  const timer = setInterval(() => flush(false), intervalMs);
  const ticker = opts.progress
    ? setInterval(() => opts.progress!(Math.min(1, (Date.now() - t0) / (opts.seconds * 1000))), 250)
    : undefined;
  let outcome: PromiseSettledResult<unknown>[];
  try {
    outcome = await Promise.allSettled(
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
    clearInterval(ticker);
  }
  flush(true);
  interval.destroy();
  (last as { rec: Recorder } | null)?.rec.destroy();
  const failed = outcome.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
  opts.progress?.(1);
  return (Date.now() - t0) / 1000;
}
