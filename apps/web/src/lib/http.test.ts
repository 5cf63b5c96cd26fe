import { afterEach, describe, expect, it, vi } from 'vitest';
import { api } from './api.js';
import { mayHaveSession } from './http.js';

afterEach(() => vi.unstubAllGlobals());

describe('mayHaveSession', () => {
  it('is true only while the CSRF cookie the API sets with the session is there', () => {
    expect(mayHaveSession('')).toBe(false);
    expect(mayHaveSession('theme=dark')).toBe(false);
    expect(mayHaveSession('junction_csrf=')).toBe(false);
    expect(mayHaveSession('theme=dark; junction_csrf=abc')).toBe(true);
    expect(mayHaveSession('not_junction_csrf=abc')).toBe(false);
  });
});

describe('api.me', () => {
  it('does not ask the server when there is no session, so the sign-in page logs no 401', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    vi.stubGlobal('document', { cookie: '' });
    await expect(api.me()).resolves.toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('takes a 401 as "signed out" and forgets the stale cookie', async () => {
    const doc = { cookie: 'junction_csrf=old' };
    const fetch = vi.fn(
      async () =>
        new Response(JSON.stringify({ code: 'unauthenticated', kind: 'auth', message: 'no' }), { status: 401 }),
    );
    vi.stubGlobal('fetch', fetch);
    vi.stubGlobal('document', doc);
    await expect(api.me()).resolves.toBeNull();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(doc.cookie).toMatch(/^junction_csrf=; Max-Age=0/);
  });

  it('returns the signed-in user', async () => {
    vi.stubGlobal('document', { cookie: 'junction_csrf=t' });
    vi.stubGlobal(
      'fetch',
      async () => new Response(JSON.stringify({ id: 'u1', username: 'ann', role: 'analyst' }), { status: 200 }),
    );
    await expect(api.me()).resolves.toMatchObject({ id: 'u1', username: 'ann', role: 'analyst' });
  });
});
