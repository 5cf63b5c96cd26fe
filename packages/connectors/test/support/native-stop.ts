import { expect, it } from 'vitest';
import type { Connector } from '../../src/contract/connector.js';
import { isJunctionError, type JunctionError } from '../../src/contract/errors.js';
import { eventually } from './sources.js';

/** The JunctionError a promise rejects with (anything else fails the test). */
export async function caught(p: Promise<unknown>): Promise<JunctionError> {
  try {
    await p;
  } catch (e) {
    if (isJunctionError(e)) return e;
    throw e;
  }
  throw new Error('expected a JunctionError');
}

/**
 * How execute() stops, the same on every network engine: an abort or a timeout stops the
 * statement on the server within 2 s (not only the promise), and the one pooled connection
 * comes back usable.
 */
export function stopTests(o: {
  conn: () => Connector;
  /** the source's name, as errors say it */
  source: string;
  /** a statement that sleeps 30 s, as the engine spells it */
  sleep: string;
  /** statements running on the server now whose text is like the pattern */
  running: (like: string) => Promise<number>;
}): void {
  const like = `${o.sleep}%`;
  it('aborting stops the statement on the server: the promise rejects and the sleep ends within 2 s', async () => {
    for (const readOnly of [false, true]) {
      const ac = new AbortController();
      const started = Date.now();
      const p = o.conn().execute(o.sleep, [], { signal: ac.signal, readOnly });
      p.catch(() => undefined);
      await eventually('the sleep runs', async () => (await o.running(like)) === 1);
      const aborted = Math.max(started + 300, Date.now());
      await new Promise((r) => setTimeout(r, aborted - Date.now()));
      ac.abort();
      const err = await caught(p);
      expect(Date.now() - aborted).toBeLessThan(2000);
      expect({ code: err.code, kind: err.kind }).toEqual({ code: 'source_statement_cancelled', kind: 'cancelled' });
      await eventually('the sleep no longer runs', async () => (await o.running(like)) === 0, 2000);
      expect((await o.conn().execute(`SELECT 1`)).rows).toEqual([[1]]);
    }
  });

  it('timeoutMs stops the statement on the server with kind timeout', async () => {
    const started = Date.now();
    const err = await caught(o.conn().execute(o.sleep, [], { timeoutMs: 300, readOnly: true }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect({ code: err.code, kind: err.kind, message: err.message }).toEqual({
      code: 'source_statement_timeout',
      kind: 'timeout',
      message: `The statement on source "${o.source}" timed out after 300 ms. Narrow the query or raise the source's statement timeout.`,
    });
    await eventually('the sleep no longer runs', async () => (await o.running(like)) === 0, 2000);
    expect((await o.conn().execute(`SELECT 2`)).rows).toEqual([[2]]);
  });
}
