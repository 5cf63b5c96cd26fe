import * as hdr from 'hdr-histogram-js';

/** Latency statistics as the API reports them: milliseconds, from an HDR histogram of microseconds. */
export interface LatencyStats {
  readonly executions: number;
  readonly errors: number;
  readonly rows: number;
  readonly bytes: number;
  readonly minMs: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Records latencies in an HDR histogram (microseconds, 3 significant digits, resizing as needed)
 * plus the counts the lab reports beside them. Percentiles are the histogram's: exact to 0.1 %.
 */
export class Recorder {
  readonly #h = hdr.build({
    bitBucketSize: 'packed',
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    useWebAssembly: false,
  });
  #errors = 0;
  #rows = 0;
  #bytes = 0;

  record(ms: number, rows = 0, bytes = 0): void {
    this.#h.recordValue(Math.max(1, Math.round(ms * 1000)));
    this.#rows += rows;
    this.#bytes += bytes;
  }

  error(): void {
    this.#errors++;
  }

  get executions(): number {
    return this.#h.totalCount;
  }

  get errors(): number {
    return this.#errors;
  }

  /** merges another recorder's values (an interval into a phase total) */
  add(other: Recorder): void {
    this.#h.add(other.#h);
    this.#errors += other.#errors;
    this.#rows += other.#rows;
    this.#bytes += other.#bytes;
  }

  stats(): LatencyStats {
    const n = this.#h.totalCount;
    // a percentile is its bucket's highest equivalent value, which may lie above the largest value recorded
    const at = (p: number) => (n ? round(Math.min(this.#h.getValueAtPercentile(p), this.#h.maxValue) / 1000) : 0);
    return {
      executions: n,
      errors: this.#errors,
      rows: this.#rows,
      bytes: this.#bytes,
      minMs: n ? round(this.#h.minNonZeroValue / 1000) : 0,
      meanMs: n ? round(this.#h.mean / 1000) : 0,
      p50Ms: at(50),
      p90Ms: at(90),
      p95Ms: at(95),
      p99Ms: at(99),
      maxMs: n ? round(this.#h.maxValue / 1000) : 0,
    };
  }

  /** the histogram itself, for export (HdrHistogram's compressed base64) */
  encoded(): string {
    return hdr.encodeIntoCompressedBase64(this.#h);
  }

  destroy(): void {
    this.#h.destroy();
  }
}

/** The geometric mean of positive values (Red Hat's stream score); 0 for none. */
export function geometricMean(values: readonly number[]): number {
  const xs = values.filter((v) => v > 0);
  if (!xs.length) return 0;
  return round(Math.exp(xs.reduce((s, v) => s + Math.log(v), 0) / xs.length));
}
