import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Db } from './db/client.js';
import { JunctionError } from '@junction/connectors';
import { installErrorHandler } from './lib/errors.js';
import { checkRouteAccess, routePermissionHook } from './lib/route-permissions.js';
import authPlugin, { CSRF_COOKIE, CSRF_HEADER } from './plugins/auth.js';
import clusterPlugin, { type ClusterOptions } from './plugins/cluster.js';
import trinoPlugin from './plugins/trino.js';
import type { TrinoBackendSettings } from './services/trino-backend.js';
import engineRoutes from './routes/engines.js';
import cryptoPlugin from './plugins/crypto.js';
import dbPlugin from './plugins/db.js';
import enginePlugin from './plugins/engine.js';
import principalsPlugin from './plugins/principals.js';
import recordsPlugin from './plugins/records.js';
import securityHeaders from './plugins/security-headers.js';
import adminRoutes from './routes/admin.js';
import authRoutes from './routes/auth.js';
import benchmarkRoutes from './routes/benchmarks.js';
import catalogRoutes from './routes/catalog.js';
import limitRoutes from './routes/limits.js';
import queryRoutes from './routes/query.js';
import savedRoutes from './routes/saved.js';
import sourceRoutes from './routes/sources.js';
import cacheRoutes from './routes/cache.js';
import connectionInfoRoutes, { type PgWireOption } from './routes/connection-info.js';
import materializationRoutes from './routes/materializations.js';
import materializerPlugin from './plugins/materializer.js';
import type { MvStoreChoice } from './services/mv-store/config.js';
import viewRoutes from './routes/views.js';
import type { RecordWriterOptions } from './lib/record-writer.js';
import { SourceAllow } from './lib/source-allow.js';
import { FileAccess } from './lib/file-access.js';
import type { LockoutPolicy } from './lib/login-throttle.js';
import { fastifyTrustProxy, type TrustProxy } from './lib/trust-proxy.js';
import { DEFAULT_LIMITS, type ConnectorFactory, type EngineFactory, type JunctionLimits } from './services/junction.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_WEB_DIST = path.resolve(here, '../../web/dist');

export interface AppOptions {
  db: Db;
  secretKey: Buffer;
  limits?: Partial<JunctionLimits>;
  engineFactory?: EngineFactory;
  connectorFactory?: ConnectorFactory;
  /** the built web app; served with SPA fallback when the folder exists */
  webDist?: string | null;
  /** origins allowed by CORS; none by default (the web app is same-origin) */
  corsOrigins?: string[];
  bodyLimit?: number;
  logger?: FastifyServerOptions['logger'];
  /**
   * proxies whose X-Forwarded-For/-Proto are believed (JUNCTION_TRUST_PROXY, lib/trust-proxy.ts):
   * a number of hops or their addresses; never every hop, or any client could pick its address
   */
  trustProxy?: TrustProxy;
  /** session cookies Secure: true always, false never, undefined over https or behind a trusted proxy */
  secureCookies?: boolean;
  /** per-account sign-in lock-out (JUNCTION_SIGNIN_LOCKOUT); null: none; default 10 failures in 15 min */
  signInLockout?: LockoutPolicy | null;
  /** Junction's own store of materialized views (an SQLite file); default a temporary one */
  materializeFile?: string;
  /** a PostgreSQL store of materialized views every replica reads (JUNCTION_MV_STORE); wins over materializeFile */
  materializeStore?: MvStoreChoice;
  /** sign-in and password-change requests one client address may make per minute (default 30) */
  signInsPerMinute?: number;
  /** how query history and audit rows are batched (tests slow it down to see it) */
  records?: RecordWriterOptions;
  /**
   * Junction's data directory (JUNCTION_DATA_DIR): no source file may point into it but for its
   * sqlite/ folder. Without it (tests, embedding) there is nothing of Junction's to protect.
   */
  dataDir?: string;
  /** JUNCTION_SOURCE_ALLOW: the hosts, CIDRs and folders sources may point at (lib/source-allow.ts) */
  sourceAllow?: string;
  /**
   * JUNCTION_FILE_ROOTS: the folders (path.delimiter-separated) file and document sources may read
   * under; default `<dataDir>/files`, none without a data directory (lib/file-access.ts)
   */
  fileRoots?: string;
  /** JUNCTION_URL_HOSTS: the hosts (comma-separated, host or host:port) document sources may fetch from; default none */
  urlHosts?: string;
  /** how long a source preview may take before it answers preview_timeout (default 15 s; tests shorten it) */
  previewTimeoutMs?: number;
  /**
   * Junction's PostgreSQL wire-protocol listener as GET /api/v1/connection-info shows it: its bind
   * address (HOST), port (JUNCTION_PG_PORT) and whether it offers TLS (JUNCTION_PG_TLS_CERT/KEY), or
   * a function that reads them when asked. Absent or null: the listener is off.
   */
  pgWire?: PgWireOption;
  /**
   * Several servers on one PostgreSQL metadata database (DATABASE_URL): how this one joins them
   * (plugins/cluster.ts). Absent (SQLite metadata, one server): nothing of the cluster runs.
   */
  cluster?: ClusterOptions;
  /** the Trino execution backend (JUNCTION_TRINO_URL, services/trino-backend.ts); absent: queries run in Junction only */
  trino?: TrinoBackendSettings;
}

