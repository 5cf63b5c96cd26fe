import net from 'node:net';

/**
 * A TCP relay in front of a real server that injects network faults, for a kernel without
 * netem and a shared server nobody may stop. Faults act on the relay's chunks (whatever one
 * read() returned), not on IP packets: close enough to what a driver sees, since a driver only
 * ever sees a byte stream that is late, stalls or breaks.
 */
export type Fault =
  | { kind: 'none' }
  /** each chunk each way delayed ms ± jitterMs (uniform), order preserved */
  | { kind: 'latency'; ms: number; jitterMs: number }
  /**
   * each transmission of a chunk is lost with probability `rate`; a lost one arrives after a
   * retransmission delay that starts at 200 ms and doubles while retransmissions are lost too
   * (TCP's RTO backoff). Later chunks wait behind it (head-of-line blocking), order preserved.
   */
  | { kind: 'loss'; rate: number }
  /**
   * each connection is reset (RST) once it relayed `afterBytes` bytes server → client, counted
   * from when this fault was set or the connection opened, whichever is later; so a pooled
   * connection's next big result is cut mid-stream, not its first byte
   */
  | { kind: 'reset'; afterBytes: number }
  /** connections, new and existing, stay open but pass no byte either way; held bytes flow again once healed, as TCP retransmits them */
  | { kind: 'blackhole' };

export interface FaultProxy {
  readonly port: number;
  set(fault: Fault): void;
  /** open client connections right now (to check pools heal and nothing leaks); one whose client sent its FIN is not open */
  connections(): number;
  /** drop every connection (RST) e.g. to emulate a restart of the server behind it */
  resetAll(): void;
  close(): Promise<void>;
}

const RTO_MS = 200;
// Linux caps the RTO at 120 s; capped far lower here so a rare run of losses costs seconds, not the
// test: with 30 % loss a chunk waits 5 s or more only after six losses in a row (p ≈ 0.07 %)
const RTO_MAX_MS = 1600;
// a lane holding more than this pauses its reader, so a stalled direction is TCP back-pressure, not memory
const HIGH_WATER = 1 << 20;
const LOW_WATER = 256 << 10;

interface Pair {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
  /** bytes relayed server → client since the current fault was set */
  down: number;
  closed: boolean;
  /** the client sent its FIN: done with the connection, though the relay may still hold bytes for either side */
  clientEnded: boolean;
  pumpAll(): void;
}

export async function startFaultProxy(targetHost: string, targetPort: number): Promise<FaultProxy> {
  let fault: Fault = { kind: 'none' };
  const pairs = new Set<Pair>();

  const delayFor = (): number => {
    switch (fault.kind) {
      case 'latency':
        return Math.max(0, fault.ms + (Math.random() * 2 - 1) * fault.jitterMs);
      case 'loss': {
        let delay = 0;
        let rto = RTO_MS;
        while (Math.random() < fault.rate) {
          delay += rto;
          rto = Math.min(rto * 2, RTO_MAX_MS);
        }
        return delay;
      }
      default:
        return 0;
    }
  };

  const cut = (p: Pair): void => {
    if (p.closed) return;
    p.closed = true;
    // an RST, not a FIN: the driver must see a broken connection, not an orderly goodbye
    if (!p.client.destroyed) p.client.resetAndDestroy();
    if (!p.upstream.destroyed) {
      if (p.upstream.connecting) p.upstream.destroy();
      else p.upstream.resetAndDestroy();
    }
  };

  /** One direction of a pair: chunks wait here for their delivery time and for an open path. */
  const lane = (p: Pair, from: net.Socket, to: net.Socket, down: boolean): (() => void) => {
    const queue: { chunk: Buffer; readyAt: number }[] = [];
    let queued = 0;
    let lastReadyAt = 0;
    let timer: NodeJS.Timeout | undefined;
    let draining = false;
    let ended = false;

    const pump = (): void => {
      if (timer || draining || p.closed) return;
      while (queue.length > 0) {
        if (fault.kind === 'blackhole') return; // set() pumps again
        const head = queue[0]!;
        const wait = head.readyAt - Date.now();
        if (wait > 0) {
          timer = setTimeout(() => {
            timer = undefined;
            pump();
          }, wait);
          return;
        }
        queue.shift();
        queued -= head.chunk.length;
        let chunk = head.chunk;
        let reset = false;
        if (down && fault.kind === 'reset' && p.down + chunk.length >= fault.afterBytes) {
          chunk = chunk.subarray(0, Math.max(0, fault.afterBytes - p.down));
          reset = true;
        }
        if (down) p.down += chunk.length;
        const ok = chunk.length > 0 ? to.write(chunk) : true;
        if (reset) {
          cut(p);
          return;
        }
        if (from.isPaused() && queued < LOW_WATER && !from.destroyed) from.resume();
        if (!ok) {
          draining = true;
          to.once('drain', () => {
            draining = false;
            pump();
          });
          return;
        }
      }
      if (ended && !to.destroyed) to.end();
    };

    from.on('data', (chunk: Buffer) => {
      const readyAt = Math.max(Date.now() + delayFor(), lastReadyAt);
      lastReadyAt = readyAt;
      queue.push({ chunk, readyAt });
      queued += chunk.length;
      if (queued > HIGH_WATER) from.pause();
      pump();
    });
    from.on('end', () => {
      ended = true;
      if (!down) p.clientEnded = true;
      pump();
    });
    from.on('close', () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    });
    return pump;
  };

  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ host: targetHost, port: targetPort, allowHalfOpen: true });
    const p: Pair = { client, upstream, down: 0, closed: false, clientEnded: false, pumpAll: () => undefined };
    pairs.add(p);
    const up = lane(p, client, upstream, false);
    const downPump = lane(p, upstream, client, true);
    p.pumpAll = () => {
      up();
      downPump();
    };
    const close = (): void => {
      if (p.closed) return;
      p.closed = true;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', () => undefined);
    upstream.on('error', () => {
      // the server went away: the client hears it as abruptly as it happened
      if (!p.closed) cut(p);
    });
    client.on('close', () => {
      pairs.delete(p);
      close();
    });
    upstream.on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as net.AddressInfo).port,
    set(next) {
      fault = next;
      for (const p of pairs) {
        p.down = 0;
        p.pumpAll();
      }
    },
    // a client that sent its FIN and then closed cannot be told from one still reading while a
    // blackhole holds its FIN (no byte goes back to reveal the close), so it counts as gone
    connections: () => [...pairs].filter((p) => !p.clientEnded).length,
    resetAll() {
      for (const p of [...pairs]) cut(p);
    },
    async close() {
      for (const p of [...pairs]) cut(p);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
