import type { ReactNode } from 'react';
import type { RunSnapshot } from '../../lib/query-run.js';
import { runStatusText } from '../../lib/run-status.js';

interface Props {
  run: RunSnapshot;
  ready: boolean;
  /** viewers run saved queries only: EXPLAIN is ad hoc SQL */
  canExplain: boolean;
  explaining: boolean;
  /** the Run-on control, when the server has a Trino backend */
  runOn?: ReactNode;
  onRun(): void;
  onExplain(analyze: boolean): void;
  onCancel(): void;
}

const isMac = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform);

export function RunToolbar({ run, ready, canExplain, explaining, runOn, onRun, onExplain, onCancel }: Props) {
  const running = run.status === 'running';
  const busy = !ready || running;
  return (
    <div className="j-toolbar">
      <button
        type="button"
        className="j-primary"
        onClick={onRun}
        disabled={busy}
        title={`Run the selection, or the statement at the cursor (${isMac ? '⌘' : 'Ctrl'}+Enter)`}
      >
        Run
      </button>
      {canExplain && (
        <>
          <button type="button" onClick={() => onExplain(false)} disabled={busy || explaining}>
            Explain
          </button>
          <button type="button" onClick={() => onExplain(true)} disabled={busy || explaining}>
            Explain Analyze
          </button>
        </>
      )}
      {runOn}
      <button type="button" className="j-danger" onClick={onCancel} disabled={!running}>
        Cancel
      </button>
      <span className="j-spacer" />
      <span className="j-run-status" data-testid="run-status" aria-live="polite">
        {runStatusText(run)}
      </span>
    </div>
  );
}
