import type { PhaseRunner } from '../context.js';
import type { Phase } from '../definition.js';
import { weighted } from '../params.js';
import { Recorder } from '../stats.js';
import { timedUsers } from './timed.js';

type Mix = Extract<Phase, { type: 'mix' }>;

/**
 * The TPoX driver's weighted transaction mix: each user draws the next query by weight, for
 * `durationSeconds`; per-query percentiles, and a summary every `intervalSeconds`. A cancel
 * keeps what ended before it (marked partial).
 */
export const runMix: PhaseRunner<Mix> = async (ctx, phase, index, label) => {
  const mode = phase.mode ?? 'federated';
  const queries = ctx.queriesOf(phase.queries).filter((q) => ctx.can(q, mode));
  if (!queries.length) return;
  const recs = new Map(queries.map((q) => [q.id, new Recorder()]));
  const step = `mix ${mode} × ${phase.users} users`;
  ctx.setStep(step);
  const t0 = Date.now();
  let seconds: number | undefined;
  try {
    seconds = await timedUsers(
      ctx,
      {
        users: phase.users,
        seconds: phase.durationSeconds,
        intervalSeconds: phase.intervalSeconds,
        thinkMs: phase.thinkMs,
        phase: label,
        phaseIndex: index,
        step,
        progress: (f) => (ctx.progress.fraction = (index + f) / ctx.progress.phases),
      },
      (_u, interval) => {
        const q = weighted(queries, ctx.random);
        return ctx.measure(q, mode, () => [recs.get(q.id)!, interval()], label);
      },
    );
  } finally {
    const partial = seconds === undefined;
    const all = new Recorder();
    for (const q of queries) {
      const rec = recs.get(q.id)!;
      const e = ctx.entry(q.id, label, index, 'mix');
      e[mode] = rec.stats();
      if (partial) e.partial = true;
      all.add(rec);
      rec.destroy();
    }
    const stats = all.stats();
    all.destroy();
    const s = seconds ?? (Date.now() - t0) / 1000;
    ctx.results.steps.push({
      phase: label,
      phaseIndex: index,
      query: '*',
      mode,
      users: phase.users,
      seconds: Math.round(s * 100) / 100,
      throughput: s > 0 ? Math.round((stats.executions / s) * 100) / 100 : 0,
      stats,
      ...(partial ? { partial: true } : {}),
    });
  }
};
