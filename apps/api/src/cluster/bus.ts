import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** What replicas tell each other: small JSON objects naming what changed (ids, never rows). */
export interface ClusterMessage {
  readonly t: string;
  readonly [key: string]: unknown;
}

/** `from`: the sending replica's id. */
export type ClusterHandler = (message: ClusterMessage, from: string) => void;

export interface BusLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The replicas' channel. A replica never receives what it sent itself: whoever makes a change
 * applies it before telling the others.
 */
export interface ClusterBus {
  readonly replicaId: string;
  /** false: the only server (SQLite metadata); nothing is sent and nothing arrives */
  readonly shared: boolean;
  publish(message: ClusterMessage): Promise<void>;
  subscribe(handler: ClusterHandler): () => void;
  /** told when messages may have been lost: the listening connection was down and is back */
  onResync(handler: () => void): () => void;
  close(): Promise<void>;
}

/** One server on its own: a bus with nobody on the other end. */
export class LocalBus implements ClusterBus {
  readonly shared = false;
  constructor(readonly replicaId: string) {}
  async publish(): Promise<void> {}
  subscribe(): () => void {
    return () => undefined;
  }
  onResync(): () => void {
    return () => undefined;
  }
  async close(): Promise<void> {}
}

export const CLUSTER_CHANNEL = 'junction_cluster';
/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. Larger messages (a list of running
 * queries with their SQL) go out in parts of this many bytes, base64 in the envelope.
 */
const PLAIN_LIMIT = 7500;
const PART_BYTES = 5000;
/** how long close() waits for its connections to confirm their end */
const CLOSE_WAIT_MS = 2_000;
/** parts of a message whose rest never came are dropped after this */
const PART_TTL_MS = 10_000;

export interface PgBusOptions {
  connectionString: string;
  replicaId: string;
  channel?: string;
  log?: BusLog;
  /** the first wait before reconnecting the listener, doubled per failed attempt up to maxMs */
  backoff?: { minMs: number; maxMs: number };
  /** how often the listener checks that it still hears the channel (its own ping), default 10 s */
  pingMs?: number;
}

interface Parts {
  readonly parts: (Buffer | undefined)[];
  got: number;
  readonly at: number;
}

/**
 * The bus over PostgreSQL LISTEN/NOTIFY on the metadata database: one dedicated connection
 * listens; messages are sent with pg_notify through a small pool of their own (the listener may
 * be reconnecting). When the listener's connection drops it is reopened with backoff, and
 * subscribers to onResync are told, since whatever was sent meanwhile is lost.
 */
export class PgBus implements ClusterBus {
  readonly shared = true;
  readonly replicaId: string;
  readonly channel: string;
  readonly #options: PgBusOptions;
  readonly #pool: pg.Pool;
  readonly #handlers = new Set<ClusterHandler>();
  readonly #resync = new Set<() => void>();
  readonly #partial = new Map<string, Parts>();
  #listener: pg.Client | undefined;
  #reconnecting = false;
  #closed = false;
  #pingTimer: NodeJS.Timeout | undefined;
  /** the ping sent last and not heard back yet, with the listener it was sent for */
  #ping: { nonce: string; listener: pg.Client } | undefined;

