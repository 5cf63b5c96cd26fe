/** Sources changed (registered, deleted, re-introspected): catalog views reload. */
const listeners = new Set<() => void>();

export function onCatalogChanged(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function notifyCatalogChanged(): void {
  for (const l of listeners) l();
}
