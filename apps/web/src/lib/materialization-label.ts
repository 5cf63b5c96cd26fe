import type { MaterializationStatus } from './cache-api.js';

/** What the catalog says about a materialized view: fresh (and how old), outdated, failed, refreshing. */
export function materializationLabel(m: MaterializationStatus, now = Date.now()): { text: string; title: string } {
  if (m.refreshing) return { text: 'refreshing…', title: 'Its materialization is being refreshed' };
  if (m.status === 'failed')
    return {
      text: 'materialization failed',
      title: `${m.error ?? 'The last refresh failed'}${m.errorCode ? ` (${m.errorCode})` : ''}`,
    };
  if (m.status === 'outdated')
    return {
      text: 'materialized, outdated',
      title: 'The view changed since its last refresh: queries read its definition',
    };
  if (m.status === 'never' || !m.refreshedAt)
    return { text: 'not yet materialized', title: 'Queries read its definition until the first refresh' };
  const age = Math.max(0, Math.round((now - Date.parse(m.refreshedAt)) / 1000));
  const ago = age < 60 ? `${age} s` : age < 3600 ? `${Math.round(age / 60)} min` : `${Math.round(age / 3600)} h`;
  const stale = age > m.maxStalenessSeconds;
  return {
    text: stale ? `materialized ${ago} ago, stale` : `materialized ${ago} ago`,
    title: `${m.rows ?? 0} rows, refreshed ${new Date(m.refreshedAt).toLocaleString()}; read from the copy while under ${m.maxStalenessSeconds} s old`,
  };
}
