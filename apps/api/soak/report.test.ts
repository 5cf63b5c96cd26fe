import { describe, expect, it } from 'vitest';
import { markdown, percentile, verdict, windows, type Op, type Sample } from './report.js';

const op = (at: number, extra: Partial<Op> = {}): Op => ({
  kind: 'q',
  at,
  ms: 10,
  status: 200,
  faulted: false,
  ...extra,
});
const sample = (at: number, rssMB: number, handles = 20): Sample => ({
  at,
  rssBytes: rssMB * 2 ** 20,
  heapUsedBytes: 50 * 2 ** 20,
  externalBytes: 8 * 2 ** 20,
  handles,
  sockets: 10,
  fds: 30,
  loopP99Ms: 5,
  loopMaxMs: 9,
});

describe('soak windows', () => {
  it('counts each window by itself, keeps injected faults apart and takes the state a window ended in', () => {
    const ops = [
      op(0, { ms: 5 }),
      op(500, { ms: 15 }),
      op(999, { status: 502, code: 'source_unavailable', faulted: true }),
      op(1000, { ms: 30 }),
      op(1500, { status: 500, code: 'internal' }),
    ];
    const ws = windows(ops, [sample(400, 100), sample(900, 110), sample(1900, 120)], 0, 1000, 2000);
    expect(ws.map((w) => [w.ops, w.perSecond, w.p50Ms, w.p99Ms, w.faultErrors, w.errors, w.rssMB])).toEqual([
      [3, 3, 5, 15, 1, {}, 110],
      [2, 2, 30, 30, 0, { '500:internal': 1 }, 120],
    ]);
  });

  it('leaves out a tail shorter than half a window, and rounds a longer one up', () => {
    const ops = [op(0), op(1100), op(2200)];
    expect(windows(ops, [], 0, 1000, 2300).map((w) => [w.toS * 1000, w.ops])).toEqual([
      [1000, 1],
      [2000, 1],
    ]);
    expect(windows(ops, [], 0, 1000, 2600).map((w) => w.ops)).toEqual([1, 1, 1]);
  });

  it('percentile: nearest rank', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99)).toBe(10);
    expect(percentile([], 99)).toBe(0);
  });
});

describe('soak verdict', () => {
  const flat = windows(
    [op(0), op(1000), op(2000)],
    [sample(900, 100), sample(1900, 100), sample(2900, 109)],
    0,
    1000,
    3000,
  );

  it('passes flat memory, no 5xx and recovered faults', () => {
    const fault = { name: 'blackhole', startedAt: 0, clearedAt: 10, saw: { '504:source_timeout': 3 }, recoveryMs: 900 };
    expect(verdict(flat, [fault], 30_000)).toEqual({ ok: true, findings: [] });
  });

  it('fails growing RSS or handles, a 5xx or a dropped connection outside the faults, and a slow or missing recovery', () => {
    const grown = windows(
      [
        op(0),
        op(1000, { status: 503, code: 'metadata_unavailable' }),
        op(2000, { status: 0, code: 'ECONNRESET' }),
        op(2100, { status: 429, code: 'too_many_queries' }),
      ],
      [sample(900, 100), sample(1900, 100, 20), sample(2900, 111, 40)],
      0,
      1000,
      3000,
    );
    const v = verdict(
      grown,
      [
        { name: 'reset', startedAt: 0, clearedAt: 1, saw: {}, recoveryMs: null },
        { name: 'latency', startedAt: 0, clearedAt: 1, saw: {}, recoveryMs: 45_000 },
      ],
      30_000,
    );
    expect(v.ok).toBe(false);
    expect(v.findings).toEqual([
      'RSS MB grew from 100 (window 2) to 111 (window 3)',
      'handles grew from 20 (window 2) to 40 (window 3)',
      'window 2: 1 × 503:metadata_unavailable outside the injected faults',
      'window 3: 1 × 0:ECONNRESET outside the injected faults',
      'fault reset: the source never answered again',
      'fault latency: recovered only after 45000 ms (limit 30000 ms)',
    ]);
    // a looser RSS tolerance for a short run still checks the rest
    expect(verdict(grown, [], 30_000, 0.25).findings[0]).toBe('handles grew from 20 (window 2) to 40 (window 3)');
  });

  it('will not judge memory on fewer than three windows', () => {
    expect(verdict(flat.slice(0, 2), [], 1).findings).toEqual([
      'only 2 window(s): too short to compare memory and handles over time',
    ]);
  });

  it('prints one row per window and per fault', () => {
    const text = markdown(flat, [
      { name: 'blackhole', startedAt: 61_000, clearedAt: 91_000, saw: { '504:source_timeout': 2 }, recoveryMs: 800 },
    ]);
    expect(text).toContain('| 1 | 0–1 | 1 | 1 | 10 | 10 | 0 | 0 | 100 | 50 | 8 | 20 | 10 | 30 | 5/9 |');
    expect(text).toContain('| blackhole | 61 | 30 | 504:source_timeout×2 | 800 |');
  });
});
