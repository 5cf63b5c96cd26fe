import type { PhaseRunner } from '../context.js';
import type { Phase } from '../definition.js';
import { weighted } from '../params.js';
import { Recorder } from '../stats.js';
import { timedUsers } from './timed.js';

type Mix = Extract<Phase, { type: 'mix' }>;

/**
 * The TPoX driver's weighted transaction mix: each user draws the next query by weight, for
 * `durationSeconds`; per-query percentiles, and a summary every `intervalSeconds`.
 */
export const runMix: PhaseRunner<Mix> = async (ctx, phase, index, label) => {
  const mode = phase.mode ?? 'federated';
  const queries = ctx.queriesOf(phase.queries).filter((q) => ctx.can(q, mode));
  if (!queries.length) return;
  const recs = new Map(queries.map((q) => [q.id, new Recorder()]));
  const step = `mix ${mode} × ${phase.users} users`;
  ctx.setStep(step);
  ctx.progress.fraction = (index + 0.5) / ctx.progress.phases;
  const seconds = await timedUsers(
    ctx,
    {
      users: phase.users,
      seconds: phase.durationSeconds,
      intervalSeconds: phase.intervalSeconds,
      thinkMs: phase.thinkMs,
      phase: label,
      phaseIndex: index,
      step,
    },
    (_u, interval) => {
      const q = weighted(queries, ctx.random);
      return ctx.measure(q, mode, () => [recs.get(q.id)!, interval()], label);
    },
  );
  const all = new Recorder();
  for (const q of queries) {
    const rec = recs.get(q.id)!;
    ctx.entry(q.id, label, index, 'mix')[mode] = rec.stats();
    all.add(rec);
    rec.destroy();
  }
  const stats = all.stats();
  all.destroy();
  ctx.results.steps.push({
    phase: label,
    phaseIndex: index,
    query: '*',
    mode,
    users: phase.users,
    seconds: Math.round(seconds * 100) / 100,
    throughput: Math.round((stats.executions / seconds) * 100) / 100,
    stats,
  });
};
