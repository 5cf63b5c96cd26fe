import { useState } from 'react';
import type { VirtualSchema } from '../../lib/designer-api.js';

interface Props {
  schema: VirtualSchema;
  /** resolve to an error message, or undefined when done */
  onRename(name: string): Promise<string | undefined>;
  onDelete(): Promise<string | undefined>;
}

/** Rename a virtual schema in place; delete it once it holds no views. */
export function SchemaActions({ schema, onRename, onDelete }: Props) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(schema.name);
  const [error, setError] = useState<string>();
  if (renaming)
    return (
      <form
        className="j-dform"
        onSubmit={async (e) => {
          e.preventDefault();
          const err = await onRename(name.trim());
          setError(err);
          if (!err) setRenaming(false);
        }}
      >
        <div className="j-row">
          <input value={name} onChange={(e) => setName(e.target.value)} aria-label={`New name for ${schema.name}`} />
          <button type="submit" disabled={name.trim() === ''}>
            OK
          </button>
          <button type="button" className="j-link" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </div>
        {error && <p className="j-error j-small">{error}</p>}
      </form>
    );
  return (
    <span className="j-schema-actions">
      <button type="button" className="j-link j-small" onClick={() => setRenaming(true)}>
        rename
      </button>
      {schema.views === 0 && (
        <button
          type="button"
          className="j-link j-small j-danger"
          onClick={async () => setError(await onDelete())}
          aria-label={`Delete ${schema.name}`}
        >
          delete
        </button>
      )}
      {error && <span className="j-error j-small"> {error}</span>}
    </span>
  );
}
