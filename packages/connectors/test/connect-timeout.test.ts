import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineName } from '../src/contract/connector.js';
import { createConnector } from '../src/create-connector.js';

// A listener that accepts connections and never says a word: the driver's handshake waits,
// so only the connect timeout can end the attempt. (No unroutable address is used.)
let server: net.Server;
let port: number;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe.each<EngineName>(['postgresql', 'mysql', 'sqlserver'])('%s against a silent server', (engine) => {
  it('answers timeout within the connect timeout', async () => {
    const c = createConnector({
      name: 'silent',
      engine,
      host: '127.0.0.1',
      port,
      database: 'x',
      user: 'u',
      password: 'S3cret-timeout-pw',
      options: { connectTimeoutMs: 700 },
    });
    const started = Date.now();
    const d = await c.test();
    const elapsed = Date.now() - started;
    await c.close();
    expect(d).toMatchObject({ ok: false, code: 'timeout' });
    if (!d.ok) {
      expect(d.message).toBe(`No answer from 127.0.0.1:${port} (source "silent") within 700 ms.`);
      expect(d.message + d.hint).not.toContain('S3cret-timeout-pw');
    }
    // the deadline is the connect timeout plus a small grace, never the driver's default
    expect(elapsed).toBeLessThan(5000);
  });
});
