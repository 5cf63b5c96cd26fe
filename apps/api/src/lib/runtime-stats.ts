import { readdirSync, readlinkSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * What an operator (or `npm run soak`) needs to tell a leak from a load: the process's memory,
 * its open handles by kind, its file descriptors and sockets, and how late the event loop ran.
 * Read from inside the process because heap and handles are not visible from /proc.
 */
export interface RuntimeStats {
  readonly pid: number;
  readonly uptimeSeconds: number;
  readonly memory: {
    readonly rssBytes: number;
    readonly heapUsedBytes: number;
    readonly heapTotalBytes: number;
    readonly externalBytes: number;
    readonly arrayBuffersBytes: number;
  };
  /** libuv handles and requests keeping the process alive, by kind (TCPSocketWrap, Timeout, …) */
  readonly handles: Readonly<Record<string, number>>;
  /** open file descriptors and, of them, sockets; null where /proc is not there */
  readonly fds: number | null;
  readonly sockets: number | null;
  /**
   * Event-loop delay since the previous call (each call starts a new interval), so a poller
   * gets one figure per window; ms.
   */
  readonly eventLoop: {
    readonly sinceSeconds: number;
    readonly meanMs: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
  };
  readonly queries: { readonly running: number; readonly queued: number };
}

let loop: ReturnType<typeof monitorEventLoopDelay> | undefined;
let loopSince = 0;

/** Starts the event-loop monitor (idempotent): its cost is a 20 ms timer. */
export function startRuntimeMonitor(): void {
  if (loop) return;
  loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loop.enable();
  loopSince = performance.now();
}

export function stopRuntimeMonitor(): void {
  loop?.disable();
  loop = undefined;
}

const RESOLUTION_MS = 20;

/**
 * A value of a monitorEventLoopDelay histogram as the loop's delay in ms: Node records the whole
 * interval between two of its timer's turns, so an idle loop reads as the resolution itself.
 */
export function loopDelayMs(ns: number, resolutionMs: number): number {
  return Number.isFinite(ns) ? Math.max(0, Math.round((ns / 1e6 - resolutionMs) * 100) / 100) : 0;
}
const ms = (ns: number): number => loopDelayMs(ns, RESOLUTION_MS);

function descriptors(): { fds: number | null; sockets: number | null } {
  try {
    const entries = readdirSync('/proc/self/fd');
    let sockets = 0;
    for (const fd of entries) {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) sockets++;
      } catch {
        // closed between the listing and the read
      }
    }
    // readdirSync's own descriptor is in its listing
    return { fds: entries.length - 1, sockets };
  } catch {
    return { fds: null, sockets: null };
  }
}

export function runtimeStats(queries: { running: number; queued: number }): RuntimeStats {
  startRuntimeMonitor();
  const m = process.memoryUsage();
  const handles: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) handles[kind] = (handles[kind] ?? 0) + 1;
  const now = performance.now();
  const h = loop!;
  const eventLoop = {
    sinceSeconds: Math.round((now - loopSince) / 100) / 10,
    meanMs: ms(h.mean),
    p50Ms: ms(h.percentile(50)),
    p99Ms: ms(h.percentile(99)),
    maxMs: ms(h.max),
  };
  h.reset();
  loopSince = now;
  return {
    pid: process.pid,
    uptimeSeconds: Math.round(process.uptime()),
    memory: {
      rssBytes: m.rss,
      heapUsedBytes: m.heapUsed,
      heapTotalBytes: m.heapTotal,
      externalBytes: m.external,
      arrayBuffersBytes: m.arrayBuffers,
    },
    handles,
    ...descriptors(),
    eventLoop,
    queries,
  };
}
