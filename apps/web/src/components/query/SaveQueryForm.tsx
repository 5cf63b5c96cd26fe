import { useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api-error.js';

/** Saves the editor's text under a name (yours only; share it from the API). */
export function SaveQueryForm({ onSave }: { onSave(name: string): Promise<void> }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    if (name === '') return;
    setBusy(true);
    setError(undefined);
    try {
      await onSave(name);
      form.reset();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="j-save-form" onSubmit={submit} aria-label="Save query">
      <div className="j-row">
        <input name="name" placeholder="Save the editor's query as…" aria-label="Query name" required maxLength={200} />
        <button type="submit" disabled={busy}>
          Save
        </button>
      </div>
      {error && (
        <p className="j-error j-small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
