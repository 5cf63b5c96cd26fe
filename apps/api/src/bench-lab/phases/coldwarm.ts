import type { PhaseRunner } from '../context.js';
import type { Phase } from '../definition.js';
import { Recorder } from '../stats.js';

type ColdWarm = Extract<Phase, { type: 'coldwarm' }>;

/**
 * Delphix's cold vs warm: Junction's caches are cleared of what the queries read (each source
 * they read is reconnected and re-introspected, which drops its connection pool and cached plans,
 * and the result and fragment cache entries that read those sources or views are purged; other
 * users' entries over other sources stay), then one cold pass, `warmPasses` warm passes, and one
 * more warm pass by a second user. With `cacheTtlSeconds` the statements ask for the result
 * cache, so the warm passes show what it saves.
 */
export const runColdWarm: PhaseRunner<ColdWarm> = async (ctx, phase, index, label) => {
  const hint = phase.cacheTtlSeconds ? `/*+ cache(ttl=${phase.cacheTtlSeconds}) */ ` : '';
  const queries = ctx.queriesOf(phase.queries).map((q) => (hint ? { ...q, federated: hint + q.federated } : q));
  ctx.setStep('clearing caches');
  const sources = new Set<string>();
  const views = new Map<string, { schema: string; name: string }>();
  const engine = await ctx.app.junction.engine();
  for (const q of queries)
    for (const r of engine.references(q.federated)) {
      if (r.kind === 'table') sources.add(r.source);
      else views.set(`${r.schema}.${r.name}`, { schema: r.schema, name: r.name });
    }
  for (const s of sources) {
    await ctx.app.junction.refreshSource(s);
    engine.purgeCache({ source: s });
  }
  for (const v of views.values()) engine.purgeCache({ view: v });
  const entries = queries.map((q) => {
    const e = { phase: label, phaseIndex: index, query: q.id, coldMs: null, warmMs: [], secondUserWarmMs: null };
    ctx.results.coldWarm.push(e);
    return e as (typeof ctx.results.coldWarm)[number];
  });
  const warm = new Map(queries.map((q) => [q.id, new Recorder()]));
  const passes = 1 + phase.warmPasses + 1;
  let complete = false;
  try {
    for (let pass = 0; pass < passes; pass++) {
      ctx.setStep(
        pass === 0 ? 'cold pass' : pass <= phase.warmPasses ? `warm pass ${pass}` : "second user's warm pass",
      );
      for (const [i, q] of queries.entries()) {
        ctx.progress.fraction = (index + (pass + i / queries.length) / passes) / ctx.progress.phases;
        const e = await ctx.measure(q, 'federated', pass === 0 ? [] : [warm.get(q.id)!], label);
        const ms = e ? Math.round(e.ms * 1000) / 1000 : null;
        if (pass === 0) entries[i].coldMs = ms;
        else if (pass <= phase.warmPasses) entries[i].warmMs.push(ms);
        else entries[i].secondUserWarmMs = ms;
      }
    }
    complete = true;
  } finally {
    for (const q of queries) {
      const e = ctx.entry(q.id, label, index, 'coldwarm');
      e.federated = warm.get(q.id)!.stats();
      if (!complete) e.partial = true;
      warm.get(q.id)!.destroy();
    }
  }
};
