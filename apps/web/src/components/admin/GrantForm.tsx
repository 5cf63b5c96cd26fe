import { useState, type FormEvent } from 'react';
import { api, type Role } from '../../lib/api.js';
import { adminApi, type AdminUser, type NewGrant } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { useAsync } from '../../lib/use-async.js';

type Target = 'source' | 'view';

export function GrantForm({ users, onCreated }: { users: readonly AdminUser[]; onCreated(): void }) {
  const sources = useAsync(() => api.sources());
  const [target, setTarget] = useState<Target>('source');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // admins read everything already, so granting to them would only add noise
  const grantees = users.filter((u) => u.role !== 'admin');

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v).trim()]));
    const who: NewGrant = f.grantee.startsWith('role:')
      ? { role: f.grantee.slice(5) as Role }
      : { userId: f.grantee.slice(5) };
    const what: NewGrant =
      target === 'source'
        ? { sourceName: f.sourceName }
        : { viewSchema: f.viewSchema, ...(f.viewName ? { viewName: f.viewName } : {}) };
    setBusy(true);
    setError(undefined);
    try {
      await adminApi.createGrant({ ...who, ...what });
      onCreated();
    } catch (err) {
      setError(friendlyError(err, { viewSchema: 'View schema', viewName: 'View name', sourceName: 'Source' }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="j-card" onSubmit={submit} aria-label="Add a grant">
      <h2>Add a grant</h2>
      <div className="j-form-grid">
        <label>
          Who
          <select name="grantee" defaultValue="role:analyst">
            <option value="role:analyst">every analyst</option>
            <option value="role:viewer">every viewer</option>
            {grantees.map((u) => (
              <option key={u.id} value={`user:${u.id}`}>
                user {u.username} ({u.role})
              </option>
            ))}
          </select>
        </label>
        <label>
          May read
          <select value={target} onChange={(e) => setTarget(e.target.value as Target)}>
            <option value="source">a source</option>
            <option value="view">views</option>
          </select>
        </label>
        {target === 'source' ? (
          <label>
            Source
            <select name="sourceName" required>
              <option value="*">all sources</option>
              {(sources.data ?? []).map((s) => (
                <option key={s.id} value={s.name}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <>
            <label>
              View schema
              <input name="viewSchema" required pattern="[A-Za-z_][A-Za-z0-9_]*" />
            </label>
            <label>
              View name
              <input name="viewName" pattern="[A-Za-z_][A-Za-z0-9_]*" placeholder="empty: every view in the schema" />
            </label>
          </>
        )}
      </div>
      {error && (
        <p className="j-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="j-primary" disabled={busy}>
        {busy ? 'Granting…' : 'Grant read access'}
      </button>
    </form>
  );
}
