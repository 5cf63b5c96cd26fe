import { lazy, Suspense } from 'react';
import type { User } from '../../lib/api.js';

// React Flow and the designer load only when the page is opened
const DesignerPage = lazy(() => import('./DesignerPage.js').then((m) => ({ default: m.DesignerPage })));

/** Designing views takes the design permission, which viewers do not have. */
export function DesignerRoute({ user }: { user: User }) {
  if (user.role === 'viewer')
    return (
      <main className="j-page j-message-page" data-testid="forbidden">
        <h1>Analysts and admins only</h1>
        <p role="alert">
          Designing views takes the analyst or admin role. You are signed in as <strong>{user.username}</strong>, whose
          role is <strong>{user.role}</strong>: you can run the views you are granted from the Query page.
        </p>
        <p>
          <a href="#/query">Back to Query</a>
        </p>
      </main>
    );
  return (
    <Suspense fallback={<p className="j-muted j-pad">Loading the designer…</p>}>
      <DesignerPage userId={user.id} />
    </Suspense>
  );
}
