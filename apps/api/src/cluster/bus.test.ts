import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec } from '../../test/harness.js';
import { PgBus, type ClusterMessage } from './bus.js';

let db: Awaited<ReturnType<typeof createPgDatabase>>;
let a: PgBus;
let b: PgBus;

beforeAll(async () => {
  db = await createPgDatabase('cluster_bus');
  a = new PgBus({ connectionString: db.url, replicaId: 'bus-a', backoff: { minMs: 20, maxMs: 200 } });
  b = new PgBus({ connectionString: db.url, replicaId: 'bus-b', backoff: { minMs: 20, maxMs: 200 } });
  await a.start();
  await b.start();
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

/** The next message `bus` receives that `pick` accepts. */
function next(bus: PgBus, pick: (m: ClusterMessage) => boolean): Promise<{ m: ClusterMessage; from: string }> {
  return new Promise((resolve) => {
    const off = bus.subscribe((m, from) => {
      if (!pick(m)) return;
      off();
      resolve({ m, from });
    });
  });
}

describe('PgBus', () => {
  it('delivers to the other replicas, never back to the sender', async () => {
    const seenByB: ClusterMessage[] = [];
    const off = b.subscribe((m) => void seenByB.push(m));
    const atA = next(a, (m) => m.t === 'hello');
    await b.publish({ t: 'hello', n: 1 });
    expect(await atA).toEqual({ m: { t: 'hello', n: 1 }, from: 'bus-b' });
    // notifications reach a listener in commit order: had B's own come back, it came before this
    const atB = next(b, (m) => m.t === 'reply');
    await a.publish({ t: 'reply', n: 2 });
    await atB;
    off();
    expect(seenByB).toEqual([{ t: 'reply', n: 2 }]);
  });

  it('sends a message over the 8000-byte NOTIFY limit in parts and puts it back together', async () => {
    // multi-byte characters and quotes: parts are cut in bytes, whatever the characters
    const sql = `SELECT 'é€😀"\\'' AS x, ${'n'.repeat(30_000)}`;
    const atA = next(a, (m) => m.t === 'big');
    await b.publish({ t: 'big', sql });
    const got = await atA;
    expect(got.from).toBe('bus-b');
    expect(got.m).toEqual({ t: 'big', sql });
  });

  it('listens again after its connection is killed, says so, and receives what is sent afterwards', async () => {
    const pid = a.listenerPid;
    expect(pid).toBeTypeOf('number');
    const resynced = new Promise<void>((resolve) => {
      const off = a.onResync(() => {
        off();
        resolve();
      });
    });
    const killed = await pgExec(db.url, `SELECT pg_terminate_backend(${pid}) AS ok`);
    expect(killed.rows[0].ok).toBe(true);
    await resynced;
    expect(a.listenerPid).toBeTypeOf('number');
    expect(a.listenerPid).not.toBe(pid);
    const atA = next(a, (m) => m.t === 'after');
    await b.publish({ t: 'after', n: 3 });
    expect(await atA).toEqual({ m: { t: 'after', n: 3 }, from: 'bus-b' });
    // and it still sends: B hears it
    const atB = next(b, (m) => m.t === 'back');
    await a.publish({ t: 'back' });
    expect((await atB).from).toBe('bus-a');
  });

  it('notices a connection that went silent (no error, no close) by its own ping, and listens again', async () => {
    // a TCP relay to PostgreSQL that can stop passing bytes on the connections it holds, as a
    // NAT or firewall that forgot them would, without closing them
    const u = new URL(db.url);
    const held: net.Socket[] = [];
    const relay = net.createServer((client) => {
      const server = net.connect(Number(u.port || 5432), u.hostname);
      held.push(client, server);
      client.pipe(server);
      server.pipe(client);
      const end = () => {
        client.destroy();
        server.destroy();
      };
      client.on('error', end);
      server.on('error', end);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const via = new URL(db.url);
    via.host = `127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
    const c = new PgBus({
      connectionString: via.toString(),
      replicaId: 'bus-c',
      pingMs: 100,
      backoff: { minMs: 20, maxMs: 200 },
    });
    try {
      await c.start();
      const first = c.listenerPid;
      const resynced = new Promise<void>((resolve) => {
        const off = c.onResync(() => {
          off();
          resolve();
        });
      });
      for (const s of held) {
        s.unpipe();
        s.pause();
      }
      const frozen = held.length;
      await resynced;
      expect(c.listenerPid).not.toBe(first);
      expect(held.length).toBeGreaterThan(frozen);
      const atC = next(c, (m) => m.t === 'heard');
      await b.publish({ t: 'heard' });
      expect((await atC).from).toBe('bus-b');
    } finally {
      for (const s of held) s.destroy();
      await c.close();
      await new Promise((r) => relay.close(r));
    }
  });

  it('ignores notifications on its channel that are not its envelopes', async () => {
    const seen: ClusterMessage[] = [];
    const off = a.subscribe((m) => void seen.push(m));
    await pgExec(
      db.url,
      `SELECT pg_notify('junction_cluster', 'not json'), pg_notify('junction_cluster', '{"f":"x"}')`,
    );
    const atA = next(a, (m) => m.t === 'marker');
    await b.publish({ t: 'marker' });
    await atA;
    off();
    expect(seen).toEqual([{ t: 'marker' }]);
  });
});
