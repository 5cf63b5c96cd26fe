import type { PhaseRunner } from '../context.js';
import type { Mode, Phase } from '../definition.js';
import { Recorder } from '../stats.js';

type Single = Extract<Phase, { type: 'single' }>;

/**
 * JDV use cases 1–2: each query alone, after warm-ups, `repetitions` times per mode. Every mode
 * runs with the same parameter values in the same order (H's customer keys), so direct, one
 * source and federated differ only in how the query runs, not in what it reads.
 */
export const runSingle: PhaseRunner<Single> = async (ctx, phase, index, label) => {
  const modes: Mode[] = phase.modes ?? ['direct', 'federated'];
  const queries = ctx.queriesOf(phase.queries);
  for (const [qi, q] of queries.entries()) {
    const entry = ctx.entry(q.id, label, index, 'single');
    const runnable = modes.filter((m) => ctx.can(q, m));
    for (const [mi, mode] of runnable.entries()) {
      ctx.setStep(`${q.id} ${mode}`);
      ctx.progress.fraction = (index + (qi + mi / runnable.length) / queries.length) / ctx.progress.phases;
      const keys = ctx.paramStream(`${index}:${q.id}`);
      const warm = new Recorder();
      try {
        for (let i = 0; i < phase.warmups; i++) await ctx.measure(q, mode, [warm], label, keys);
      } finally {
        warm.destroy();
      }
      const rec = new Recorder();
      let complete = false;
      try {
        for (let i = 0; i < phase.repetitions; i++) await ctx.measure(q, mode, [rec], label, keys);
        complete = true;
      } finally {
        // a cancel keeps the repetitions that ended
        if (rec.executions || rec.errors) {
          entry[mode] = rec.stats();
          if (!complete) entry.partial = true;
        }
        rec.destroy();
      }
    }
  }
};
