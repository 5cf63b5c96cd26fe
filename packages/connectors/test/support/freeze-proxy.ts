import net from 'node:net';

/**
 * A TCP relay in front of a real server that can be frozen: while frozen it still accepts
 * connections (as the kernel does for a SIGSTOPped server) but passes no byte either way,
 * so the server looks exactly like a stopped process. Lets a test freeze its own view of the
 * shared PostgreSQL without stopping the server everyone else uses.
 */
export interface FreezeProxy {
  readonly port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezeProxy(targetHost: string, targetPort: number): Promise<FreezeProxy> {
  let frozen = false;
  const held: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  const relay = (from: net.Socket, to: net.Socket): void => {
    from.on('data', (chunk) => {
      if (frozen) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
    from.on('end', () => (frozen ? held.push(() => to.end()) : to.end()));
    from.on('error', () => to.destroy());
    from.on('close', () => to.destroy());
  };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const open = (): void => {
      const upstream = net.connect(targetPort, targetHost);
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      relay(client, upstream);
      relay(upstream, client);
    };
    client.pause();
    const start = (): void => {
      open();
      client.resume();
    };
    if (frozen) held.push(start);
    else start();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const f of held.splice(0)) f();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
