import type { PhaseRunner } from '../context.js';
import type { Mode, Phase } from '../definition.js';
import { Recorder } from '../stats.js';
import { timedUsers } from './timed.js';

type Concurrency = Extract<Phase, { type: 'concurrency' }>;

/** JDV use cases 3–4: one query by 1…N users, `stepSeconds` per level; throughput and latency per level. */
export const runConcurrency: PhaseRunner<Concurrency> = async (ctx, phase, index, label) => {
  const q = ctx.query(phase.query);
  const modes = (phase.modes ?? ['federated']).filter((m: Mode) => ctx.can(q, m));
  const entry = ctx.entry(q.id, label, index, 'concurrency');
  const levels = phase.users.length * modes.length;
  let done = 0;
  for (const mode of modes) {
    const total = new Recorder();
    for (const users of phase.users) {
      const step = `${q.id} ${mode} × ${users} users`;
      ctx.setStep(step);
      ctx.progress.fraction = (index + (done + 0.5) / levels) / ctx.progress.phases;
      const rec = new Recorder();
      const seconds = await timedUsers(
        ctx,
        {
          users,
          seconds: phase.stepSeconds,
          intervalSeconds: 1,
          thinkMs: phase.thinkMs,
          phase: label,
          phaseIndex: index,
          step,
        },
        (_u, interval) => ctx.measure(q, mode, () => [rec, interval()], label),
      );
      const stats = rec.stats();
      ctx.results.steps.push({
        phase: label,
        phaseIndex: index,
        query: q.id,
        mode,
        users,
        seconds: Math.round(seconds * 100) / 100,
        throughput: Math.round((stats.executions / seconds) * 100) / 100,
        stats,
      });
      total.add(rec);
      rec.destroy();
      done++;
    }
    entry[mode] = total.stats();
    total.destroy();
  }
};
