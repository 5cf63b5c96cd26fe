import type { PhaseRunner } from '../context.js';
import type { Mode, Phase } from '../definition.js';
import { Recorder } from '../stats.js';

type Single = Extract<Phase, { type: 'single' }>;

/** JDV use cases 1–2: each query alone, after warm-ups, `repetitions` times per mode. */
export const runSingle: PhaseRunner<Single> = async (ctx, phase, index, label) => {
  const modes: Mode[] = phase.modes ?? ['direct', 'federated'];
  const queries = ctx.queriesOf(phase.queries);
  for (const [qi, q] of queries.entries()) {
    const entry = ctx.entry(q.id, label, index, 'single');
    for (const mode of modes) {
      if (!ctx.can(q, mode)) continue;
      ctx.setStep(`${q.id} ${mode}`);
      ctx.progress.fraction = (index + (qi + 0.5) / queries.length) / ctx.progress.phases;
      const warm = new Recorder();
      for (let i = 0; i < phase.warmups; i++) await ctx.measure(q, mode, [warm], label);
      warm.destroy();
      const rec = new Recorder();
      for (let i = 0; i < phase.repetitions; i++) await ctx.measure(q, mode, [rec], label);
      entry[mode] = rec.stats();
      rec.destroy();
    }
  }
};
