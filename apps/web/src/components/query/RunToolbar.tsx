import type { RunSnapshot } from '../../lib/query-run.js';
import { runStatusText } from '../../lib/run-status.js';
import { formatParams } from '../../lib/plan.js';

interface Props {
  run: RunSnapshot;
  ready: boolean;
  params?: readonly unknown[];
  onClearParams(): void;
  explaining: boolean;
  onRun(): void;
  onExplain(analyze: boolean): void;
  onCancel(): void;
}

const isMac = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform);

export function RunToolbar({ run, ready, params, explaining, onRun, onExplain, onCancel, onClearParams }: Props) {
  const running = run.status === 'running';
  const busy = !ready || running;
  return (
    <div className="j-toolbar">
      <button
        type="button"
        className="j-primary"
        onClick={onRun}
        disabled={busy}
        title={`Run (${isMac ? '⌘' : 'Ctrl'}+Enter)`}
      >
        Run
      </button>
      <button type="button" onClick={() => onExplain(false)} disabled={busy || explaining}>
        Explain
      </button>
      <button type="button" onClick={() => onExplain(true)} disabled={busy || explaining}>
        Explain Analyze
      </button>
      <button type="button" className="j-danger" onClick={onCancel} disabled={!running}>
        Cancel
      </button>
      {params && (
        <span className="j-params" data-testid="params">
          params: {formatParams(params)}{' '}
          <button type="button" className="j-link" onClick={onClearParams} aria-label="Clear parameters">
            ×
          </button>
        </span>
      )}
      <span className="j-spacer" />
      <span className="j-run-status" data-testid="run-status" aria-live="polite">
        {runStatusText(run)}
      </span>
    </div>
  );
}
