import { useState } from 'react';
import type { VirtualSchema } from '../../lib/designer-api.js';

const NEW = '\u0000new';

interface Props {
  schemas: readonly VirtualSchema[];
  onSave(target: { schema: string; create: boolean; name: string }): Promise<string | undefined>;
  onCancel(): void;
}

/** Save as a new view: into an existing virtual schema or a new one. */
export function SaveDialog({ schemas, onSave, onCancel }: Props) {
  const [schema, setSchema] = useState(schemas[0]?.name ?? NEW);
  const [newSchema, setNewSchema] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const creating = schema === NEW;
  const target = creating ? newSchema.trim() : schema;
  return (
    <div className="j-dialog-backdrop">
      <form
        className="j-dialog j-card"
        role="dialog"
        aria-label="Save view"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const err = await onSave({ schema: target, create: creating, name: name.trim() });
          setBusy(false);
          setError(err);
        }}
      >
        <h2>Save as a view</h2>
        <label>
          Virtual schema
          <select value={schema} onChange={(e) => setSchema(e.target.value)} aria-label="Virtual schema">
            {schemas.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name}
              </option>
            ))}
            <option value={NEW}>New schema…</option>
          </select>
        </label>
        {creating && (
          <label>
            New schema name
            <input value={newSchema} onChange={(e) => setNewSchema(e.target.value)} aria-label="New schema name" />
          </label>
        )}
        <label>
          View name
          <input value={name} onChange={(e) => setName(e.target.value)} aria-label="View name" />
        </label>
        <p className="j-muted j-small">Letters, digits and _; not starting with a digit. Queried as schema.view.</p>
        {error && (
          <p className="j-error" role="alert">
            {error}
          </p>
        )}
        <div className="j-row">
          <span className="j-spacer" />
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="j-primary" disabled={busy || target === '' || name.trim() === ''}>
            Save view
          </button>
        </div>
      </form>
    </div>
  );
}
