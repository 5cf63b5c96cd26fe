import { useEffect, useState, useSyncExternalStore } from 'react';
import { QueryRun } from '../../lib/query-run.js';
import { ErrorBox } from '../query/ErrorBox.js';
import { ResultsGrid } from '../query/ResultsGrid.js';

const DELAY_MS = 500;

/** The first rows of the view, streamed, re-run shortly after each change of its SQL. */
export function PreviewPanel({ sql }: { sql: string }) {
  const [run] = useState(() => new QueryRun());
  const snap = useSyncExternalStore(run.subscribe, run.getSnapshot);
  useEffect(() => () => run.dispose(), [run]);
  useEffect(() => {
    if (sql.trim() === '') return;
    const t = setTimeout(() => void run.start(sql), DELAY_MS);
    return () => clearTimeout(t);
  }, [run, sql]);
  if (sql.trim() === '') return <p className="j-muted j-pad">Drag a table onto the canvas to see its rows here.</p>;
  return (
    <div className="j-dpreview" data-testid="designer-preview">
      <div className="j-toolbar j-small">
        <span className="j-run-status" data-testid="preview-status">
          {snap.status === 'running' && `Running… ${snap.rowCount} rows`}
          {snap.status === 'done' && `${snap.rowCount} rows in ${Math.round(snap.elapsedMs)} ms`}
          {snap.status === 'error' && 'Failed'}
          {snap.status === 'cancelled' && 'Cancelled'}
        </span>
        <span className="j-spacer" />
        <button type="button" onClick={() => void run.start(sql)}>
          Run again
        </button>
      </div>
      {snap.error && <ErrorBox error={snap.error} />}
      {snap.columns.length > 0 && (
        <ResultsGrid
          columns={snap.columns}
          rows={snap.rows}
          rowCount={snap.rowCount}
          finished={snap.status === 'done'}
        />
      )}
    </div>
  );
}
