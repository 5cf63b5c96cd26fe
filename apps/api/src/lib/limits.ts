import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { AdmissionLimits, Bucket, QueueLimit } from './admission.js';

export interface JunctionLimits extends AdmissionLimits {
  /** what one query's operators may hold before they spill to disk (JUNCTION_QUERY_MEMORY_BYTES) */
  readonly memoryBudgetBytes: number;
  /** applied when a query names none, and the ceiling for one that does */
  readonly defaultTimeoutMs: number;
  readonly maxTimeoutMs: number;
  /** JSON replies hold every row in memory: this caps them (NDJSON streams have no cap) */
  readonly maxRowsJson: number;
  /** ...and this caps their size in bytes (JUNCTION_MAX_JSON_BYTES) */
  readonly maxJsonBytes: number;
  /** queries one source may serve at once; default ¾ of maxConcurrent (JUNCTION_SOURCE_SHARE) */
  readonly perSource?: number;
  /** result cache budgets (JUNCTION_CACHE_MEMORY_BYTES, JUNCTION_CACHE_DISK_BYTES); engine defaults 256 MiB and 1 GiB */
  readonly cacheMemoryBytes?: number;
  readonly cacheDiskBytes?: number;
}

export const DEFAULT_LIMITS: JunctionLimits = {
  maxConcurrent: 8,
  maxQueued: 32,
  queueTimeoutMs: 10_000,
  perUser: 4,
  perUserQueued: 16,
  perUserQueueTimeoutMs: 5_000,
  memoryBudgetBytes: 256 * 1024 * 1024,
  defaultTimeoutMs: 5 * 60_000,
  maxTimeoutMs: 60 * 60_000,
  maxRowsJson: 100_000,
  maxJsonBytes: 32 * 1024 * 1024,
};

export type LimitScope = 'server' | 'role' | 'user' | 'token';

/** A stored setting; a null field inherits. */
export interface LimitOverride {
  scope: LimitScope;
  subject: string;
  maxConcurrent: number | null;
  maxQueued: number | null;
  queueTimeoutMs: number | null;
  updatedAt: Date;
}

export type LimitPatch = Partial<Record<keyof QueueLimit, number | null>>;

/** The principal as far as limits care. */
export interface LimitSubject {
  readonly userId: string;
  readonly role: string;
  readonly tokenId?: string;
}

