import type { PhaseRunner } from '../context.js';
import type { Mode, Phase } from '../definition.js';
import { Recorder } from '../stats.js';
import { timedUsers } from './timed.js';

type Concurrency = Extract<Phase, { type: 'concurrency' }>;

/**
 * JDV use cases 3–4: one query by 1…N users, `stepSeconds` per level; throughput and latency per
 * level. A cancel keeps the levels finished and the one cut short (marked partial) in the steps
 * and in the mode's total, so a cancelled run still compares with a finished one.
 */
export const runConcurrency: PhaseRunner<Concurrency> = async (ctx, phase, index, label) => {
  const q = ctx.query(phase.query);
  const modes = (phase.modes ?? ['federated']).filter((m: Mode) => ctx.can(q, m));
  const entry = ctx.entry(q.id, label, index, 'concurrency');
  const levels = phase.users.length * modes.length;
  let done = 0;
  for (const mode of modes) {
    const total = new Recorder();
    let complete = false;
    try {
      for (const users of phase.users) {
        const step = `${q.id} ${mode} × ${users} users`;
        ctx.setStep(step);
        const progress = (f: number) => (ctx.progress.fraction = (index + (done + f) / levels) / ctx.progress.phases);
        progress(0);
        const rec = new Recorder();
        // every mode draws the same keys at each level
        const keys = ctx.paramStream(`${index}:${q.id}:${users}`);
        const t0 = Date.now();
        let seconds: number;
        try {
          seconds = await timedUsers(
            ctx,
            {
              users,
              seconds: phase.stepSeconds,
              intervalSeconds: 1,
              thinkMs: phase.thinkMs,
              phase: label,
              phaseIndex: index,
              step,
              progress,
            },
            (_u, interval) => ctx.measure(q, mode, () => [rec, interval()], label, keys),
          );
        } catch (e) {
          if (rec.executions || rec.errors)
            pushStep(ctx, label, index, q.id, mode, users, (Date.now() - t0) / 1000, rec, true);
          total.add(rec);
          rec.destroy();
          throw e;
        }
        pushStep(ctx, label, index, q.id, mode, users, seconds, rec, false);
        total.add(rec);
        rec.destroy();
        done++;
      }
      complete = true;
    } finally {
      if (total.executions || total.errors) {
        entry[mode] = total.stats();
        if (!complete) entry.partial = true;
      }
      total.destroy();
    }
  }
};

function pushStep(
  ctx: Parameters<PhaseRunner<Concurrency>>[0],
  phase: string,
  phaseIndex: number,
  query: string,
  mode: Mode,
  users: number,
  seconds: number,
  rec: Recorder,
  partial: boolean,
): void {
  const stats = rec.stats();
  ctx.results.steps.push({
    phase,
    phaseIndex,
    query,
    mode,
    users,
    seconds: Math.round(seconds * 100) / 100,
    throughput: seconds > 0 ? Math.round((stats.executions / seconds) * 100) / 100 : 0,
    stats,
    ...(partial ? { partial: true } : {}),
  });
}