const API_DESCRIPTION = `Junction's REST API. Every route is under /api/v1.

Authentication: either \`Authorization: Bearer <token>\` (create tokens with POST /api/v1/tokens) or the
session cookie set by POST /api/v1/auth/login.

CSRF: requests authenticated by the session cookie that change something (POST, PUT, PATCH, DELETE) must
send the header \`${CSRF_HEADER}\` whose value is the CSRF token: it is in the login reply and GET
/api/v1/auth/me (\`csrfToken\`) and in the readable cookie \`${CSRF_COOKIE}\`. Bearer requests need no CSRF header.

Errors: \`{code, kind, message, position?, details?}\`; kind decides the status: user 400, auth 401,
forbidden 403, not_found 404, conflict 409, unsupported 422, cancelled 499, internal 500, external 502,
resources 503 (with Retry-After), timeout 504. A query over its caller's concurrency limit (the
token's, the user's, the role's or the default; see /api/v1/limits) waits in a bounded queue and, if no
slot frees in time, is refused with 429 Too Many Requests (code user_concurrency_limit, with
Retry-After). A validation error names the field in details.field.`;

declare module 'fastify' {
  interface FastifyInstance {
    /** every API route as `METHOD url`, each one checked against ROUTE_PERMISSIONS */
    apiRoutes: ReadonlySet<string>;
  }
}

/** Seconds a client is told to wait when it calls during shutdown (a restart, or another instance). */
const SHUTDOWN_RETRY_SECONDS = 5;

