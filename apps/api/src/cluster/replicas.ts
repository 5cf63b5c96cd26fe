import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Db } from '../db/client.js';

/** One API server of a deployment. */
export interface ReplicaInfo {
  readonly id: string;
  readonly name: string;
  readonly url: string | null;
}

/**
 * This server's identity: a name people read (JUNCTION_REPLICA_NAME, default host:pid) and an id
 * that is new for every start, so a restarted server is never taken for the one before it.
 */
export function replicaIdentity(opts: { name?: string; url?: string } = {}): ReplicaInfo {
  const name = opts.name?.trim() || `${os.hostname()}:${process.pid}`;
  const id = `${name.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 80)}-${randomBytes(4).toString('hex')}`;
  return { id, name, url: opts.url ?? null };
}

export const HEARTBEAT_MS = 3_000;
/** a replica whose row was not written for this long is gone (killed, or cut off from the database) */
export const REPLICA_STALE_MS = 15_000;
/** rows of replicas gone this long are deleted (every restart leaves one behind otherwise) */
const FORGET_MS = 60 * 60_000;

export interface HeartbeatLog {
  warn(obj: object, msg: string): void;
}

/**
 * The Replica table, written only with PostgreSQL metadata: every replica writes its row every
 * HEARTBEAT_MS. Times are the database's (now() in UTC, as Prisma stores DateTime), so clocks of
 * the servers that differ do not make a live replica look gone.
 */
export class Replicas {
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #beats = 0;
  /** called after each heartbeat (the benchmark lab looks for runs of replicas gone) */
  readonly #afterBeat = new Set<() => Promise<void>>();

  constructor(
    readonly db: Db,
    readonly self: ReplicaInfo,
    readonly log: HeartbeatLog,
    readonly heartbeatMs = HEARTBEAT_MS,
    readonly staleMs = REPLICA_STALE_MS,
  ) {}

  async start(): Promise<void> {
    await this.#beat();
    this.#timer = setInterval(() => {
      this.#beating ??= this.#beatAndAfter().finally(() => (this.#beating = undefined));
    }, this.heartbeatMs);
    this.#timer.unref();
  }

  afterBeat(fn: () => Promise<void>): () => void {
    this.#afterBeat.add(fn);
    return () => this.#afterBeat.delete(fn);
  }

  /** The replicas seen within staleMs, this one included. */
  async live(): Promise<ReplicaInfo[]> {
    return this.db.$queryRawUnsafe<ReplicaInfo[]>(
      `SELECT "id", "name", "url" FROM "Replica"
        WHERE "seenAt" > (now() AT TIME ZONE 'UTC') - ($1::int * interval '1 millisecond')
        ORDER BY "name", "id"`,
      this.staleMs,
    );
  }

  /** Stops the heartbeat and removes this replica's row: the others stop waiting for it at once. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beating?.catch(() => undefined);
    await this.db.replica.deleteMany({ where: { id: this.self.id } }).catch(() => undefined);
  }

  async #beatAndAfter(): Promise<void> {
    try {
      await this.#beat();
    } catch (err) {
      this.log.warn({ err }, 'cluster: could not write this server\u2019s heartbeat');
      return;
    }
    for (const fn of this.#afterBeat)
      await fn().catch((err: unknown) => this.log.warn({ err }, 'cluster: a task after the heartbeat failed'));
  }

  async #beat(): Promise<void> {
    await this.db.$executeRawUnsafe(
      `INSERT INTO "Replica" ("id", "name", "url", "startedAt", "seenAt")
         VALUES ($1, $2, $3, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')
       ON CONFLICT ("id") DO UPDATE SET "seenAt" = now() AT TIME ZONE 'UTC'`,
      this.self.id,
      this.self.name,
      this.self.url,
    );
    if (this.#beats++ % 100 !== 0) return;
    await this.db.$executeRawUnsafe(
      `DELETE FROM "Replica" WHERE "seenAt" < (now() AT TIME ZONE 'UTC') - ($1::int * interval '1 millisecond')`,
      FORGET_MS,
    );
  }
}
