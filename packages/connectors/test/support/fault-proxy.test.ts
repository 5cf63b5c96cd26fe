import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

// The relay itself, against a tiny local server: an echo, and on "big\n" a 1 MiB answer whose
// byte i is i % 251, so a lost, doubled or reordered chunk shows as a wrong byte.

const BIG = 1 << 20;
const pattern = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

let server: net.Server;
let proxy: FaultProxy;
const open = new Set<net.Socket>();

beforeAll(async () => {
  server = net.createServer((s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => undefined);
    s.on('data', (d) => {
      if (d.toString() === 'big\n') s.write(pattern(BIG));
      else s.write(d);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy = await startFaultProxy('127.0.0.1', (server.address() as net.AddressInfo).port);
});
afterEach(() => proxy.set({ kind: 'none' }));
afterAll(async () => {
  await proxy.close();
  for (const s of open) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Conn {
  socket: net.Socket;
  received(): Buffer;
  /** resolves with the error code the socket failed with, or 'closed' */
  ended: Promise<string>;
  waitFor(n: number, timeoutMs?: number): Promise<Buffer>;
}

async function connect(): Promise<Conn> {
  const socket = net.connect(proxy.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  let size = 0;
  const listeners = new Set<() => void>();
  socket.on('data', (d: Buffer) => {
    chunks.push(d);
    size += d.length;
    for (const l of listeners) l();
  });
  const ended = new Promise<string>((resolve) => {
    socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    socket.on('close', () => resolve('closed'));
  });
  return {
    socket,
    received: () => Buffer.concat(chunks),
    ended,
    waitFor: (n, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (size < n) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(Buffer.concat(chunks));
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`only ${size} of ${n} bytes within ${timeoutMs} ms`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}

const until = async (what: string, check: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('fault proxy', () => {
  it('relays both ways untouched and counts its connections', async () => {
    const c = await connect();
    await until('the connection is counted', () => proxy.connections() === 1);
    c.socket.write('hello\n');
    expect((await c.waitFor(6)).toString()).toBe('hello\n');
    c.socket.write('big\n');
    expect((await c.waitFor(6 + BIG)).subarray(6).equals(pattern(BIG))).toBe(true);
    c.socket.end();
    await c.ended;
    await until('the connection is gone', () => proxy.connections() === 0);
  });

  it('latency delays every chunk each way and keeps their order', async () => {
    proxy.set({ kind: 'latency', ms: 100, jitterMs: 50 });
    const c = await connect();
    const t0 = performance.now();
    c.socket.write('ping\n');
    await c.waitFor(5);
    // at least (100 - 50) ms each way; only a lower bound, the machine may be slower
    expect(performance.now() - t0).toBeGreaterThanOrEqual(100 - 5);
    const words = Array.from({ length: 40 }, (_, i) => `w${i};`);
    for (const w of words) {
      c.socket.write(w);
      await new Promise((r) => setTimeout(r, 2));
    }
    const expected = 'ping\n' + words.join('');
    expect((await c.waitFor(expected.length)).toString()).toBe(expected);
    c.socket.destroy();
  });

  it('loss delays lost chunks by a retransmission but delivers every byte once and in order', async () => {
    proxy.set({ kind: 'loss', rate: 0.3 });
    const c = await connect();
    c.socket.write('big\n');
    expect((await c.waitFor(BIG, 60_000)).equals(pattern(BIG))).toBe(true);
    c.socket.destroy();
  });

  it('reset cuts a connection with an RST after afterBytes server → client', async () => {
    const c = await connect();
    c.socket.write('warm\n');
    await c.waitFor(5);
    // counted from set(): the 5 bytes already relayed do not count
    proxy.set({ kind: 'reset', afterBytes: 100_000 });
    c.socket.write('big\n');
    expect(await c.ended).toBe('ECONNRESET');
    const got = c.received();
    expect(got.length).toBeLessThanOrEqual(5 + 100_000);
    expect(got.subarray(5).equals(pattern(got.length - 5))).toBe(true);
    await until('the connection is gone', () => proxy.connections() === 0);
  });

  it('blackhole holds existing and new connections open and silent; healing delivers what was held', async () => {
    const before = await connect();
    proxy.set({ kind: 'blackhole' });
    const during = await connect();
    before.socket.write('one\n');
    during.socket.write('two\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(before.received().length).toBe(0);
    expect(during.received().length).toBe(0);
    expect(proxy.connections()).toBe(2);
    proxy.set({ kind: 'none' });
    expect((await before.waitFor(4)).toString()).toBe('one\n');
    expect((await during.waitFor(4)).toString()).toBe('two\n');
    before.socket.destroy();
    during.socket.destroy();
    await until('the connections are gone', () => proxy.connections() === 0);
  });

  it('resetAll drops every connection with an RST', async () => {
    const a = await connect();
    const b = await connect();
    await until('both are counted', () => proxy.connections() === 2);
    proxy.resetAll();
    expect(await a.ended).toBe('ECONNRESET');
    expect(await b.ended).toBe('ECONNRESET');
    await until('the connections are gone', () => proxy.connections() === 0);
    // the relay itself keeps accepting
    const c = await connect();
    c.socket.write('again\n');
    expect((await c.waitFor(6)).toString()).toBe('again\n');
    c.socket.destroy();
  });
});
