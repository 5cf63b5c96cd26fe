import { useState, type FormEvent } from 'react';
import type { Role } from '../../lib/api.js';
import { adminApi, type Scope, type Token } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';

// what each role may hand on to a token; the API refuses anything beyond it
const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  admin: ['read', 'run', 'query', 'design', 'admin', 'tokens'],
  analyst: ['read', 'run', 'query', 'design', 'tokens'],
  viewer: ['read', 'run', 'tokens'],
};
const SCOPE_HELP: Record<Scope, string> = {
  read: 'read the catalog',
  run: 'run saved queries and views',
  query: 'run any SQL',
  design: 'create and change views',
  admin: 'everything, including users and sources',
  // the only other way for a token to make tokens; without it a leaked token cannot copy itself
  tokens: 'create and revoke your tokens (no data access)',
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
      const days = Number(f.get('expires') ?? 0);
      const expiresAt = days > 0 ? new Date(Date.now() + days * 86_400_000).toISOString() : undefined;
      const t = await adminApi.createToken({ name: String(f.get('name')).trim(), scopes, ...(expiresAt ? { expiresAt } : {}) });
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
        <label>
          Expires
          <select name="expires" defaultValue="90">
            <option value="7">in 7 days</option>
            <option value="30">in 30 days</option>
            <option value="90">in 90 days</option>
            <option value="365">in a year</option>
            <option value="0">never (until revoked)</option>
          </select>
        </label>
      </div>
      <p className="j-muted j-small">An expired token is refused; revoke one sooner when it is no longer needed.</p>
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
