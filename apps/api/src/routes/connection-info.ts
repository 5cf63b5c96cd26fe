import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../lib/schemas.js';

/** Where Junction's PostgreSQL wire-protocol listener is bound (JUNCTION_PG_PORT, HOST, JUNCTION_PG_TLS_*). */
export interface PgWireInfo {
  /** the address it is bound on, HOST: 0.0.0.0 or :: mean every interface */
  host: string;
  port: number;
  /** whether it offers TLS (JUNCTION_PG_TLS_CERT and JUNCTION_PG_TLS_KEY are set) */
  tls: boolean;
}

/** The listener's settings, or a function that reads them when asked (it may start after the app is built). */
export type PgWireOption = PgWireInfo | null | (() => PgWireInfo | null);

/** The one database the listener serves; sources are its schemas. */
export const PG_WIRE_DATABASE = 'junction';

export const ConnectionInfo = Type.Object({
  pgWire: Type.Object({
    enabled: Type.Boolean({ description: 'false when JUNCTION_PG_PORT is 0 (or the server was started without it)' }),
    host: Type.String({
      description:
        'the host to connect to: the address the listener is bound on, or the host this request was sent to when it listens on every interface',
    }),
    port: Type.Union([Type.Integer(), Type.Null()], { description: 'null when the listener is off' }),
    tls: Type.Boolean({ description: 'whether the listener offers TLS' }),
    database: Type.Literal(PG_WIRE_DATABASE),
  }),
  username: Type.String({ description: 'the signed-in user: the user name to connect with' }),
  canQuery: Type.Boolean({
    description: 'whether the caller may run SQL there (the query permission); a viewer may connect but every statement is refused',
  }),
});
export type ConnectionInfoReply = Static<typeof ConnectionInfo>;

// 0.0.0.0 and :: (and their spellings) bind every interface: no client can connect to them as such
const BIND_ALL = new Set(['', '0.0.0.0', '::', '[::]', '::0', '0:0:0:0:0:0:0:0']);
// what a host name or an IP address may hold; anything else in a Host header is not shown
const HOST_CHARS = /^[A-Za-z0-9._:%-]{1,253}$/;

const unbracket = (h: string) => (h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h);

/**
 * The host the browser used for this request, without its port (and an IPv6 address without its
 * brackets, as libpq's host= wants it). Behind a trusted proxy that is its X-Forwarded-Host.
 * Without a usable Host header: the server's own address on this connection.
 */
export function requestHost(request: FastifyRequest): string {
  const named = unbracket(request.hostname ?? '');
  if (HOST_CHARS.test(named)) return named;
  const local = request.raw.socket?.localAddress ?? '';
  const plain = local.startsWith('::ffff:') ? local.slice('::ffff:'.length) : local;
  return HOST_CHARS.test(plain) && !BIND_ALL.has(plain) ? plain : 'localhost';
}

/**
 * How to reach Junction with psql, JDBC and other PostgreSQL clients: the studio shows it on the
 * Sources page. Readable by every signed-in user (it holds nothing but an address and their name).
 */
export default async function connectionInfoRoutes(
  app: FastifyInstance,
  opts: { pgWire?: PgWireOption },
): Promise<void> {
  // port 0 is JUNCTION_PG_PORT's "off", whoever passes it on
  const settings = (): PgWireInfo | null => {
    const pg = (typeof opts.pgWire === 'function' ? opts.pgWire() : opts.pgWire) ?? null;
    return pg && pg.port > 0 ? pg : null;
  };

  app.get(
    '/connection-info',
    {
      schema: {
        tags: ['meta'],
        summary: "How to connect to Junction's PostgreSQL listener (psql, JDBC) as the signed-in user",
        response: { 200: ConnectionInfo, ...errors() },
      },
    },
    async (request): Promise<ConnectionInfoReply> => {
      const pg = settings();
      const bound = pg ? unbracket(pg.host.trim()) : '';
      const host = pg && !BIND_ALL.has(bound) ? bound : requestHost(request);
      return {
        pgWire: pg
          ? { enabled: true, host, port: pg.port, tls: pg.tls, database: PG_WIRE_DATABASE }
          : { enabled: false, host, port: null, tls: false, database: PG_WIRE_DATABASE },
        username: request.principal!.username,
        canQuery: request.principal!.permissions.has('query'),
      };
    },
  );
}
