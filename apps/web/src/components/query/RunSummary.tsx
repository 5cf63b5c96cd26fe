import type { SourceStatement } from '../../lib/query-protocol.js';
import { formatElapsed } from '../../lib/query-protocol.js';
import { sourcesSummary } from '../../lib/run-status.js';

/** The sources a finished run touched and each statement sent to them, exactly as sent. */
export function RunSummary({ statements }: { statements?: readonly SourceStatement[] }) {
  const summary = sourcesSummary(statements);
  if (!statements || summary === '') return null;
  const end = Math.max(1, ...statements.map((s) => s.endMs ?? s.timeMs));
  return (
    <details className="j-run-summary" data-testid="run-sources">
      <summary>{summary}</summary>
      <ol>
        {statements.map((s, i) => (
          <li key={i}>
            <span className="j-badge j-source">{s.source}</span>{' '}
            <span className="j-muted j-small">
              {s.rows.toLocaleString('en-US')} rows · {formatElapsed(s.timeMs)}
              {s.startMs !== undefined && ` · from ${formatElapsed(s.startMs)} to ${formatElapsed(s.endMs ?? s.startMs + s.timeMs)}`}
              {s.stoppedEarly && ' · stopped early'}
            </span>
            {s.startMs !== undefined && (
              <span className="j-tl-track j-tl-inline" aria-hidden>
                <span
                  className={`j-tl-bar${s.stoppedEarly ? ' j-tl-stopped' : ''}`}
                  style={{
                    left: `${(100 * s.startMs) / end}%`,
                    width: `${Math.max(0.5, (100 * ((s.endMs ?? s.startMs + s.timeMs) - s.startMs)) / end)}%`,
                  }}
                />
              </span>
            )}
            <pre className="j-plan-sql">{s.sql}</pre>
          </li>
        ))}
      </ol>
    </details>
  );
}
