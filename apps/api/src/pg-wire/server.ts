import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { BackendError, MessageBuffer, verifyScramSha256Password, type ScramSha256Data } from 'pg-gateway';
import { fromDuplexStream } from 'pg-gateway/node';
import { isJunctionError, type CatalogSnapshot } from '@junction/connectors';
import { recordHistory } from '../routes/query.js';
import { visibleSchemas } from '../lib/view-visibility.js';
import type { Principal } from '../plugins/auth.js';
import { CatalogShadow, type ShadowCatalog, type ShadowRelation } from './catalog/shadow.js';
import { WireAuth } from './auth.js';
import { Output } from './messages.js';
import { WireSession, type WireBackend } from './session.js';
import { pgTypeName, typeOfText } from './types.js';

/** What the embedded PostgreSQL of the shadow catalog is; psql shapes its \d queries by it. */
export const SERVER_VERSION = '18.6 (Junction)';

export interface PgWireOptions {
  readonly host: string;
  /** 0: pick a free port (tests) */
  readonly port: number;
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
  /** the server's key: an unknown user's fake SCRAM salt stays the same across restarts and replicas */
  readonly secret?: Buffer;
  /** open connections at most (JUNCTION_PG_MAX_CONNECTIONS); more are refused with 53300 */
  readonly maxConnections?: number;
  /** a connection not signed in by then is closed (PostgreSQL's authentication_timeout) */
  readonly authenticationTimeoutMs?: number;
}

export interface PgWireServer {
  readonly port: number;
  readonly sessions: number;
  close(): Promise<void>;
}

const CANCEL_REQUEST = 80877102;
const GSSENC_REQUEST = 80877104;

const EMPTY = new Uint8Array(0);

/**
 * A session's replies as pg-gateway takes them: a message answered only into the session's
 * buffer (Parse, Bind before Sync) yields nothing, and pg-gateway would then answer it itself
 * with "not implemented"; an empty chunk as the return value tells it the message was handled.
 */
async function* replies(chunks: AsyncGenerator<Buffer>): AsyncGenerator<Uint8Array, Uint8Array | undefined> {
  let any = false;
  for await (const c of chunks) {
    any = true;
    yield c;
  }
  return any ? undefined : EMPTY;
}

/** The first 8 bytes of a connection (16 for a CancelRequest); null when it closes first. */
function readStart(socket: Socket): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const done = (v: Buffer | null) => {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      resolve(v);
    };
    const onData = (d: Buffer) => {
      got = got.length ? Buffer.concat([got, d]) : Buffer.from(d);
      if (got.length < 8) return;
      const want = got.readInt32BE(4) === CANCEL_REQUEST ? 16 : 8;
      if (got.length >= want) done(got);
    };
    const onClose = () => done(null);
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

/**
 * The socket as the web streams pg-gateway reads and writes until sign-in, then handed to the
 * session: its bytes framed by pg-gateway's MessageBuffer, its replies written to the socket as
 * they come, with the socket's back-pressure.
 */
function handover(socket: Socket): {
  duplex: { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> };
  takeOver(session: WireSession): void;
} {
  let mine: ((d: Buffer) => void) | undefined;
  let ended = false;
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      socket.on('data', (d: Buffer) => {
        if (mine) return mine(d);
        if (ended) return;
        try {
          controller.enqueue(new Uint8Array(d));
        } catch {
          // the reader cancelled the stream (the TLS layer on top of it was destroyed)
          return;
        }
        if ((controller.desiredSize ?? 1) <= 0) socket.pause();
      });
      const end = () => {
        if (mine || ended) return;
        ended = true;
        try {
          controller.close();
        } catch {
          // already cancelled by its reader
        }
      };
      socket.once('end', end);
      socket.once('close', end);
    },
    pull() {
      if (!mine) socket.resume();
    },
    cancel() {
      ended = true;
    },
  });
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, reject) => socket.write(chunk, (e) => (e ? reject(e) : resolve()))),
    close: () => new Promise<void>((resolve) => socket.end(resolve)),
    abort: () => void socket.destroy(),
  });
  return {
    duplex: { readable, writable },
    takeOver(session) {
      const framing = new MessageBuffer();
      let chain = Promise.resolve();
      const feed = async (d: Buffer) => {
        // a copy: MessageBuffer reads lengths through its buffer's ArrayBuffer from offset 0
        framing.mergeBuffer(new Uint8Array(d));
        for await (const m of framing.processMessages(true)) {
          if (m[0] === 88 /* Terminate */) {
            socket.end();
            return;
          }
          for await (const out of session.handle(Buffer.from(m.buffer, m.byteOffset, m.byteLength))) {
            // a link that breaks while waiting ends the session's rows (close() stops the query)
            if (!socket.write(out)) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
            if (socket.destroyed) return;
          }
        }
      };
      mine = (d) => {
        socket.pause();
        chain = chain
          .then(() => feed(d))
          .then(
            () => void socket.resume(),
            () => void socket.destroy(),
          );
      };
      socket.resume();
    },
  };
}

