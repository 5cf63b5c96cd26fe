/**
 * A small pool for drivers without one (tedious): at most `max` resources, idle ones closed
 * after `idleTimeoutMs`, every one retired after `maxLifetimeMs`, waiters served in order.
 */
export interface PoolHooks<T> {
  create(): Promise<T>;
  destroy(resource: T): void;
  /** false when the resource can no longer be used (closed socket, broken session) */
  healthy(resource: T): boolean;
}

interface Entry<T> {
  readonly resource: T;
  readonly createdAt: number;
  idleSince: number;
}

export class ResourcePool<T> {
  private readonly idle: Entry<T>[] = [];
  private readonly busy = new Map<T, Entry<T>>();
  private readonly waiters: { resolve: (e: Entry<T>) => void; reject: (err: unknown) => void }[] = [];
  private creating = 0;
  private closed = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly hooks: PoolHooks<T>,
    private readonly max: number,
    private readonly idleTimeoutMs: number,
    private readonly maxLifetimeMs: number,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(idleTimeoutMs, 30_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.idle.length + this.busy.size + this.creating;
  }

  async acquire(): Promise<T> {
    if (this.closed) throw new Error('pool is closed');
    for (;;) {
      const e = this.idle.pop();
      if (!e) break;
      if (this.usable(e)) {
        this.busy.set(e.resource, e);
        return e.resource;
      }
      this.hooks.destroy(e.resource);
    }
    if (this.size < this.max) {
      this.creating++;
      try {
        const resource = await this.hooks.create();
        const e: Entry<T> = { resource, createdAt: Date.now(), idleSince: 0 };
        this.busy.set(resource, e);
        return resource;
      } finally {
        this.creating--;
      }
    }
    const e = await new Promise<Entry<T>>((resolve, reject) => this.waiters.push({ resolve, reject }));
    return e.resource;
  }

  /** Returns a resource; `discard` (or an unhealthy one) is destroyed instead of reused. */
  release(resource: T, discard = false): void {
    const e = this.busy.get(resource);
    if (!e) return;
    this.busy.delete(resource);
    if (discard || this.closed || !this.usable(e)) {
      this.hooks.destroy(resource);
      this.serveWaiterWithNew();
      return;
    }
    const w = this.waiters.shift();
    if (w) {
      this.busy.set(resource, e);
      w.resolve(e);
      return;
    }
    e.idleSince = Date.now();
    this.idle.push(e);
  }

  private serveWaiterWithNew(): void {
    const w = this.waiters.shift();
    if (!w) return;
    this.creating++;
    this.hooks
      .create()
      .then((resource) => {
        const e: Entry<T> = { resource, createdAt: Date.now(), idleSince: 0 };
        this.busy.set(resource, e);
        w.resolve(e);
      }, w.reject)
      .finally(() => this.creating--);
  }

  private usable(e: Entry<T>): boolean {
    return Date.now() - e.createdAt < this.maxLifetimeMs && this.hooks.healthy(e.resource);
  }

  private sweep(): void {
    const now = Date.now();
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const e = this.idle[i];
      if (now - e.idleSince > this.idleTimeoutMs || !this.usable(e)) {
        this.idle.splice(i, 1);
        this.hooks.destroy(e.resource);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const e of this.idle.splice(0)) this.hooks.destroy(e.resource);
    for (const w of this.waiters.splice(0)) w.reject(new Error('pool is closed'));
  }
}
