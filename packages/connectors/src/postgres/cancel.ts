import net from 'node:net';

/**
 * Sends PostgreSQL's CancelRequest for one backend over a fresh socket (the protocol's own
 * way: it needs no free pool connection and no authentication). Resolves once the server
 * closed the socket, i.e. after it signalled the backend, so a connection is only reused
 * after the cancel can no longer hit its next statement.
 */
export function sendCancelRequest(
  host: string,
  port: number,
  processID: number,
  secretKey: number,
  timeoutMs = 5000,
): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('connect', () => {
      const msg = Buffer.alloc(16);
      msg.writeInt32BE(16, 0);
      msg.writeInt32BE(80877102, 4);
      msg.writeInt32BE(processID, 8);
      msg.writeInt32BE(secretKey, 12);
      socket.end(msg);
    });
    socket.on('close', done);
    socket.on('error', done);
  });
}