function isSslRequest(data: Uint8Array): boolean {
  return data.byteLength === 8 && Buffer.from(data.buffer, data.byteOffset, 8).readInt32BE(4) === 80877103;
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/**
 * Junction's PostgreSQL port: pg-gateway frames messages and runs TLS and the sign-in
 * exchange; each signed-in connection is a WireSession over the same query service, grants,
 * admission, limits and history as POST /api/v1/query.
 */
export async function startPgWire(app: FastifyInstance, options: PgWireOptions): Promise<PgWireServer> {
  const auth = new WireAuth(app, options.secret ? { secret: options.secret } : {});
  const shadow = new CatalogShadow();
  const sessions = new Map<number, { session: WireSession; secret: number }>();
  const sockets = new Set<Socket>();
  const signedIn = new WeakSet<Socket>();
  const catalogs = new Map<string, { at: number; catalog: Promise<ShadowCatalog> }>();

  const backend: WireBackend = {
    startQuery: (p, sql, opts) => app.junction.startQuery(p, sql, opts),
    describe: (p, sql) => app.junction.describe(p, sql),
    explain: (p, sql, opts) => app.junction.explain(p, sql, { analyze: opts.analyze, signal: opts.signal }),
    record: (p, entry) => recordHistory(app, p, entry),
    current: (p) => auth.current(p),
    catalog: (p) => {
      // a catalog question comes in bursts (psql's \d sends several): one read per second per caller
      const key = `${p.userId}\u0000${p.tokenId ?? ''}`;
      const hit = catalogs.get(key);
      if (hit && Date.now() - hit.at < 1000) return hit.catalog;
      const catalog = shadowCatalogOf(app, p);
      catalogs.set(key, { at: Date.now(), catalog });
      if (catalogs.size > 1000) catalogs.delete(catalogs.keys().next().value as string);
      catalog.catch(() => catalogs.delete(key));
      return catalog;
    },
    shadow,
  };

  const maxConnections = options.maxConnections ?? 200;
  const server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    if (sockets.size >= maxConnections) {
      // PostgreSQL answers a start-up beyond max_connections with this before anything else
      // destroyed once written: a client that keeps its side open must hold neither a socket nor close()
      socket.end(
        new Output().error({ severity: 'FATAL', sqlstate: '53300', message: 'sorry, too many clients already' }).take(),
        () => socket.destroy(),
      );
      return;
    }
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    // a client that never finishes signing in does not keep its socket forever
    const signIn = setTimeout(() => {
      if (!signedIn.has(socket)) socket.destroy();
    }, options.authenticationTimeoutMs ?? 60_000);
    signIn.unref();
    socket.once('close', () => clearTimeout(signIn));
    void serve(socket).catch((e: unknown) => {
      app.log.warn({ err: e }, 'pg-wire connection failed');
      socket.destroy();
    });
  });

  async function serve(socket: Socket): Promise<void> {
    // a CancelRequest (and a GSSENCRequest, answered 'N') comes before any start-up: pg-gateway
    // knows neither, so they are read here and the rest is handed over unread
    for (;;) {
      const head = await readStart(socket);
      if (!head) return;
      const code = head.readInt32BE(4);
      if (code === CANCEL_REQUEST && head.length >= 16) {
        const target = sessions.get(head.readInt32BE(8));
        if (target && target.secret === head.readInt32BE(12)) target.session.cancel();
        socket.end();
        return;
      }
      if (code === GSSENC_REQUEST) {
        socket.write('N');
        if (head.length > 8) socket.unshift(head.subarray(8));
        continue;
      }
      socket.unshift(head);
      break;
    }
    let session: WireSession | undefined;
    let pid = 0;
    let principal: Principal | undefined;
    let scramOk = false;
    const remote = socket.remoteAddress ?? '';
    const link = { tls: false, loopback: isLoopback(remote) };
    let method: 'password' | 'scram-sha-256' = 'password';
    let scram: ScramSha256Data | undefined;
    // pg-gateway reads `auth` when the start-up message arrives, after onStartup chose it
    const authOptions = {
      get method() {
        return method;
      },
      getClearTextPassword: () => '',
      validateCredentials: async (c: {
        username: string;
        password?: string;
        authMessage?: string;
        clientProof?: string;
      }) => {
        try {
          if (method === 'password') principal = await auth.signInPassword(c.username, c.password ?? '', remote);
          else {
            scramOk = await verifyScramSha256Password({
              authMessage: c.authMessage!,
              clientProof: c.clientProof!,
              storedKey: scram!.storedKey,
            });
            principal = await auth.signInScram(c.username, scramOk, remote);
          }
          return true;
        } catch (e) {
          // PostgreSQL's own answer to a wrong password (pg-gateway's SCRAM failure says 28000)
          if (isJunctionError(e) && e.code === 'bad_credentials')
            throw BackendError.create({
              severity: 'FATAL',
              code: '28P01',
              message: `password authentication failed for user "${c.username}"`,
            });
          throw BackendError.create({
            severity: 'FATAL',
            code: '28000',
            message: isJunctionError(e) ? e.message : 'sign-in failed',
          });
        }
      },
      getScramSha256Data: () => scram!,
    };
    const link_ = handover(socket);
    const connection = await fromDuplexStream(link_.duplex, {
      serverVersion: SERVER_VERSION,
      auth: authOptions as never,
      ...(options.tls ? { tls: { key: options.tls.key, cert: options.tls.cert } as never } : {}),
      onTlsUpgrade: () => {
        link.tls = true;
      },
      onStartup: async (state) => {
        const user = state.clientParams?.user ?? '';
        const chosen = await auth.method(user, link);
        if (chosen === 'password') method = 'password';
        else if ('scram' in chosen) {
          method = 'scram-sha-256';
          scram = chosen.scram;
        } else throw BackendError.create({ severity: 'FATAL', code: '28000', message: chosen.refuse });
      },
      onAuthenticated: async (state) => {
        signedIn.add(socket);
        session = new WireSession(backend, principal!, state.clientParams ?? { user: '' });
        do pid = randomInt(1, 2 ** 31 - 1);
        while (sessions.has(pid));
        const secret = randomInt(0, 2 ** 31 - 1);
        sessions.set(pid, { session, secret });
        const greeting = session.greeting(pid, secret, SERVER_VERSION);
        if (!link.tls) {
          // a plain link is Junction's from here: pg-gateway drops what it would still write
          // (server_version, ReadyForQuery), so both go out with the greeting, and the socket's
          // bytes come to the session without web streams or a write per message in between
          await connection.detach();
          link_.takeOver(session);
          socket.write(
            Buffer.concat([
              greeting,
              new Output().parameterStatus('server_version', SERVER_VERSION).readyForQuery('I').take(),
            ]),
          );
          return;
        }
        // inside TLS pg-gateway keeps the link: ParameterStatus and BackendKeyData belong between
        // AuthenticationOk and ReadyForQuery, which it writes around this hook with this writer
        await (connection as unknown as { streamWriter: WritableStreamDefaultWriter<Uint8Array> }).streamWriter.write(
          greeting,
        );
      },
      // a method, not an arrow: pg-gateway calls it on its copy of these options, which `this` is
      onMessage(this: { tls?: unknown }, data, state) {
        // pg-gateway refuses every plain start-up once TLS is configured; Junction's rule is
        // narrower (a plain link off loopback may still sign in with SCRAM), so TLS is required
        // by WireAuth's choice of method rather than by the library
        if (!state.hasStarted && !state.tlsInfo && !isSslRequest(data)) this.tls = undefined;
        if (!state.isAuthenticated || !session) return undefined;
        if (data[0] === 88 /* Terminate */) return undefined;
        return replies(session.handle(Buffer.from(data.buffer, data.byteOffset, data.byteLength)));
      },
    });
    void connection;
    socket.once('close', () => {
      session?.close();
      if (pid) sessions.delete(pid);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    get sessions() {
      return sessions.size;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      for (const { session } of sessions.values()) session.close();
      sessions.clear();
      await shadow.close();
    },
  };
}

/**
 * The caller's catalog as PostgreSQL schemas: each readable source's default schema under the
 * source's name (`"dbA"."region"`, as Junction's SQL names it), each virtual schema with the
 * views the caller may see. Nothing the caller may not read is in it.
 */
export async function shadowCatalogOf(app: FastifyInstance, p: Principal): Promise<ShadowCatalog> {
  const policy = await app.junction.accessPolicy(p);
  const rows = await app.db.source.findMany({ orderBy: { name: 'asc' } });
  const relations: ShadowRelation[] = [];
  const schemas: string[] = [];
  for (const s of rows) {
    if (!policy.canReadSource(s.name) || !s.catalog) continue;
    const catalog = JSON.parse(s.catalog) as CatalogSnapshot;
    schemas.push(s.name);
    for (const t of catalog.tables) {
      if (t.schema !== catalog.defaultSchema) continue;
      relations.push({
        schema: s.name,
        name: t.name,
        kind: t.kind,
        columns: t.columns.map((c) => ({ name: c.name, pgType: pgTypeName(c.type), nullable: c.nullable })),
        ...(t.primaryKey?.length ? { primaryKey: [...t.primaryKey] } : {}),
      });
    }
  }
  for (const vs of await visibleSchemas(app, p)) {
    schemas.push(vs.name);
    for (const v of vs.visible) {
      const columns = v.columns ? (JSON.parse(v.columns) as { name: string; type: string; nullable: boolean }[]) : [];
      relations.push({
        schema: vs.name,
        name: v.name,
        kind: 'view',
        columns: columns.map((c) => ({ name: c.name, pgType: pgTypeName(typeOfText(c.type)), nullable: c.nullable })),
      });
    }
  }
  return { relations, searchPath: [...new Set(schemas)].sort() };
}
