import { useEffect, useState } from 'react';
import { api, type Source } from './api.js';

/**
 * How often pages showing source statuses read them again. The server tests every source every
 * 3 s (source-monitor.ts), so a source gone away shows within about 5 s; reading the list is
 * one small request.
 */
export const STATUS_POLL_MS = 2000;

interface Visibility {
  readonly visibilityState: DocumentVisibilityState;
  addEventListener(type: 'visibilitychange', l: () => void): void;
  removeEventListener(type: 'visibilitychange', l: () => void): void;
}
interface Focus {
  addEventListener(type: 'focus', l: () => void): void;
  removeEventListener(type: 'focus', l: () => void): void;
}

/**
 * Calls `poll` every `everyMs` while the page is visible, and at once when it comes back (a tab
 * brought forward, the window focused), so what was missed shows without waiting. A hidden tab
 * asks nothing. Returns the stop function.
 */
export function pollWhileVisible(
  poll: () => void,
  everyMs = STATUS_POLL_MS,
  doc: Visibility = document,
  win: Focus = window,
): () => void {
  const tick = () => {
    if (doc.visibilityState === 'visible') poll();
  };
  const timer = setInterval(tick, everyMs);
  doc.addEventListener('visibilitychange', tick);
  win.addEventListener('focus', tick);
  return () => {
    clearInterval(timer);
    doc.removeEventListener('visibilitychange', tick);
    win.removeEventListener('focus', tick);
  };
}

/** Source name → status, for the sources a status is known of. */
export function statusByName(sources: readonly Pick<Source, 'name' | 'status'>[]): ReadonlyMap<string, string> {
  return new Map(sources.map((s) => [s.name, s.status]));
}

/** Words for a status that is not plain "online", shown beside the source's name; undefined when online. */
export function statusBadge(status: string | undefined): string | undefined {
  if (status === undefined || status === 'online') return undefined;
  return status;
}

/**
 * The status of each source the user may read, kept current while `active` (the page shows).
 * A failed read keeps the last statuses: a blip in the network must not mark everything offline.
 */
export function useSourceStatuses(active: boolean): ReadonlyMap<string, string> {
  const [statuses, setStatuses] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (!active) return;
    let live = true;
    const read = () =>
      void api.sources().then(
        (list) => live && setStatuses(statusByName(list)),
        () => undefined,
      );
    read();
    const stop = pollWhileVisible(read);
    return () => {
      live = false;
      stop();
    };
  }, [active]);
  return statuses;
}
