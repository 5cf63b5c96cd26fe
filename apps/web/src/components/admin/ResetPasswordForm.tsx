import { useState, type FormEvent } from 'react';
import { friendlyError } from '../../lib/form-error.js';

/** An admin sets a new password for someone who lost theirs; their sessions end. */
export function ResetPasswordForm({
  username,
  reset,
  onDone,
}: {
  username: string;
  reset(password: string): Promise<unknown>;
  onDone(notice?: string): void;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const password = String(new FormData(e.currentTarget).get('password'));
    setBusy(true);
    setError(undefined);
    try {
      await reset(password);
      onDone(`${username} has a new password and was signed out everywhere.`);
    } catch (err) {
      setError(friendlyError(err, { password: 'New password' }));
      setBusy(false);
    }
  }

  return (
    <form className="j-inline-form" onSubmit={submit} aria-label={`Reset the password of ${username}`}>
      <label>
        New password for {username}
        <input name="password" type="password" required minLength={8} autoComplete="new-password" autoFocus />
      </label>
      <button type="submit" className="j-primary" disabled={busy}>
        Set password
      </button>
      <button type="button" onClick={() => onDone()}>
        Cancel
      </button>
      {error && (
        <span className="j-error j-small" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
