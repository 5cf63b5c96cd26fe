import { describe, expect, it } from 'vitest';
import { runStatusText, sourcesSummary } from './run-status.js';

const rows = (n: number) => Array.from({ length: n }, () => [] as unknown[]);

describe('runStatusText', () => {
  it('describes each state with count and time', () => {
    expect(runStatusText({ status: 'idle', rowCount: 0, elapsedMs: 0, rows: [] })).toBe('');
    expect(runStatusText({ status: 'running', rowCount: 1234, elapsedMs: 2500, rows: rows(1234) })).toBe(
      'Running… 1,234 rows · 2.50 s',
    );
    expect(runStatusText({ status: 'done', rowCount: 1, elapsedMs: 12, rows: rows(1) })).toBe('1 row · 12 ms');
    expect(runStatusText({ status: 'cancelled', rowCount: 0, elapsedMs: 1500, rows: [] })).toBe(
      'Cancelled after 0 rows · 1.50 s',
    );
    expect(runStatusText({ status: 'error', rowCount: 0, elapsedMs: 80, rows: [] })).toBe('Failed after 80 ms');
  });

  it('says when only the first rows are kept in the page', () => {
    expect(runStatusText({ status: 'done', rowCount: 250_000, elapsedMs: 4000, rows: rows(100_000) })).toBe(
      '250,000 rows · 4.00 s (first 100,000 shown)',
    );
  });
});

describe('sourcesSummary', () => {
  it('names the sources a run touched and counts its statements', () => {
    expect(sourcesSummary([{ source: 'dbB' }, { source: 'dbA' }, { source: 'dbA' }])).toBe('3 statements to dbA, dbB');
    expect(sourcesSummary([{ source: 'dbC' }])).toBe('1 statement to dbC');
    expect(sourcesSummary([])).toBe('');
  });
});
