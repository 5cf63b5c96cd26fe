import type { SavedQuery } from '../../lib/api.js';

export function SavedQueries({
  items,
  error,
  onLoad,
}: {
  items: readonly SavedQuery[];
  error?: string;
  onLoad(q: SavedQuery): void;
}) {
  if (error) return <p className="j-error">{error}</p>;
  if (items.length === 0) return <p className="j-muted">No saved queries.</p>;
  return (
    <ul className="j-list" aria-label="Saved queries">
      {items.map((q) => (
        <li key={q.id}>
          <button type="button" className="j-link" onClick={() => onLoad(q)} title={q.sql}>
            {q.name}
          </button>
          {q.description && <div className="j-muted j-small">{q.description}</div>}
        </li>
      ))}
    </ul>
  );
}
