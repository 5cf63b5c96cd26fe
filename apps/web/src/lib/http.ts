import { ApiError, networkError, toApiError } from './api-error.js';

export const API_BASE = '/api/v1';

const CSRF_HEADER = 'x-junction-csrf';
let csrfToken: string | undefined;

/** The API hands out a CSRF token at login (body) or in a readable cookie; writes echo it. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/**
 * Whether the browser holds a session at all. The API sets the readable CSRF cookie with the
 * httpOnly session cookie, for as long, and clears both at sign-out: without it, asking who is
 * signed in can only answer 401, which the browser logs as an error on every sign-in page.
 */
export function mayHaveSession(cookies: string = typeof document === 'undefined' ? '' : document.cookie): boolean {
  return /(?:^|;\s*)junction_csrf=[^;]/.test(cookies);
}

/** The server no longer knows this session: drop its readable half so the next load does not ask again. */
export function forgetSession(): void {
  csrfToken = undefined;
  if (typeof document !== 'undefined') document.cookie = 'junction_csrf=; Max-Age=0; path=/; SameSite=Strict';
}

function currentCsrfToken(): string | undefined {
  if (csrfToken) return csrfToken;
  if (typeof document === 'undefined') return undefined;
  const m = /(?:^|;\s*)junction_csrf=([^;]+)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]) : undefined;
}

type Listener = (e: ApiError) => void;
const authListeners = new Set<Listener>();

/** Called on any 401, so the app can go back to the login screen. */
export function onAuthRequired(l: Listener): () => void {
  authListeners.add(l);
  return () => authListeners.delete(l);
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  accept?: string;
  signal?: AbortSignal;
}

/** fetch with JSON, credentials, CSRF and error mapping; returns the raw Response when ok. */
export async function request(path: string, opts: RequestOptions = {}): Promise<Response> {
  const method = opts.method ?? (opts.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { accept: opts.accept ?? 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD') {
    const t = currentCsrfToken();
    if (t) headers[CSRF_HEADER] = t;
  }
  let res: Response;
  try {
    res = await fetch(API_BASE + path, {
      method,
      headers,
      credentials: 'same-origin',
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw networkError(e);
  }
  if (!res.ok) {
    const err = toApiError(res.status, await readBody(res));
    if (res.status === 401 && !path.startsWith('/auth/login')) for (const l of authListeners) l(err);
    throw err;
  }
  return res;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => '');
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function requestJson<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await request(path, opts);
  if (res.status === 204) return undefined as T;
  return (await readBody(res)) as T;
}

export { ApiError };
