import type { SourceSemantics } from '../contract/catalog.js';
import type { SourceConfig, SourceHealth } from '../contract/connector.js';
import { JunctionError } from '../contract/errors.js';
import { withDeadline, type FailedDiagnosis, type Target } from './diagnosis.js';
import { connectionLimitError } from './errors.js';

/**
 * What every connector that reaches a server over the network derives from its SourceConfig
 * in the same way: where it connects, its timeouts, the secrets its messages must mask, and
 * how a failure to get a connection becomes `source_unavailable`. Each engine keeps its driver
 * code and its own reading of driver errors (`diagnose`).
 */
export abstract class NetworkSource {
  readonly name: string;
  /** Types read as text only, collected from introspection and ad-hoc statements. */
  readonly warnings: string[] = [];
  /** set by probe(); capabilities and rendering follow it */
  protected semantics: SourceSemantics | undefined;
  protected readonly host: string;
  protected readonly port: number;
  protected readonly connectTimeoutMs: number;
  protected readonly statementTimeoutMs: number | undefined;
  protected readonly secrets: readonly (string | undefined)[];
  protected readonly target: Target;
  protected readonly cancelGraceMs: number;
  onHealth?: (health: SourceHealth) => void;
  // a plain field, not #private: tests and wrappers derive connectors with Object.create(connector)
  private healthState: SourceHealth = { status: 'ok' };

  constructor(
    protected readonly config: SourceConfig,
    defaultPort: number,
  ) {
    this.name = config.name;
    this.host = config.host ?? '127.0.0.1';
    this.port = config.port ?? defaultPort;
    this.connectTimeoutMs = config.options?.connectTimeoutMs ?? 10_000;
    this.statementTimeoutMs = config.options?.statementTimeoutMs;
    this.cancelGraceMs = config.options?.cancelGraceMs ?? 2000;
    this.secrets = [config.password];
    this.target = {
      source: this.name,
      host: this.host,
      port: this.port,
      connectTimeoutMs: this.connectTimeoutMs,
      secrets: this.secrets,
    };
  }

  protected abstract diagnose(err: unknown): FailedDiagnosis;

  /** A pooled connection could not be had: say why, in words a person can act on. */
  protected unavailable(err: unknown): JunctionError {
    if (err instanceof JunctionError) return err;
    const full = connectionLimitError(this.name, err);
    if (full) return full;
    const d = this.diagnose(err);
    return new JunctionError('source_unavailable', 'external', d.message, {
      details: { source: this.name, diagnosis: d.code, hint: d.hint },
    });
  }

  get health(): SourceHealth {
    return this.healthState;
  }

  protected degrade(reason: string): void {
    if (this.healthState.status === 'degraded') return;
    this.healthState = { status: 'degraded', reason, since: new Date() };
    this.onHealth?.(this.healthState);
  }

  /** A statement completed: the source answers again. */
  protected answered(): void {
    if (this.healthState.status === 'ok') return;
    this.healthState = { status: 'ok' };
    this.onHealth?.(this.healthState);
  }

  /**
   * Puts a stopped statement's connection back in order off the consumer's path. A timeout
   * or cancel must end the query on Junction's side at once, but the source may be frozen
   * (SIGSTOP, a dead network path): waiting for its cancel acknowledgement would hold the
   * query, its admission slot and its caller for as long as the source sleeps. So `settle`
   * (cancel, drain, prove idle) runs in the background; if it has not finished within the
   * grace the connection is destroyed, which frees its pool slot for a fresh connection, and
   * the source is reported degraded.
   */
  protected retire(settle: Promise<boolean>, release: () => void, destroy: () => void): void {
    void withDeadline(
      settle.catch(() => false),
      this.cancelGraceMs,
    ).then((r) => {
      if ('timedOut' in r) {
        destroy();
        this.degrade(`did not answer a cancel within ${this.cancelGraceMs} ms; its connection was closed`);
      } else if (r.value) release();
      else destroy();
    });
  }
}
