import { useState, type FormEvent } from 'react';
import { api, type User } from '../lib/api.js';
import { ApiError } from '../lib/api-error.js';

/** `notice`: why the studio is back at sign-in (a session that expired while in use). */
export function Login({ onLogin, notice }: { onLogin(u: User): void; notice?: string }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      onLogin(await api.login(String(form.get('username')), String(form.get('password'))));
    } catch (err) {
      setError(
        // a locked account says so and when it unlocks: "wrong password" would have its owner keep trying
        err instanceof ApiError && err.kind === 'auth' && err.code !== 'account_locked'
          ? 'Wrong username or password.'
          : err instanceof Error
            ? err.message
            : String(err),
      );
      setBusy(false);
    }
  }

  return (
    <main className="j-login">
      <form className="j-card j-login-card" onSubmit={submit} aria-label="Sign in">
        <h1>Junction</h1>
        <p className="j-muted">Query every source through one SQL interface.</p>
        {notice && (
          <p className="j-notice" role="status" data-testid="login-notice">
            {notice}
          </p>
        )}
        <label>
          Username
          <input name="username" autoComplete="username" defaultValue="admin" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required autoFocus />
        </label>
        {error && (
          <p className="j-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="j-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
