import type { PhaseRunner } from '../context.js';
import type { Phase } from '../definition.js';
import { streamOrder } from '../params.js';
import { geometricMean, Recorder } from '../stats.js';

type Streams = Extract<Phase, { type: 'streams' }>;

/**
 * Red Hat's query streams: `users` users at once, each running the query set once in its own
 * order; the score is the geometric mean of the per-query times (failed executions left out).
 */
export const runStreams: PhaseRunner<Streams> = async (ctx, phase, index, label) => {
  const mode = phase.mode ?? 'federated';
  const queries = ctx.queriesOf(phase.queries).filter((q) => ctx.can(q, mode));
  const recs = new Map(queries.map((q) => [q.id, new Recorder()]));
  const times = new Map<string, number[]>(queries.map((q) => [q.id, []]));
  const orders = Array.from({ length: phase.users }, (_, u) => streamOrder(queries, u, ctx.seed));
  ctx.setStep(`${phase.users} streams ${mode}`);
  ctx.progress.fraction = (index + 0.5) / ctx.progress.phases;
  const t0 = Date.now();
  let complete = false;
  try {
    // each stream goes on to its end: a cancel stops every one of them at once
    const outcome = await Promise.allSettled(
      orders.map(async (order) => {
        for (const q of order) {
          const e = await ctx.measure(q, mode, [recs.get(q.id)!], label);
          if (e) times.get(q.id)!.push(e.ms);
        }
      }),
    );
    const failed = outcome.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    complete = true;
  } finally {
    const perQuery: Record<string, number> = {};
    for (const q of queries) {
      perQuery[q.id] = geometricMean(times.get(q.id)!);
      const rec = recs.get(q.id)!;
      const e = ctx.entry(q.id, label, index, 'streams');
      e[mode] = rec.stats();
      if (!complete) e.partial = true;
      rec.destroy();
    }
    // a score over streams cut short would not be a stream score
    if (complete)
      ctx.results.streams.push({
        phase: label,
        phaseIndex: index,
        mode,
        users: phase.users,
        geomeanMs: geometricMean([...times.values()].flat()),
        perQueryGeomeanMs: perQuery,
        orders: orders.map((o) => o.map((q) => q.id)),
        seconds: (Date.now() - t0) / 1000,
      });
  }
};
