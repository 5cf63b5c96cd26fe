import net from 'node:net';

/** Polls `check` until it holds; past `timeoutMs` throws naming what never happened. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  pollMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** A TCP port free on 127.0.0.1 right now, for a private server of a test. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