  constructor(options: PgBusOptions) {
    this.#options = options;
    this.replicaId = options.replicaId;
    this.channel = options.channel ?? CLUSTER_CHANNEL;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.channel)) throw new Error(`invalid cluster channel "${this.channel}"`);
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: 2,
      idleTimeoutMillis: 30_000,
      // a send on a connection that went silent fails instead of hanging the change it announces
      connectionTimeoutMillis: 5_000,
      query_timeout: 5_000,
      application_name: `junction-cluster-send ${this.replicaId}`.slice(0, 63),
    });
    // an idle connection the server ended: the pool replaces it at the next send
    this.#pool.on('error', () => undefined);
  }

  /** Opens the listening connection; fails when the metadata database cannot be reached. */
  async start(): Promise<void> {
    await this.#listen();
    // A connection dropped without a word (a NAT or firewall forgetting an idle connection, a
    // failover) would leave this server deaf to every change: it pings itself through the
    // channel, and a ping not heard back by the next one means the listener is lost.
    this.#pingTimer = setInterval(() => void this.#sendPing(), this.#options.pingMs ?? 10_000);
    this.#pingTimer.unref();
  }

  /** The listening connection's server process id (tests end it to show the bus recovers). */
  get listenerPid(): number | undefined {
    return (this.#listener as unknown as { processID?: number } | undefined)?.processID;
  }

  subscribe(handler: ClusterHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  onResync(handler: () => void): () => void {
    this.#resync.add(handler);
    return () => this.#resync.delete(handler);
  }

  async publish(message: ClusterMessage): Promise<void> {
    if (this.#closed) return;
    const body = JSON.stringify(message);
    const plain = JSON.stringify({ f: this.replicaId, m: message });
    if (Buffer.byteLength(plain) < PLAIN_LIMIT) {
      await this.#notify(plain);
      return;
    }
    const bytes = Buffer.from(body);
    const id = randomUUID();
    const n = Math.ceil(bytes.length / PART_BYTES);
    for (let i = 0; i < n; i++) {
      const d = bytes.subarray(i * PART_BYTES, (i + 1) * PART_BYTES).toString('base64');
      await this.#notify(JSON.stringify({ f: this.replicaId, p: id, i, n, d }));
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#pingTimer);
    const listener = this.#listener;
    this.#listener = undefined;
    // a connection that went silent never confirms its end: a stop must not wait for it
    const ended = Promise.all([listener?.end().catch(() => undefined), this.#pool.end().catch(() => undefined)]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  async #sendPing(): Promise<void> {
    const listener = this.#listener;
    if (!listener) return;
    if (this.#ping?.listener === listener) {
      this.#lost(listener, new Error('the listener did not hear its own ping'));
      return;
    }
    const nonce = randomUUID();
    this.#ping = { nonce, listener };
    await this.#notify(JSON.stringify({ f: this.replicaId, ping: nonce })).catch(() => undefined);
  }

  async #notify(payload: string): Promise<void> {
    await this.#pool.query('SELECT pg_notify($1, $2)', [this.channel, payload]);
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#options.connectionString,
      application_name: `junction-cluster ${this.replicaId}`.slice(0, 63),
      keepAlive: true,
    });
    const lost = (err?: Error) => this.#lost(client, err);
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel === this.channel && n.payload) this.#receive(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (e) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw e;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#listener = client;
  }

  #lost(client: pg.Client, err?: Error): void {
    if (this.#closed || this.#listener !== client) return;
    this.#listener = undefined;
    this.#options.log?.warn(
      { err },
      'cluster: the metadata database connection listening for other servers dropped; reconnecting',
    );
    void client.end().catch(() => undefined);
    if (this.#reconnecting) return;
    this.#reconnecting = true;
    void this.#reconnect().finally(() => (this.#reconnecting = false));
  }

  async #reconnect(): Promise<void> {
    const { minMs, maxMs } = this.#options.backoff ?? { minMs: 100, maxMs: 5000 };
    for (let attempt = 0; !this.#closed; attempt++) {
      await new Promise((r) => setTimeout(r, Math.min(maxMs, minMs * 2 ** attempt)).unref());
      if (this.#closed) return;
      try {
        await this.#listen();
      } catch (err) {
        if (attempt % 10 === 0)
          this.#options.log?.warn({ err, attempt }, 'cluster: reconnecting to the metadata database failed');
        continue;
      }
      if (this.#closed) return;
      this.#options.log?.info(
        { attempt },
        'cluster: listening again; re-reading everything other servers may have changed',
      );
      for (const h of this.#resync) h();
      return;
    }
  }

  #receive(payload: string): void {
    let env: { f?: unknown; m?: unknown; p?: unknown; i?: unknown; n?: unknown; d?: unknown; ping?: unknown };
    try {
      env = JSON.parse(payload) as typeof env;
    } catch {
      return; // not one of ours: someone else may NOTIFY on the channel
    }
    if (env.ping !== undefined) {
      if (env.f === this.replicaId && env.ping === this.#ping?.nonce) this.#ping = undefined;
      return;
    }
    if (typeof env.f !== 'string' || env.f === this.replicaId) return;
    let message: unknown = env.m;
    if (typeof env.p === 'string') {
      message = this.#assemble(env.p, env.i, env.n, env.d);
      if (message === undefined) return;
    }
    if (!message || typeof message !== 'object' || typeof (message as ClusterMessage).t !== 'string') return;
    for (const h of this.#handlers) h(message as ClusterMessage, env.f);
  }

  /** One part of a large message; the message once every part is in. */
  #assemble(id: string, i: unknown, n: unknown, d: unknown): unknown {
    if (typeof i !== 'number' || typeof n !== 'number' || typeof d !== 'string' || i < 0 || i >= n || n > 10_000)
      return undefined;
    const now = Date.now();
    for (const [k, p] of this.#partial) if (now - p.at > PART_TTL_MS) this.#partial.delete(k);
    let p = this.#partial.get(id);
    if (!p) {
      p = { parts: new Array<Buffer | undefined>(n).fill(undefined), got: 0, at: now };
      this.#partial.set(id, p);
    }
    if (p.parts.length !== n || p.parts[i]) return undefined;
    p.parts[i] = Buffer.from(d, 'base64');
    if (++p.got < n) return undefined;
    this.#partial.delete(id);
    try {
      return JSON.parse(Buffer.concat(p.parts as Buffer[]).toString('utf8'));
    } catch {
      return undefined;
    }
  }
}
