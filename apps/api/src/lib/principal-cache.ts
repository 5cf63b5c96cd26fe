import type { Db } from '../db/client.js';

interface UserPart {
  id: string;
  username: string;
  role: string;
  disabled: boolean;
}
export interface TokenRecord {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  scopes: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  user: UserPart;
}
export interface SessionRecord {
  id: string;
  userId: string;
  csrfToken: string;
  expiresAt: Date;
  user: UserPart;
}

interface Entry<T> {
  value: T;
  loadedAt: number;
  userId: string;
}

/**
 * Tokens and sessions as the last read of the metadata database saw them, kept for `ttlMs`
 * (0.5 s by default), so a program sending hundreds of requests a second costs one lookup per
 * token every half second instead of one per request. Revoking a token, signing out, disabling,
 * deleting or changing a user forgets that user's entries at once on this server
 * (forgetToken/forgetSession/forgetUser), and on every other server sharing the metadata
 * database before the forget resolves (the cluster plugin's announce; without one the other
 * servers see the change when their entry expires, within ttlMs). Unknown tokens and sessions
 * are not cached: a token created a moment ago works at once.
 *
 * Concurrent requests with the same token share one lookup. A lookup that was under way when
 * something was forgotten is not cached (the generation check), so it cannot bring back what
 * was just revoked.
 */
export class PrincipalCache {
  readonly #tokens = new Map<string, Entry<TokenRecord>>();
  readonly #sessions = new Map<string, Entry<SessionRecord>>();
  readonly #loading = new Map<string, Promise<unknown>>();
  #generation = 0;
  /** set by the cluster plugin: the other servers forget the same entries */
  announce: (forgotten: { t: 'token' | 'session' | 'user'; id: string }) => Promise<void> = async () => undefined;

  constructor(
    readonly db: Db,
    readonly ttlMs = 500,
    readonly maxEntries = 10_000,
  ) {}

  /** The token with this hash and its user, or null when there is none. */
  token(tokenHash: string): Promise<TokenRecord | null> {
    return this.#get(this.#tokens, `t:${tokenHash}`, tokenHash, () =>
      this.db.apiToken.findUnique({ where: { tokenHash }, include: { user: true } }),
    );
  }

  /** The session with this id (the cookie's hash) and its user, or null. */
  session(id: string): Promise<SessionRecord | null> {
    return this.#get(this.#sessions, `s:${id}`, id, () =>
      this.db.session.findUnique({ where: { id }, include: { user: true } }),
    );
  }

  async #get<T extends { userId: string }>(
    map: Map<string, Entry<T>>,
    loadKey: string,
    key: string,
    load: () => Promise<T | null>,
  ): Promise<T | null> {
    const hit = map.get(key);
    const now = Date.now();
    if (hit && now - hit.loadedAt < this.ttlMs) return hit.value;
    const running = this.#loading.get(loadKey) as Promise<T | null> | undefined;
    if (running) return running;
    const generation = this.#generation;
    const p = (async () => {
      try {
        const value = await load();
        if (value === null) map.delete(key);
        else if (generation === this.#generation) {
          if (map.size >= this.maxEntries) map.delete(map.keys().next().value as string);
          map.delete(key); // re-inserted at the end: the oldest entries go first
          map.set(key, { value, loadedAt: now, userId: value.userId });
        }
        return value;
      } finally {
        this.#loading.delete(loadKey);
      }
    })();
    this.#loading.set(loadKey, p);
    return p;
  }

  /** Forgets at once here; resolves when the other servers have forgotten too (at most about a second). */
  forgetToken(tokenId: string): Promise<void> {
    this.dropToken(tokenId);
    return this.announce({ t: 'token', id: tokenId });
  }

  forgetSession(id: string): Promise<void> {
    this.dropSession(id);
    return this.announce({ t: 'session', id });
  }

  /** After a user's role, password or disabled flag changed, or the user was deleted. */
  forgetUser(userId: string): Promise<void> {
    this.dropUser(userId);
    return this.announce({ t: 'user', id: userId });
  }

  /** forgetToken on this server only (another server announced it). */
  dropToken(tokenId: string): void {
    this.#generation++;
    for (const [k, e] of this.#tokens) if (e.value.id === tokenId) this.#tokens.delete(k);
  }

  dropSession(id: string): void {
    this.#generation++;
    this.#sessions.delete(id);
  }

  dropUser(userId: string): void {
    this.#generation++;
    for (const map of [this.#tokens, this.#sessions] as Map<string, Entry<{ userId: string }>>[])
      for (const [k, e] of map) if (e.userId === userId) map.delete(k);
  }

  /** Everything (announcements from other servers may have been lost). */
  dropAll(): void {
    this.#generation++;
    this.#tokens.clear();
    this.#sessions.clear();
  }
}
