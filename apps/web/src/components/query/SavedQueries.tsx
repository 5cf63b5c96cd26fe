import type { SavedQuery } from '../../lib/api.js';

export function SavedQueries({ items, error, onLoad }: { items: readonly SavedQuery[]; error?: string; onLoad(q: SavedQuery): void }) {
  if (error) return <p className="error">{error}</p>;
  if (items.length === 0) return <p className="muted">No saved queries.</p>;
  return (
    <ul className="list" aria-label="Saved queries">
      {items.map((q) => (
        <li key={q.id}>
          <button type="button" className="link" onClick={() => onLoad(q)} title={q.sql}>
            {q.name}
          </button>
          {q.description && <div className="muted small">{q.description}</div>}
        </li>
      ))}
    </ul>
  );
}
