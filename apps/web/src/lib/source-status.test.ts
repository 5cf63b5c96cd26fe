import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pollWhileVisible, STATUS_POLL_MS, statusBadge, statusByName } from './source-status.js';

class FakeDoc extends EventTarget {
  visibilityState: DocumentVisibilityState = 'visible';
}

describe('pollWhileVisible', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reads often enough that a source gone offline shows within 5 s', () => {
    const poll = vi.fn();
    const doc = new FakeDoc();
    const stop = pollWhileVisible(poll, undefined, doc, new EventTarget());
    // with the server's checks every 3 s, reading every 2 s shows a change within 5 s
    expect(STATUS_POLL_MS).toBeLessThanOrEqual(2000);
    vi.advanceTimersByTime(5000);
    expect(poll.mock.calls.length).toBeGreaterThanOrEqual(1);
    stop();
  });

  it('asks nothing while hidden, and at once when the page shows or gets focus again', () => {
    const poll = vi.fn();
    const doc = new FakeDoc();
    const win = new EventTarget();
    const stop = pollWhileVisible(poll, 1000, doc, win);
    doc.visibilityState = 'hidden';
    vi.advanceTimersByTime(10_000);
    expect(poll).not.toHaveBeenCalled();
    doc.visibilityState = 'visible';
    doc.dispatchEvent(new Event('visibilitychange'));
    expect(poll).toHaveBeenCalledTimes(1);
    win.dispatchEvent(new Event('focus'));
    expect(poll).toHaveBeenCalledTimes(2);
    stop();
    vi.advanceTimersByTime(10_000);
    win.dispatchEvent(new Event('focus'));
    expect(poll).toHaveBeenCalledTimes(2);
  });
});

describe('status badges', () => {
  it('marks what is not online, by source name', () => {
    const m = statusByName([
      { name: 'dbA', status: 'online' },
      { name: 'dbB', status: 'offline' },
    ]);
    expect(statusBadge(m.get('dbA'))).toBeUndefined();
    expect(statusBadge(m.get('dbB'))).toBe('offline');
    expect(statusBadge(m.get('virtual_schema'))).toBeUndefined();
  });
});
