import type { SourceSemantics } from '../contract/catalog.js';
import type { SourceConfig } from '../contract/connector.js';
import { JunctionError } from '../contract/errors.js';
import type { FailedDiagnosis, Target } from './diagnosis.js';

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

  constructor(
    protected readonly config: SourceConfig,
    defaultPort: number,
  ) {
    this.name = config.name;
    this.host = config.host ?? '127.0.0.1';
    this.port = config.port ?? defaultPort;
    this.connectTimeoutMs = config.options?.connectTimeoutMs ?? 10_000;
    this.statementTimeoutMs = config.options?.statementTimeoutMs;
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
    const d = this.diagnose(err);
    return new JunctionError('source_unavailable', 'external', d.message, {
      details: { source: this.name, diagnosis: d.code, hint: d.hint },
    });
  }
}
