import { useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';
const KEY = 'junction.theme';
const listeners = new Set<() => void>();

function systemTheme(): Theme {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The chosen theme, else the system's; applied as data-theme on <html> so CSS variables follow. */
export function currentTheme(): Theme {
  const t = typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY);
  return t === 'dark' || t === 'light' ? t : systemTheme();
}

export function applyTheme(t: Theme = currentTheme()): void {
  document.documentElement.dataset.theme = t;
  document.documentElement.style.colorScheme = t;
}

export function setTheme(t: Theme): void {
  localStorage.setItem(KEY, t);
  applyTheme(t);
  for (const l of listeners) l();
}

export function useTheme(): { theme: Theme; dark: boolean; toggle(): void } {
  const theme = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    currentTheme,
  );
  return { theme, dark: theme === 'dark', toggle: () => setTheme(theme === 'dark' ? 'light' : 'dark') };
}
