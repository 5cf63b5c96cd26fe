import type { User } from '../lib/api.js';
import type { Route } from '../lib/route.js';
import { AllTokensPage } from './admin/AllTokensPage.js';
import { AuditPage } from './admin/AuditPage.js';
import { CachePage } from './admin/CachePage.js';
import { BenchmarksPage } from './bench/BenchmarksPage.js';
import { DesignerRoute } from './designer/DesignerRoute.js';
import { GrantsPage } from './admin/GrantsPage.js';
import { LimitsPage } from './admin/LimitsPage.js';
import { UsersPage } from './admin/UsersPage.js';
import { Forbidden } from './Forbidden.js';
import { NotFound } from './NotFound.js';
import { ACCOUNT_LINKS, ADMIN_LINKS, SectionNav } from './SectionNav.js';
import { PasswordPage } from './settings/PasswordPage.js';
import { TokensPage } from './settings/TokensPage.js';
import { SourcesPage } from './sources/SourcesPage.js';

/** Every page but Query, which the shell keeps mounted so the editor survives navigation. */
export function RoutedPage({ route, user }: { route: Route; user: User }) {
  switch (route) {
    case 'query':
      return null;
    case 'sources':
      return <SourcesPage user={user} />;
    case 'benchmarks':
      return <BenchmarksPage user={user} />;
    case 'designer':
      return <DesignerRoute user={user} />;
    case 'admin/users':
    case 'admin/grants':
    case 'admin/tokens':
    case 'admin/audit':
    case 'admin/cache':
    case 'admin/limits':
      if (user.role !== 'admin') return <Forbidden user={user} />;
      return (
        <main className="j-page">
          <SectionNav label="Administration" links={ADMIN_LINKS} current={route} />
          {route === 'admin/users' && <UsersPage me={user} />}
          {route === 'admin/grants' && <GrantsPage />}
          {route === 'admin/tokens' && <AllTokensPage />}
          {route === 'admin/audit' && <AuditPage />}
          {route === 'admin/cache' && <CachePage />}
          {route === 'admin/limits' && <LimitsPage />}
        </main>
      );
    case 'settings/tokens':
    case 'settings/password':
      return (
        <main className="j-page">
          <SectionNav label="My account" links={ACCOUNT_LINKS} current={route} />
          {route === 'settings/tokens' && <TokensPage user={user} />}
          {route === 'settings/password' && <PasswordPage user={user} />}
        </main>
      );
    default:
      return <NotFound />;
  }
}
