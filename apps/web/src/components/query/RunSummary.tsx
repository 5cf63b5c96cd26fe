import type { SourceStatement } from '../../lib/query-protocol.js';
import { formatElapsed } from '../../lib/query-protocol.js';
import { sourcesSummary } from '../../lib/run-status.js';

/** The sources a finished run touched and each statement sent to them, exactly as sent. */
export function RunSummary({ statements }: { statements?: readonly SourceStatement[] }) {
  const summary = sourcesSummary(statements);
  if (!statements || summary === '') return null;
  return (
    <details className="j-run-summary" data-testid="run-sources">
      <summary>{summary}</summary>
      <ol>
        {statements.map((s, i) => (
          <li key={i}>
            <span className="j-badge j-source">{s.source}</span>{' '}
            <span className="j-muted j-small">
              {s.rows.toLocaleString('en-US')} rows · {formatElapsed(s.timeMs)}
            </span>
            <pre className="j-plan-sql">{s.sql}</pre>
          </li>
        ))}
      </ol>
    </details>
  );
}
