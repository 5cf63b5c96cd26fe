import net from 'node:net';
import type { EngineName, SourceConfig } from '../../src/contract/connector.js';

/** A SourceConfig from a URL such as postgres://user:pass@host:5432/db. */
export function sourceFromUrl(url: string, name: string, overrides: Partial<SourceConfig> = {}): SourceConfig {
  const u = new URL(url);
  const engine: EngineName = u.protocol.startsWith('postgres')
    ? 'postgresql'
    : u.protocol.startsWith('mysql') || u.protocol.startsWith('mariadb')
      ? 'mysql'
      : 'sqlserver';
  return {
    name,
    engine,
    host: u.hostname,
    port: u.port ? Number(u.port) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    ...overrides,
  };
}

export function uniqueName(area: string): string {
  return `jt_${area}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A loopback port nothing listens on: bound by the OS, then released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function collect<T>(it: AsyncIterable<{ rows: T[] }>): Promise<{ rows: T[]; batches: number }> {
  const rows: T[] = [];
  let batches = 0;
  for await (const b of it) {
    batches++;
    rows.push(...b.rows);
  }
  return { rows, batches };
}

/**
 * Polls `check` until it holds or `timeoutMs` passes (then fails with `what`). A stopped
 * statement is cleaned up at the source in the background, so tests wait for that condition
 * instead of expecting it the moment the consumer got its error.
 */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
