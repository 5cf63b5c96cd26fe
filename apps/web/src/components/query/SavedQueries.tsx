import { useState, type FormEvent } from 'react';
import type { SavedQuery } from '../../lib/api.js';
import { friendlyError } from '../../lib/form-error.js';

interface Props {
  items: readonly SavedQuery[];
  error?: string;
  /** who may change an item: its owner, or an admin */
  canChange(q: SavedQuery): boolean;
  onLoad(q: SavedQuery): void;
  onRename(q: SavedQuery, name: string): Promise<void>;
  /** saves the current editor tab's SQL and parameters over this query */
  onOverwrite(q: SavedQuery): Promise<void>;
  onDelete(q: SavedQuery): Promise<void>;
}

export function SavedQueries({ items, error, canChange, onLoad, onRename, onOverwrite, onDelete }: Props) {
  if (error) return <p className="j-error">{error}</p>;
  if (items.length === 0) return <p className="j-muted">No saved queries.</p>;
  return (
    <ul className="j-list" aria-label="Saved queries">
      {items.map((q) => (
        <SavedItem
          key={q.id}
          q={q}
          editable={canChange(q)}
          onLoad={onLoad}
          onRename={onRename}
          onOverwrite={onOverwrite}
          onDelete={onDelete}
        />
      ))}
    </ul>
  );
}

function SavedItem({
  q,
  editable,
  onLoad,
  onRename,
  onOverwrite,
  onDelete,
}: Omit<Props, 'items' | 'error' | 'canChange'> & { q: SavedQuery; editable: boolean }) {
  const [renaming, setRenaming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function act(f: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await f();
      setRenaming(false);
    } catch (e) {
      setError(friendlyError(e));
    } finally {
      setBusy(false);
    }
  }

  const rename = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('name') ?? '').trim();
    if (name !== '' && name !== q.name) void act(() => onRename(q, name));
    else setRenaming(false);
  };

  return (
    <li data-testid={`saved-${q.name}`}>
      {renaming ? (
        <form className="j-row" onSubmit={rename} aria-label={`Rename ${q.name}`}>
          <input name="name" defaultValue={q.name} aria-label="New name" required maxLength={200} autoFocus />
          <button type="submit" disabled={busy}>
            Rename
          </button>
          <button type="button" className="j-link" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" className="j-link j-saved-name" onClick={() => onLoad(q)} title={q.sql}>
          {q.name}
        </button>
      )}
      {q.description && <div className="j-muted j-small">{q.description}</div>}
      {editable && !renaming && (
        <div className="j-saved-actions j-small">
          <button type="button" className="j-link" disabled={busy} onClick={() => setRenaming(true)} aria-label={`Rename ${q.name}`}>
            Rename
          </button>
          <button
            type="button"
            className="j-link"
            disabled={busy}
            aria-label={`Overwrite ${q.name} with the editor's query`}
            onClick={() => {
              if (confirm(`Replace the SQL of "${q.name}" with the editor's query?`)) void act(() => onOverwrite(q));
            }}
          >
            Overwrite
          </button>
          <button
            type="button"
            className="j-link j-danger-link"
            disabled={busy}
            aria-label={`Delete ${q.name}`}
            onClick={() => {
              if (confirm(`Delete the saved query "${q.name}"?`)) void act(() => onDelete(q));
            }}
          >
            Delete
          </button>
        </div>
      )}
      {error && (
        <p className="j-error j-small" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}
