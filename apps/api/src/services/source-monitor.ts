import type { FastifyInstance } from 'fastify';

/**
 * Tests every source once. A source only fails when something uses it, so without this a
 * deleted SQLite file or a stopped server stays "online" until someone presses Test.
 */
export async function checkSources(app: FastifyInstance): Promise<void> {
  for (const { id, name } of await app.db.source.findMany({ select: { id: true, name: true } })) {
    try {
      await app.junction.testSource(id);
    } catch (e) {
      // deleted meanwhile, or the metadata store is busy: the next round tries again
      app.log.debug({ err: e, source: name }, 'source check skipped');
    }
  }
}

/** Runs checkSources every `everyMs` (0 turns it off); rounds never overlap. Returns the stop function. */
export function startSourceMonitor(app: FastifyInstance, everyMs: number): () => void {
  if (!(everyMs > 0)) return () => undefined;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void checkSources(app).finally(() => {
      running = false;
    });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
