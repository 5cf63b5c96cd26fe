import type { Route } from '../lib/route.js';

export interface SectionLink {
  readonly route: Route;
  readonly label: string;
}

export const ADMIN_LINKS: readonly SectionLink[] = [
  { route: 'admin/users', label: 'Users' },
  { route: 'admin/grants', label: 'Grants' },
  { route: 'admin/tokens', label: 'API tokens' },
  { route: 'admin/audit', label: 'Audit log' },
  { route: 'admin/cache', label: 'Cache' },
  { route: 'admin/limits', label: 'Limits' },
];
export const ACCOUNT_LINKS: readonly SectionLink[] = [
  { route: 'settings/tokens', label: 'API tokens' },
  { route: 'settings/password', label: 'Password' },
];

/** The pages of one section, so each is one click from its siblings. */
export function SectionNav({
  label,
  links,
  current,
}: {
  label: string;
  links: readonly SectionLink[];
  current: Route;
}) {
  return (
    <nav className="j-section-nav" aria-label={label}>
      {links.map((l) => (
        <a key={l.route} href={`#/${l.route}`} aria-current={l.route === current ? 'page' : undefined}>
          {l.label}
        </a>
      ))}
    </nav>
  );
}
