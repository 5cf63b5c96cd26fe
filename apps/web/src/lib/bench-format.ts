import type { LatencyStats, RunStatus } from './bench-api.js';

export function ms(x: number | null | undefined): string {
  if (x === null || x === undefined) return '–';
  if (x >= 1000) return `${(x / 1000).toFixed(2)} s`;
  if (x >= 10) return `${x.toFixed(0)} ms`;
  return `${x.toFixed(2)} ms`;
}

/** Federated time as a multiple of direct ("2.3× direct"); null when either is missing. */
export function ratio(fed: LatencyStats | null, direct: LatencyStats | null): string | null {
  if (!fed || !direct || !direct.p50Ms) return null;
  return `${(fed.p50Ms / direct.p50Ms).toFixed(fed.p50Ms / direct.p50Ms >= 10 ? 0 : 1)}×`;
}

export function duration(msTotal: number): string {
  const s = Math.round(msTotal / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

export const STATUS_LABEL: Record<RunStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted',
};

/** Runs whose status may still change: the views poll them. */
export const isActive = (status: RunStatus): boolean => status === 'queued' || status === 'running';

export function pct(x: number | null): string {
  if (x === null) return '–';
  return `${x > 0 ? '+' : ''}${x.toFixed(1)} %`;
}
