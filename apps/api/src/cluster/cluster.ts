import { randomUUID } from 'node:crypto';
import type { BusLog, ClusterBus, ClusterMessage } from './bus.js';
import type { ReplicaInfo, Replicas } from './replicas.js';

/** how long an ask (and an announcement) waits for the other live replicas */
export const ASK_TIMEOUT_MS = 1_000;

/** A change made on one replica, to be applied by the others (ids only: they re-read the rows). */
export type ClusterEvent =
  | { readonly t: 'source'; readonly name: string }
  | { readonly t: 'views' }
  | { readonly t: 'access' }
  | { readonly t: 'token'; readonly id: string }
  | { readonly t: 'session'; readonly id: string }
  | { readonly t: 'user'; readonly id: string }
  | { readonly t: 'limits' }
  | { readonly t: 'purge'; readonly source?: string; readonly view?: { schema: string; name: string } }
  /** re-read everything: a replica could not announce a change it made */
  | { readonly t: 'resync' };

export type ClusterEventType = ClusterEvent['t'];

export interface Answer<A> {
  readonly replica: Pick<ReplicaInfo, 'id' | 'name'>;
  readonly answer?: A;
  /** the replica's handler failed with this message */
  readonly error?: string;
}

export interface AskResult<A> {
  /** this replica's answer first, then the others' in the order they came */
  readonly answers: Answer<A>[];
  /** live replicas that did not answer in time */
  readonly missing: ReplicaInfo[];
}

type Answerer = (question: unknown, from: string) => unknown;
type Applier = (event: ClusterEvent) => Promise<void> | void;

interface Pending {
  readonly answers: Answer<unknown>[];
  readonly waiting: Set<string>;
  readonly done: () => void;
}

/**
 * What the replicas do together over the bus: asks answered by every live replica (the running
 * queries, a cancel), and announcements of changes, which every live replica applies before the
 * announcing request answers (bounded by ASK_TIMEOUT_MS), so a revoked token or grant is refused
 * by every server from the moment the revocation returns. With one server (a LocalBus) an ask is
 * answered by this replica alone and an announcement does nothing.
 */
export class Cluster {
  readonly #answerers = new Map<string, Answerer>();
  readonly #appliers = new Map<ClusterEventType, Applier[]>();
  readonly #resync = new Set<() => Promise<void> | void>();
  readonly #pending = new Map<string, Pending>();
  /** applies run one at a time, in the order they came, so two changes of one source cannot interleave */
  #applying: Promise<void> = Promise.resolve();
  /** an announcement could not be sent: the others are told to re-read everything once sending works */
  #owed = false;

