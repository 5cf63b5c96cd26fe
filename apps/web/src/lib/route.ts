import { useSyncExternalStore } from 'react';

export type Route = 'query' | 'sources' | 'benchmarks';

function current(): Route {
  if (location.hash.startsWith('#/benchmarks')) return 'benchmarks';
  return location.hash === '#/sources' ? 'sources' : 'query';
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
