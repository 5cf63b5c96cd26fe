import type { FastifyInstance } from 'fastify';

/**
 * How often every source is tested when JUNCTION_SOURCE_CHECK_MS does not say: a source that
 * goes away shows as offline within about this long (the studio re-reads statuses as often).
 * Each check is one connect, so a handful of sources costs a few connections a second at most.
 */
export const SOURCE_CHECK_MS = 3000;

/** The check interval from JUNCTION_SOURCE_CHECK_MS: 0 turns the checks off, garbage keeps the default. */
export function sourceCheckMs(setting: string | undefined): number {
  if (setting === undefined || setting.trim() === '') return SOURCE_CHECK_MS;
  const n = Number(setting);
  return Number.isFinite(n) && n >= 0 ? n : SOURCE_CHECK_MS;
}

async function checkOne(app: FastifyInstance, id: string, name: string): Promise<void> {
  try {
    await app.junction.testSource(id);
  } catch (e) {
    // deleted meanwhile, or the metadata store is busy: the next round tries again
    app.log.debug({ err: e, source: name }, 'source check skipped');
  }
}

/**
 * Tests every source once, all at the same time. A source only fails when something uses it,
 * so without this a deleted SQLite file or a stopped server stays "online" until someone
 * presses Test. `busy` holds sources whose previous check is still out: a server that swallows
 * packets keeps its check waiting for the connect timeout, and must not hold up the others.
 */
export async function checkSources(app: FastifyInstance, busy = new Set<string>()): Promise<void> {
  const rows = await app.db.source.findMany({ select: { id: true, name: true } });
  await Promise.all(
    rows
      .filter((r) => !busy.has(r.id))
      .map(async ({ id, name }) => {
        busy.add(id);
        try {
          await checkOne(app, id, name);
        } finally {
          busy.delete(id);
        }
      }),
  );
}

/**
 * Runs checkSources every `everyMs` (0 turns it off). A source is never checked twice at once,
 * but a slow one does not hold up the next round for the rest. Returns the stop function.
 */
export function startSourceMonitor(app: FastifyInstance, everyMs = SOURCE_CHECK_MS): () => void {
  if (!(everyMs > 0)) return () => undefined;
  const busy = new Set<string>();
  const timer = setInterval(() => {
    void checkSources(app, busy).catch((e: unknown) => app.log.debug({ err: e }, 'source checks skipped'));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
