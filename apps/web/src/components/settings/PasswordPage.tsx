import { useState, type FormEvent } from 'react';
import type { User } from '../../lib/api.js';
import { adminApi } from '../../lib/admin-api.js';
import { friendlyError } from '../../lib/form-error.js';

const LABELS = { currentPassword: 'Current password', newPassword: 'New password' };

export function PasswordPage({ user }: { user: User }) {
  const [error, setError] = useState<string>();
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const next = String(f.get('newPassword'));
    setDone(false);
    if (next !== String(f.get('confirm'))) {
      setError('The two new passwords differ.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await adminApi.changePassword(String(f.get('currentPassword')), next);
      form.reset();
      setDone(true);
    } catch (err) {
      setError(friendlyError(err, LABELS));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h1>Change my password</h1>
      <form className="j-card j-narrow" onSubmit={submit} aria-label="Change my password">
        {/* lets password managers file the new password under the right account */}
        <input type="hidden" name="username" autoComplete="username" value={user.username} />
        <p className="j-muted j-small">
          Signed in as <strong>{user.username}</strong>.{' '}
          {/* the first admin's password is generated at first start and printed once in the server log */}
          {user.role === 'admin' && 'If the server generated your first password, replace it here. '}
          Your other sessions end; this one stays.
        </p>
        <label>
          {LABELS.currentPassword}
          <input name="currentPassword" type="password" required autoComplete="current-password" />
        </label>
        <label>
          {LABELS.newPassword}
          <input
            name="newPassword"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            aria-describedby="new-password-hint"
          />
        </label>
        <span id="new-password-hint" className="j-muted j-small j-hint">
          At least 8 characters.
        </span>
        <label>
          Repeat the new password
          <input name="confirm" type="password" required minLength={8} autoComplete="new-password" />
        </label>
        {error && (
          <p className="j-error" role="alert">
            {error}
          </p>
        )}
        {done && (
          <p className="j-ok" role="status">
            Your password was changed.
          </p>
        )}
        <div>
          <button type="submit" className="j-primary" disabled={busy}>
            {busy ? 'Changing…' : 'Change password'}
          </button>
        </div>
      </form>
    </>
  );
}
