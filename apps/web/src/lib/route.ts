import { useSyncExternalStore } from 'react';

export type Route = 'query' | 'sources';

function current(): Route {
  return location.hash === '#/sources' ? 'sources' : 'query';
}

function subscribe(cb: () => void): () => void {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
}

/** Hash routes keep the API's static fallback out of the picture. */
export function useRoute(): Route {
  return useSyncExternalStore(subscribe, current);
}
