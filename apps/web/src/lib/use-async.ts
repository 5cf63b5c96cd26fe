import { useCallback, useEffect, useState } from 'react';
import type { ApiError } from './api-error.js';

export interface AsyncState<T> {
  readonly data?: T;
  readonly error?: ApiError;
  readonly loading: boolean;
  reload(): void;
}

/** Loads once on mount and on reload(); the last request wins. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[] = []): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: ApiError) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
    // `load` is a fresh closure each render: reloading is driven by `version` and `deps` only
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version, ...deps]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { ...state, reload };
}
