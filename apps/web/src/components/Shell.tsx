import type { User } from '../lib/api.js';
import { useRoute } from '../lib/route.js';
import { useTheme } from '../lib/theme.js';
import { QueryPage } from './query/QueryPage.js';
import { RoutedPage } from './RoutedPage.js';

export function Shell({ user, onLogout }: { user: User; onLogout(): void }) {
  const route = useRoute();
  const { dark, toggle } = useTheme();
  return (
    <div className="j-shell">
      <header className="j-topbar">
        <span className="j-brand">Junction</span>
        <nav aria-label="Main">
          <a href="#/query" aria-current={route === 'query' ? 'page' : undefined}>
            Query
          </a>
          {user.role !== 'viewer' && (
            <a href="#/designer" aria-current={route === 'designer' ? 'page' : undefined}>
              Designer
            </a>
          )}
          <a href="#/sources" aria-current={route === 'sources' ? 'page' : undefined}>
            Sources
          </a>
          <a href="#/benchmarks" aria-current={route === 'benchmarks' ? 'page' : undefined}>
            Benchmarks
          </a>
          {/* viewers and analysts never see links to pages that would refuse them */}
          {user.role === 'admin' && (
            <a href="#/admin/users" aria-current={route.startsWith('admin/') ? 'page' : undefined}>
              Administration
            </a>
          )}
        </nav>
        <span className="j-spacer" />
        <span className="j-muted" data-testid="current-user">
          {user.username} ({user.role})
        </span>
        <a href="#/settings/password" aria-current={route.startsWith('settings/') ? 'page' : undefined}>
          My account
        </a>
        <button type="button" onClick={toggle} aria-label={dark ? 'Use the light theme' : 'Use the dark theme'} title="Theme">
          {dark ? 'Light' : 'Dark'}
        </button>
        <button type="button" onClick={onLogout}>
          Sign out
        </button>
      </header>
      {/* the workspace stays mounted so the editor text and results survive a visit to Sources */}
      {/* keyed by user: a new sign-in starts from that user's own tabs, never the last user's */}
      <QueryPage key={user.id} hidden={route !== 'query'} user={user} />
      <RoutedPage route={route} user={user} />
    </div>
  );
}
