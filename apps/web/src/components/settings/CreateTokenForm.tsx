import { useState, type FormEvent } from 'react';
import type { Role } from '../../lib/api.js';
import { adminApi, type Scope, type Token } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';

// what each role may hand on to a token; the API refuses anything beyond it
const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  admin: ['read', 'run', 'query', 'design', 'admin'],
  analyst: ['read', 'run', 'query', 'design'],
  viewer: ['read', 'run'],
};
const SCOPE_HELP: Record<Scope, string> = {
  read: 'read the catalog',
  run: 'run saved queries and views',
  query: 'run any SQL',
  design: 'create and change views',
  admin: 'everything, including users and sources',
};

export function CreateTokenForm({ role, onCreated }: { role: Role; onCreated(t: Token & { token: string }): void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const scopes = f.getAll('scope').map(String) as Scope[];
    if (scopes.length === 0) {
      setError('Pick at least one scope.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const t = await adminApi.createToken({ name: String(f.get('name')).trim(), scopes });
      form.reset();
      onCreated(t);
    } catch (err) {
      setError(friendlyError(err, { name: 'Name', scopes: 'Scopes' }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="j-card" onSubmit={submit} aria-label="Create a token">
      <h2>Create a token</h2>
      <div className="j-form-grid">
        <label>
          Name
          <input name="name" required maxLength={100} placeholder="e.g. nightly-report" />
        </label>
        <fieldset className="j-scopes">
          <legend>Scopes</legend>
          {ROLE_SCOPES[role].map((s) => (
            <label key={s} className="j-check">
              <input type="checkbox" name="scope" value={s} defaultChecked={s === 'read'} />
              <span>
                <strong>{s}</strong> <span className="j-muted j-small">{SCOPE_HELP[s]}</span>
              </span>
            </label>
          ))}
        </fieldset>
      </div>
      <p className="j-muted j-small">Tokens do not expire; revoke one when it is no longer needed.</p>
      {error && (
        <p className="j-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="j-primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create token'}
      </button>
    </form>
  );
}