  constructor(
    readonly bus: ClusterBus,
    readonly self: ReplicaInfo,
    readonly replicas: Replicas | undefined,
    readonly log: BusLog,
    readonly timeoutMs = ASK_TIMEOUT_MS,
  ) {
    bus.subscribe((m, from) => this.#receive(m, from));
    bus.onResync(() => {
      // a failure is logged by the queue
      this.#serially(() => this.#resyncAll()).catch(() => undefined);
    });
    this.on('resync', () => this.#resyncAll());
    replicas?.afterBeat(async () => {
      if (!this.#owed) return;
      this.#owed = false;
      await this.announce({ t: 'resync' });
    });
  }

  /** true when other servers may share the metadata database */
  get shared(): boolean {
    return this.bus.shared;
  }

  /** How this replica answers a kind of question (its own asks included). */
  answer(kind: string, fn: Answerer): void {
    this.#answerers.set(kind, fn);
  }

  /** How this replica applies a change another one announced. */
  on<T extends ClusterEventType>(type: T, fn: (event: Extract<ClusterEvent, { t: T }>) => Promise<void> | void): void {
    const list = this.#appliers.get(type) ?? [];
    list.push(fn as Applier);
    this.#appliers.set(type, list);
  }

  /** What to re-read when announcements may have been lost (the bus reconnected). */
  onResync(fn: () => Promise<void> | void): void {
    this.#resync.add(fn);
  }

  /**
   * A change this replica made and applied: the other live replicas apply it too. Resolves when
   * all of them said they did, or after the timeout (a replica that did not answer is logged;
   * it re-reads everything when its connection comes back).
   */
  async announce(event: ClusterEvent): Promise<void> {
    if (!this.bus.shared) return;
    try {
      const r = await this.#askOthers('apply', event, this.timeoutMs);
      const failed = r.answers.filter((a) => a.error !== undefined);
      if (r.missing.length || failed.length)
        this.log.warn(
          {
            event: event.t,
            unanswered: r.missing.map((m) => m.name),
            failed: failed.map((f) => ({ replica: f.replica.name, error: f.error })),
          },
          'cluster: not every server confirmed a change',
        );
    } catch (err) {
      this.#owed = true;
      this.log.warn(
        { err, event: event.t },
        'cluster: could not tell the other servers of a change; they will re-read everything',
      );
    }
  }

  async #resyncAll(): Promise<void> {
    for (const fn of this.#resync) await fn();
  }

  /**
   * Asks every live replica, this one first; the others' answers within the timeout (the ask
   * ends as soon as every live replica answered).
   */
  async ask<A>(kind: string, question: unknown, opts: { timeoutMs?: number } = {}): Promise<AskResult<A>> {
    const remote = this.bus.shared ? this.#askOthers(kind, question, opts.timeoutMs ?? this.timeoutMs) : undefined;
    const answers: Answer<A>[] = [];
    const local = this.#answerers.get(kind);
    if (local) {
      try {
        answers.push({ replica: this.self, answer: (await local(question, this.self.id)) as A });
      } catch (e) {
        answers.push({ replica: this.self, error: e instanceof Error ? e.message : String(e) });
      }
    }
    if (!remote) return { answers, missing: [] };
    const r = await remote;
    return { answers: [...answers, ...(r.answers as Answer<A>[])], missing: r.missing };
  }

  async #askOthers(kind: string, question: unknown, timeoutMs: number): Promise<AskResult<unknown>> {
    const others = (await this.replicas!.live()).filter((r) => r.id !== this.self.id);
    if (!others.length) return { answers: [], missing: [] };
    const id = randomUUID();
    const answers: Answer<unknown>[] = [];
    const waiting = new Set(others.map((o) => o.id));
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<void>((resolve) => {
      this.#pending.set(id, { answers, waiting, done: resolve });
      timer = setTimeout(resolve, timeoutMs);
    });
    try {
      await this.bus.publish({ t: 'ask', id, k: kind, q: question ?? null, n: this.self.name });
      await finished;
    } finally {
      clearTimeout(timer);
      this.#pending.delete(id);
    }
    return { answers: [...answers], missing: others.filter((o) => waiting.has(o.id)) };
  }

  #receive(m: ClusterMessage, from: string): void {
    if (m.t === 'reply') {
      const p = this.#pending.get(String(m.to));
      if (!p) return;
      p.answers.push({
        replica: { id: from, name: String(m.n ?? from) },
        ...(typeof m.e === 'string' ? { error: m.e } : { answer: m.a }),
      });
      p.waiting.delete(from);
      if (p.waiting.size === 0) p.done();
      return;
    }
    if (m.t !== 'ask' || typeof m.id !== 'string' || typeof m.k !== 'string') return;
    const reply = (out: { a?: unknown; e?: string }) =>
      this.bus
        .publish({ t: 'reply', to: m.id, n: this.self.name, ...out })
        .catch((err: unknown) => this.log.warn({ err }, 'cluster: could not answer another server'));
    const run =
      m.k === 'apply'
        ? () => this.#serially(() => this.#apply(m.q as ClusterEvent))
        : async () => {
            const fn = this.#answerers.get(m.k as string);
            if (!fn) throw new Error(`no answer to "${m.k as string}" here`);
            return fn(m.q, from);
          };
    void (async () => {
      try {
        await reply({ a: (await run()) ?? null });
      } catch (e) {
        await reply({ e: e instanceof Error ? e.message : String(e) });
      }
    })();
  }

  async #apply(event: ClusterEvent): Promise<void> {
    for (const fn of this.#appliers.get(event?.t) ?? []) await fn(event);
  }

  /** Runs fn after the applies before it; its failure is its caller's (the queue goes on). */
  #serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#applying.then(fn);
    this.#applying = run.then(
      () => undefined,
      (err: unknown) => this.log.warn({ err }, 'cluster: applying a change of another server failed'),
    );
    return run;
  }
}
