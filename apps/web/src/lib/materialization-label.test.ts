import { describe, expect, it } from 'vitest';
import type { MaterializationStatus } from './cache-api.js';
import { materializationLabel } from './materialization-label.js';

const base: MaterializationStatus = {
  view: 'sales.cust_nation',
  status: 'ok',
  refreshing: false,
  intervalSeconds: 600,
  maxStalenessSeconds: 900,
  rows: 25,
  bytes: 1000,
  refreshedAt: '2026-11-23T12:00:00.000Z',
  durationMs: 40,
  error: null,
};
const now = Date.parse('2026-11-23T12:05:00.000Z');

describe('materialization label in the catalog', () => {
  it('says how old a fresh copy is, and when it is past its staleness', () => {
    expect(materializationLabel(base, now).text).toBe('materialized 5 min ago');
    expect(materializationLabel({ ...base, maxStalenessSeconds: 60 }, now).text).toBe('materialized 5 min ago, stale');
    expect(materializationLabel(base, Date.parse('2026-11-23T12:00:30.000Z')).text).toBe('materialized 30 s ago');
  });

  it('names a failure with its reason, an outdated copy, one never loaded and a refresh under way', () => {
    expect(materializationLabel({ ...base, status: 'failed', error: 'dbA is down' }, now)).toEqual({
      text: 'materialization failed',
      title: 'dbA is down',
    });
    expect(materializationLabel({ ...base, status: 'outdated' }, now).text).toBe('materialized, outdated');
    expect(materializationLabel({ ...base, status: 'never', refreshedAt: null }, now).text).toBe(
      'not yet materialized',
    );
    expect(materializationLabel({ ...base, refreshing: true }, now).text).toBe('refreshing…');
  });
});
