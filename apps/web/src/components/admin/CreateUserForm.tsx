import { useState, type FormEvent } from 'react';
import type { Role } from '../../lib/api.js';
import { adminApi, type AdminUser } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';
import { FormFooter } from '../FormFooter.js';

const LABELS = { username: 'User name', password: 'Initial password', role: 'Role' };

export function CreateUserForm({ onCreated, onClose }: { onCreated(u: AdminUser): void; onClose(): void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      onCreated(
        await adminApi.createUser({
          username: String(f.get('username')).trim(),
          password: String(f.get('password')),
          role: String(f.get('role')) as Role,
        }),
      );
    } catch (err) {
      setError(friendlyError(err, LABELS));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="j-card" onSubmit={submit} aria-label="Create a user" autoComplete="off">
      <h2>Create a user</h2>
      <div className="j-form-grid">
        <label>
          {LABELS.username}
          <input
            name="username"
            required
            maxLength={64}
            pattern="[A-Za-z0-9_.@\-]+"
            title="Letters, digits and _ . @ -"
          />
        </label>
        <label>
          {LABELS.password}
          <input
            name="password"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            aria-describedby="initial-password-hint"
          />
          <span id="initial-password-hint" className="j-muted j-small">
            At least 8 characters; tell it to the user yourself.
          </span>
        </label>
        <label>
          {LABELS.role}
          <select name="role" defaultValue="analyst">
            <option value="viewer">viewer</option>
            <option value="analyst">analyst</option>
            <option value="admin">admin</option>
          </select>
        </label>
      </div>
      <FormFooter error={error} busy={busy} submit="Create" busyText="Creating…" onDismiss={onClose} />
    </form>
  );
}
