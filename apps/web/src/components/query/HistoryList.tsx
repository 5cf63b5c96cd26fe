import type { HistoryEntry } from '../../lib/api.js';
import { formatElapsed, formatRowCount } from '../../lib/query-protocol.js';

export function HistoryList({
  items,
  error,
  onLoad,
}: {
  items: readonly HistoryEntry[];
  error?: string;
  onLoad(entry: HistoryEntry): void;
}) {
  if (error) return <p className="j-error">{error}</p>;
  if (items.length === 0) return <p className="j-muted">No queries run yet.</p>;
  return (
    <ul className="j-list" aria-label="Query history">
      {items.map((h) => (
        <li key={h.id}>
          <button type="button" className="j-link j-mono" onClick={() => onLoad(h)} title={h.sql}>
            {h.sql.length > 90 ? `${h.sql.slice(0, 90)}…` : h.sql}
          </button>
          <div className="j-muted j-small">
            <span className={`j-status-${h.status}`}>{h.status}</span>
            {h.rows != null && ` · ${formatRowCount(h.rows)}`}
            {h.elapsedMs != null && ` · ${formatElapsed(h.elapsedMs)}`}
            {h.params && h.params.length > 0 && ` · ${h.params.length} ${h.params.length === 1 ? 'parameter' : 'parameters'}`}
            {` · ${new Date(h.createdAt).toLocaleTimeString()}`}
          </div>
        </li>
      ))}
    </ul>
  );
}