/**
 * The environment's defaults for admission (README, Configuration). Unset variables keep the
 * built-in defaults; a value that is not a whole number in range stops the server at start,
 * rather than running with a limit nobody chose.
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<JunctionLimits> {
  const out: Record<string, number> = {};
  const read = (name: string, key: keyof JunctionLimits, min: number, max?: number) => {
    const n = envInteger(env, name, min, max);
    if (n !== undefined) out[key] = n;
  };
  read('JUNCTION_MAX_CONCURRENT', 'maxConcurrent', 1);
  read('JUNCTION_MAX_QUEUED', 'maxQueued', 0);
  read('JUNCTION_QUEUE_TIMEOUT_MS', 'queueTimeoutMs', 0);
  read('JUNCTION_USER_CONCURRENCY', 'perUser', 1);
  read('JUNCTION_USER_QUEUED', 'perUserQueued', 0);
  read('JUNCTION_USER_QUEUE_TIMEOUT_MS', 'perUserQueueTimeoutMs', 0);
  read('JUNCTION_MAX_JSON_BYTES', 'maxJsonBytes', 1);
  read('JUNCTION_SOURCE_SHARE', 'perSource', 1);
  read('JUNCTION_CACHE_MEMORY_BYTES', 'cacheMemoryBytes', 0, 2 ** 40);
  read('JUNCTION_CACHE_DISK_BYTES', 'cacheDiskBytes', 0, 2 ** 50);
  // below 1 MiB a query could not hold one batch of wide rows
  read('JUNCTION_QUERY_MEMORY_BYTES', 'memoryBudgetBytes', 2 ** 20, 2 ** 40);
  return out as Partial<JunctionLimits>;
}

/** A whole number from the environment, undefined when unset; out of range stops the server at start. */
export function envInteger(env: NodeJS.ProcessEnv, name: string, min: number, max = 1_000_000_000): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} (got "${raw}")`);
  return n;
}

const FIELDS = ['maxConcurrent', 'maxQueued', 'queueTimeoutMs'] as const;
/**
 * how stale this server's copy of the stored limits may get when another server changes them and
 * its announcement (cluster/) did not arrive
 */
const RELOAD_MS = 5_000;

/**
 * Concurrency limits as configuration: the environment gives the defaults, an admin overrides
 * them through the API (routes/limits.ts) per server, role, user and token, and the overrides
 * live in the metadata database (ConcurrencyLimit). Every field inherits separately, from the
 * most specific setting: token → user → role → default. A token with a setting of its own is
 * counted on its own (an application's token is not held to its owner's personal limit); every
 * other request counts against its user. A role's limit is per member of the role, not shared.
 *
 * Settings are kept in memory: resolving one is a map lookup on the query path. Changes made
 * on this server apply at once; another server sharing the database loads them again when this one
 * announces the change (cluster/sync.ts), and within RELOAD_MS whatever happens.
 */
export class LimitStore {
  readonly #rows = new Map<string, LimitOverride>();
  #loadedAt = 0;
  #loading: Promise<void> | undefined;
  /** called with the new server-wide limit whenever it may have changed */
  onServerChange: (limit: QueueLimit) => void = () => undefined;
  /** after a setting was stored here: the other servers sharing the database load the settings again */
  announce: () => Promise<void> = async () => undefined;

  constructor(
    readonly db: Db,
    readonly defaults: AdmissionLimits,
  ) {}

  async load(): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const rows = await this.db.concurrencyLimit.findMany();
        this.#rows.clear();
        for (const r of rows) this.#rows.set(`${r.scope}:${r.subject}`, { ...r, scope: r.scope as LimitScope });
        this.#loadedAt = Date.now();
        this.onServerChange(this.server());
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }

  #fresh(): void {
    if (Date.now() - this.#loadedAt > RELOAD_MS && !this.#loading) {
      // in the background: the query in hand uses what is known now
      this.load().catch(() => undefined);
    }
  }

  /** The server-wide limit in force: stored fields over the environment's. */
  server(): QueueLimit {
    const row = this.#rows.get('server:');
    return {
      maxConcurrent: row?.maxConcurrent ?? this.defaults.maxConcurrent,
      maxQueued: row?.maxQueued ?? this.defaults.maxQueued,
      queueTimeoutMs: row?.queueTimeoutMs ?? this.defaults.queueTimeoutMs,
    };
  }

  /** Which count a request joins and the limit that applies to it. */
  bucketOf(p: LimitSubject): Bucket {
    this.#fresh();
    const token = p.tokenId !== undefined ? this.#rows.get(`token:${p.tokenId}`) : undefined;
    const chain = [token, this.#rows.get(`user:${p.userId}`), this.#rows.get(`role:${p.role}`)];
    const scope: Bucket['scope'] = token ? 'token' : chain[1] ? 'user' : chain[2] ? 'role' : 'default';
    const pick = (f: (typeof FIELDS)[number], fallback: number): number => {
      for (const r of chain) if (r && r[f] !== null) return r[f];
      return fallback;
    };
    return {
      key: token ? `token:${p.tokenId}` : `user:${p.userId}`,
      scope,
      limit: {
        maxConcurrent: pick('maxConcurrent', this.defaults.perUser),
        maxQueued: pick('maxQueued', this.defaults.perUserQueued),
        queueTimeoutMs: pick('queueTimeoutMs', this.defaults.perUserQueueTimeoutMs),
      },
    };
  }

  list(): LimitOverride[] {
    return [...this.#rows.values()].sort((a, b) => (a.scope + a.subject).localeCompare(b.scope + b.subject));
  }

  get(scope: LimitScope, subject: string): LimitOverride | undefined {
    return this.#rows.get(`${scope}:${subject}`);
  }

  /** Stores the fields given (null clears one); returns the setting as stored. */
  async set(scope: LimitScope, subject: string, patch: LimitPatch): Promise<LimitOverride> {
    const data = Object.fromEntries(FIELDS.filter((f) => patch[f] !== undefined).map((f) => [f, patch[f]]));
    const row = await this.db.concurrencyLimit.upsert({
      where: { scope_subject: { scope, subject } },
      create: { id: randomUUID(), scope, subject, ...data },
      update: data,
    });
    const out: LimitOverride = { ...row, scope };
    this.#rows.set(`${scope}:${subject}`, out);
    if (scope === 'server') this.onServerChange(this.server());
    await this.announce();
    return out;
  }

  /** Removes a setting (back to inheriting); false when there was none. */
  async remove(scope: LimitScope, subject: string): Promise<boolean> {
    const { count } = await this.db.concurrencyLimit.deleteMany({ where: { scope, subject } });
    const had = this.#rows.delete(`${scope}:${subject}`);
    if (scope === 'server') this.onServerChange(this.server());
    await this.announce();
    return count > 0 || had;
  }

  /** A deleted user's settings, and those of its tokens, go with it. */
  async forgetUser(userId: string, tokenIds: readonly string[]): Promise<void> {
    await this.db.concurrencyLimit.deleteMany({
      where: {
        OR: [
          { scope: 'user', subject: userId },
          { scope: 'token', subject: { in: [...tokenIds] } },
        ],
      },
    });
    this.#rows.delete(`user:${userId}`);
    for (const t of tokenIds) this.#rows.delete(`token:${t}`);
    await this.announce();
  }
}