/** Builds the app: external plugins, then Junction's service plugins, then routes. Does not listen. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  // before anything starts: an unreadable JUNCTION_SOURCE_ALLOW stops the server
  const sourceAllow = SourceAllow.parse(opts.sourceAllow, opts.dataDir);
  const fileAccess = FileAccess.parse(opts.fileRoots, opts.urlHosts, opts.dataDir);
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    trustProxy: fastifyTrustProxy(opts.trustProxy),
    // unknown fields are errors, not silently dropped; values are never coerced (a parameter 1 stays a number)
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // ids of log lines, not of anything a client could guess its way into
    genReqId: () => crypto.randomUUID(),
    // requests arriving while the server closes get Junction's error body (below), not Fastify's
    return503OnClosing: false,
  });
  installErrorHandler(app);
  // before any route is registered: every API route must have an entry in ROUTE_PERMISSIONS
  const apiRoutes = new Set<string>();
  app.decorate('apiRoutes', apiRoutes);
  app.addHook('onRoute', routePermissionHook(apiRoutes));
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new JunctionError('shutting_down', 'resources', 'The server is shutting down; try again shortly.', {
      details: { retryAfterSeconds: SHUTDOWN_RETRY_SECONDS },
    });
  });
  // JSON only: a cross-site <form> can send text/plain or urlencoded bodies without a preflight
  app.removeContentTypeParser('text/plain');

  // external plugins
  await app.register(securityHeaders, {
    helmet: {
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          // Monaco and React Flow set inline styles; Monaco starts its workers from blob: URLs
          styleSrc: ["'self'", "'unsafe-inline'"],
          workerSrc: ["'self'", 'blob:'],
          imgSrc: ["'self'", 'data:', 'blob:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          frameAncestors: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          // over plain HTTP on a LAN address this would make browsers fetch /assets/* over https and fail
          upgradeInsecureRequests: null,
        },
      },
      crossOriginEmbedderPolicy: false,
      // HSTS only on HTTPS replies (below): sent over plain HTTP it pins nothing and misleads
      hsts: false,
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    done();
  });
  await app.register(cors, {
    origin: opts.corsOrigins && opts.corsOrigins.length ? opts.corsOrigins : false,
    credentials: true,
  });
  await app.register(cookie);
  await app.register(rateLimit, { global: false });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Junction API', version: '1', description: API_DESCRIPTION },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          session: { type: 'apiKey', in: 'cookie', name: 'junction_session' },
        },
      },
      security: [{ bearer: [] }, { session: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: false });

  // app plugins
  await app.register(dbPlugin, { db: opts.db });
  await app.register(cryptoPlugin, { secretKey: opts.secretKey });
  await app.register(recordsPlugin, { options: opts.records });
  await app.register(principalsPlugin);
  await app.register(authPlugin, {
    secureCookies: opts.secureCookies,
    behindProxy: Boolean(opts.trustProxy),
    lockout: opts.signInLockout,
  });
  // after the auth plugin's hook has found the caller, before the body is parsed or validated
  app.addHook('onRequest', checkRouteAccess(app));
  await app.register(enginePlugin, {
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    engineFactory: opts.engineFactory,
    connectorFactory: opts.connectorFactory,
  });
  // the allow-list holds for every connection, a stored source's at start-up and health checks too
  app.junction.gate.allow = {
    check: async (config) => {
      await sourceAllow.check(config);
      await fileAccess.check(config);
    },
  };
  app.junction.gate.configure = (config) => fileAccess.apply(config);
  await app.register(materializerPlugin, { file: opts.materializeFile, store: opts.materializeStore });
  await app.register(clusterPlugin, { cluster: opts.cluster });
  await app.register(trinoPlugin, { settings: opts.trino });

  // routes
  await app.register(
    async (api) => {
      api.get(
        '/health',
        {
          schema: {
            tags: ['meta'],
            security: [],
            response: { 200: Type.Object({ ok: Type.Boolean(), version: Type.String() }) },
          },
        },
        async () => ({ ok: true, version: '0.1.0' }),
      );
      await api.register(authRoutes, { attemptsPerMinute: opts.signInsPerMinute });
      await api.register(adminRoutes);
      await api.register(limitRoutes);
      await api.register(sourceRoutes, {
        allow: sourceAllow,
        files: fileAccess,
        previewTimeoutMs: opts.previewTimeoutMs,
      });
      await api.register(catalogRoutes);
      await api.register(queryRoutes);
      await api.register(savedRoutes);
      await api.register(viewRoutes);
      await api.register(benchmarkRoutes);
      await api.register(cacheRoutes);
      await api.register(materializationRoutes);
      await api.register(connectionInfoRoutes, { pgWire: opts.pgWire });
      await api.register(engineRoutes);
    },
    { prefix: '/api/v1' },
  );

  const webDist = opts.webDist === undefined ? DEFAULT_WEB_DIST : opts.webDist;
  const serveWeb = Boolean(webDist && existsSync(path.join(webDist, 'index.html')));
  // preCompressed: the build writes .br and .gz beside each asset (apps/web/vite.config.ts), so the
  // 3.4 MB editor chunk goes out at a fraction of that without compressing on every request
  if (serveWeb)
    await app.register(fastifyStatic, {
      root: webDist as string,
      wildcard: false,
      index: ['index.html'],
      preCompressed: true,
      setHeaders: (reply, filePath) => reply.header('cache-control', webCacheControl(webDist as string, filePath)),
    });
  app.setNotFoundHandler((request, reply) => {
    // client-side routes fall back to the app shell; unknown API paths stay JSON 404s
    if (serveWeb && request.method === 'GET' && !request.url.startsWith('/api/'))
      return reply.type('text/html').sendFile('index.html');
    return reply.status(404).send({
      code: 'route_not_found',
      kind: 'not_found',
      message: `No route ${request.method} ${request.url.split('?')[0]}.`,
    });
  });
  return app;
}

// Vite names what it emits under assets/ after a hash of the content ("index-DPpnmBl7.js", with
// .br/.gz copies beside it), so such a name never comes back with other bytes.
const HASHED_ASSET = /^assets\/[^/]+-[A-Za-z0-9_-]{8}\.[a-z0-9]+(\.br|\.gz)?$/;

/**
 * Hashed assets are cached for good; the rest, index.html first, is revalidated on every load, or
 * a browser would keep an old shell that points at chunks the new build no longer has.
 */
function webCacheControl(root: string, filePath: string): string {
  const rel = path.relative(root, filePath).split(path.sep).join('/');
  return HASHED_ASSET.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache';
}
