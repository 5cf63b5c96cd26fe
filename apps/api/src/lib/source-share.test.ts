import { describe, expect, it } from 'vitest';
import { isJunctionError } from '@junction/connectors';
import { SourceShare } from './source-share.js';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return isJunctionError(e) ? `${e.kind}/${e.code}` : String(e);
  }
  return 'ok';
}

describe('SourceShare', () => {
  it('counts queries, not statements: one query reading a source twice takes one share', async () => {
    const s = new SourceShare('src', 2, 0);
    const q1 = {};
    const a = await s.enter(q1);
    const b = await s.enter(q1);
    const c = await s.enter({});
    expect(s.active).toBe(2);
    expect(await code(s.enter({}))).toBe('resources/source_busy');
    a();
    b();
    b(); // a release runs once
    expect(s.active).toBe(1);
    c();
    expect(s.active).toBe(0);
  });

  it('a query over the share waits briefly for one to come free, then fails with Retry-After', async () => {
    const s = new SourceShare('src', 1, 300);
    const first = await s.enter({});
    const waiting = s.enter({});
    setTimeout(first, 50);
    const second = await waiting;
    expect(s.active).toBe(1);
    const t0 = performance.now();
    const err = await s.enter({}).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
    expect(err).toMatchObject({ code: 'source_busy', details: { source: 'src', limit: 1, retryAfterSeconds: 1 } });
    second();
  });

  it('nobody waits on a degraded source', async () => {
    const s = new SourceShare('src', 1, 10_000);
    const held = await s.enter({});
    const waiting = code(s.enter({}));
    s.health = { status: 'degraded', reason: 'did not answer a cancel', since: new Date() };
    expect(await waiting).toBe('resources/source_busy');
    const err = await s.enter({}).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/is not answering \(did not answer a cancel\)/);
    held();
  });

  it('while others queue for a global slot, a busy source that gives shares back is waited for', async () => {
    const s = new SourceShare('src', 2, 10_000, () => true);
    // shares come free every ~30 ms: the waiters are served in turn, none is refused
    const holds = await Promise.all([s.enter({}), s.enter({})]);
    const waiters = Array.from({ length: 6 }, () => s.enter({}));
    for (const w of waiters) {
      await new Promise((r) => setTimeout(r, 30));
      holds.shift()!();
      holds.push(await w);
    }
    for (const h of holds) h();
    expect(s.active).toBe(0);
  });

  it('while others queue for a global slot, a source that stopped giving shares back is given up on', async () => {
    let pressure = false;
    const s = new SourceShare('src', 1, 10_000, () => pressure);
    // learn that this source usually answers in a few milliseconds
    for (let i = 0; i < 5; i++) (await s.enter({}))();
    const held = await s.enter({}); // ... then it freezes
    const t0 = performance.now();
    const waiting = code(s.enter({}));
    await new Promise((r) => setTimeout(r, 400));
    // stalled, but nobody else needs the slot this waiter holds: it keeps waiting
    expect(s.stalled).toBe(true);
    pressure = true;
    expect(await waiting).toBe('resources/source_busy');
    const ms = performance.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(400);
    expect(ms).toBeLessThan(1000);
    // once stalled and pressed, a newcomer is refused without waiting
    expect(await code(s.enter({}))).toBe('resources/source_busy');
    held();
    expect(s.stalled).toBe(false);
    (await s.enter({}))();
  });

  it('a waiting query that is cancelled leaves the queue with its own error', async () => {
    const s = new SourceShare('src', 1, 10_000);
    const held = await s.enter({});
    const ac = new AbortController();
    const waiting = s.enter({}, ac.signal).catch((e: unknown) => e);
    ac.abort(new Error('stop'));
    expect(((await waiting) as Error).message).toBe('stop');
    held();
    expect(s.active).toBe(0);
    (await s.enter({}))();
  });
});
