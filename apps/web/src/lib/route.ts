import { useSyncExternalStore } from 'react';

/** Pages reachable by URL; anything else is 'not-found', never a silent fallback to Query. */
export const ROUTES = [
  'query',
  'sources',
  'benchmarks',
  'designer',
  'admin/users',
  'admin/grants',
  'admin/tokens',
  'admin/audit',
  'admin/cache',
  'admin/limits',
  'settings/tokens',
  'settings/password',
] as const;
export type Route = (typeof ROUTES)[number] | 'not-found';

export function parseRoute(pathname: string, hash: string): Route {
  // the API serves the app shell for any path, so /foo must not look like the start page
  if (pathname !== '/' && pathname !== '/index.html') return 'not-found';
  const p = hash.replace(/^#\/?/, '').replace(/\/+$/, '');
  if (p === '') return 'query';
  // the lab has sub-routes of its own (#/benchmarks/run/<id>)
  if (p.startsWith('benchmarks/')) return 'benchmarks';
  // the designer opens a saved view as #/designer/<schema>/<view>
  if (p.startsWith('designer/')) return 'designer';
  return (ROUTES as readonly string[]).includes(p) ? (p as Route) : 'not-found';
}

function current(): Route {
  return parseRoute(location.pathname, location.hash);
}

/** The hash itself, for pages with their own sub-routes (#/benchmarks/run/<id>). */
export function useHash(): string {
  return useSyncExternalStore(subscribe, () => location.hash);
}

function subscribe(cb: () => void): () => void {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
}

/** Hash routes keep the API's static fallback out of the picture. */
export function useRoute(): Route {
  return useSyncExternalStore(subscribe, current);
}
