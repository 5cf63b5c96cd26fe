import type { User } from '../lib/api.js';

/** An admin page opened by someone else: a clear refusal, not a blank or broken page. */
export function Forbidden({ user }: { user: User }) {
  return (
    <main className="j-page j-message-page" data-testid="forbidden">
      <h1>Admins only</h1>
      <p role="alert">
        This page is for administrators. You are signed in as <strong>{user.username}</strong>, whose role is{' '}
        <strong>{user.role}</strong>. Ask an admin if you need access.
      </p>
      <p>
        <a href="#/query">Back to Query</a>
      </p>
    </main>
  );
}
