import { formatElapsed } from './query-protocol.js';
import type { RunSnapshot } from './query-run.js';

/** The toolbar's one-line summary of a run: state, row count, elapsed time. */
export function runStatusText(run: Pick<RunSnapshot, 'status' | 'rowCount' | 'elapsedMs' | 'rows'>): string {
  const rows = `${run.rowCount.toLocaleString('en-US')} ${run.rowCount === 1 ? 'row' : 'rows'}`;
  const t = formatElapsed(run.elapsedMs);
  const kept = run.rowCount > run.rows.length ? ` (first ${run.rows.length.toLocaleString('en-US')} shown)` : '';
  switch (run.status) {
    case 'idle':
      return '';
    case 'running':
      return `Running… ${rows} · ${t}`;
    case 'done':
      return `${rows} · ${t}${kept}`;
    case 'cancelled':
      return `Cancelled after ${rows} · ${t}${kept}`;
    case 'error':
      return `Failed after ${t}`;
  }
}

/** "2 statements to dbA, dbB" — what a finished run touched, for the status line. */
export function sourcesSummary(statements: readonly { source: string }[] | undefined): string {
  if (!statements || statements.length === 0) return '';
  const sources = [...new Set(statements.map((s) => s.source))].sort();
  return `${statements.length} ${statements.length === 1 ? 'statement' : 'statements'} to ${sources.join(', ')}`;
}
