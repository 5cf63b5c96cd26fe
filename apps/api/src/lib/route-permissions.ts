import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Permission } from './schemas.js';

/**
 * What a route needs: `public` (no credentials), `signed-in` (any session or token, whatever its
 * scopes), or one permission. A principal's permissions are its role's for a session and, for a
 * token, what the token's scopes imply capped by its owner's role (plugins/auth.ts), so one check
 * covers roles and scopes alike.
 */
export type Access = 'public' | 'signed-in' | Permission;

/**
 * The one table of what every API route needs, keyed by `METHOD url` as registered (HEAD follows
 * GET). buildApp refuses to start when an /api route is missing here, and the global check in
 * app.ts is the only authorization at the route level: handlers add per-object rules (owners,
 * grants), never the route's permission. Touching another user's tokens, running queries or
 * saved queries additionally needs the `admin` permission (not merely the admin role).
 */
export const ROUTE_PERMISSIONS: Readonly<Record<string, Access>> = {
  'GET /api/v1/health': 'public',
  // how to reach the PostgreSQL listener (psql, JDBC) as yourself: an address and your user name
  'GET /api/v1/connection-info': 'read',
  'GET /api/v1/engines': 'read',

  // auth
  'POST /api/v1/auth/login': 'public',
  'POST /api/v1/auth/logout': 'signed-in',
  'GET /api/v1/auth/me': 'signed-in',
  // a session's own password (the handler refuses tokens: a leaked token must not take the account)
  'POST /api/v1/auth/password': 'signed-in',

  // tokens: your own; another user's only with the admin permission. Minting and revoking need
  // `tokens` (every session; a token only with the tokens or admin scope), or a leaked read token
  // could mint copies of itself that outlive its revocation. Listing shows names, never secrets.
  'GET /api/v1/tokens': 'signed-in',
  'POST /api/v1/tokens': 'tokens',
  'DELETE /api/v1/tokens/:id': 'tokens',
  'GET /api/v1/tokens/all': 'admin',

  // administration
  'GET /api/v1/users': 'admin',
  'POST /api/v1/users': 'admin',
  'PATCH /api/v1/users/:id': 'admin',
  'DELETE /api/v1/users/:id': 'admin',
  'GET /api/v1/grants': 'admin',
  'POST /api/v1/grants': 'admin',
  'DELETE /api/v1/grants/:id': 'admin',
  'GET /api/v1/audit': 'admin',
  // memory, handles, descriptors, event-loop delay: for operators and `npm run soak`
  'GET /api/v1/runtime': 'admin',

  // concurrency limits: what your own requests get; settings are the admin's
  'GET /api/v1/limits/mine': 'signed-in',
  'GET /api/v1/limits': 'admin',
  'PUT /api/v1/limits/server': 'admin',
  'DELETE /api/v1/limits/server': 'admin',
  'PUT /api/v1/limits/:scope/:subject': 'admin',
  'DELETE /api/v1/limits/:scope/:subject': 'admin',

  // sources: listing and detail filtered by grants
  'GET /api/v1/sources': 'read',
  'GET /api/v1/sources/:id': 'read',
  'POST /api/v1/sources': 'admin',
  // the first rows of a file or document source's settings, before registering them: reads what they point at
  'POST /api/v1/sources/preview': 'admin',
  'PATCH /api/v1/sources/:id': 'admin',
  'DELETE /api/v1/sources/:id': 'admin',
  'POST /api/v1/sources/:id/test': 'admin',
  'POST /api/v1/sources/:id/refresh': 'admin',

  // catalog: filtered by grants
  'GET /api/v1/catalog': 'read',
  'GET /api/v1/catalog/:source/:schema/:table': 'read',
  'GET /api/v1/catalog/search': 'read',

  // ad hoc SQL, running queries, history
  'POST /api/v1/query': 'query',
  'POST /api/v1/query/export': 'query',
  'POST /api/v1/explain': 'query',
  'GET /api/v1/queries': 'run',
  'DELETE /api/v1/queries/:id': 'run',
  'GET /api/v1/history': 'run',
  'DELETE /api/v1/history': 'run',

  // saved queries: yours, shared ones and the examples
  'GET /api/v1/saved-queries': 'run',
  'GET /api/v1/saved-queries/:id': 'run',
  'POST /api/v1/saved-queries': 'query',
  'PATCH /api/v1/saved-queries/:id': 'query',
  'DELETE /api/v1/saved-queries/:id': 'query',
  'POST /api/v1/saved-queries/:id/run': 'run',
  'POST /api/v1/saved-queries/:id/export': 'run',

  // virtual schemas and views: reading filtered by grants, editing your own views (or granted ones)
  'GET /api/v1/schemas': 'read',
  'POST /api/v1/schemas': 'design',
  'PATCH /api/v1/schemas/:id': 'design',
  'DELETE /api/v1/schemas/:id': 'design',
  'GET /api/v1/views': 'read',
  'GET /api/v1/views/graph': 'read',
  'GET /api/v1/views/:id': 'read',
  'POST /api/v1/views/validate': 'design',
  'POST /api/v1/views': 'design',
  'PATCH /api/v1/views/:id': 'design',
  'POST /api/v1/views/:id/impact': 'design',
  'DELETE /api/v1/views/:id': 'design',
  'POST /api/v1/views/:id/run': 'run',

  // the benchmark lab: reading your own runs and those shared with your role; defining and running
  // them is querying (a direct target's native SQL also needs admin or a native grant: the source
  // gate); loading data replaces tables
  'GET /api/v1/benchmarks/presets': 'read',
  'GET /api/v1/benchmarks': 'read',
  'POST /api/v1/benchmarks': 'query',
  'GET /api/v1/benchmarks/:id': 'read',
  'DELETE /api/v1/benchmarks/:id': 'query',
  'PATCH /api/v1/benchmarks/:id': 'query',
  'POST /api/v1/benchmarks/:id/runs': 'query',
  'GET /api/v1/benchmark-runs': 'read',
  'GET /api/v1/benchmark-runs/:runId': 'read',
  'DELETE /api/v1/benchmark-runs/:runId': 'query',
  'PATCH /api/v1/benchmark-runs/:runId': 'query',
  'GET /api/v1/benchmark-runs/:a/compare/:b': 'read',
  'GET /api/v1/benchmark-runs/:runId/export': 'read',
  'POST /api/v1/benchmark-runs/import': 'query',
  'POST /api/v1/benchmarks/load': 'admin',
  'GET /api/v1/benchmarks/load/:id': 'admin',

  // result and fragment caches: statistics, entries (statement texts of every user) and purging
  'GET /api/v1/cache': 'admin',
  'POST /api/v1/cache/purge': 'admin',

  // materialized views: status filtered by view grants; materializing uses Junction's own store
  'GET /api/v1/materializations': 'read',
  'PUT /api/v1/materializations/:schema/:name': 'admin',
  'POST /api/v1/materializations/:schema/:name/refresh': 'admin',
  'DELETE /api/v1/materializations/:schema/:name': 'admin',
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** set from ROUTE_PERMISSIONS for every /api route */
    access?: Access;
  }
}

/** Routes under /api that are the API's; the docs pages under /api/docs are public. */
function isApiRoute(url: string): boolean {
  return url.startsWith('/api/') && !url.startsWith('/api/docs');
}

export function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/**
 * onRoute: stamps each API route with its entry of ROUTE_PERMISSIONS and refuses a route without
 * one, so a new route cannot be forgotten. Registered routes are recorded in `registered`.
 */
export function routePermissionHook(registered: Set<string>): (route: RouteOptions) => void {
  return (route) => {
    if (!isApiRoute(route.url)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let access: Access | undefined;
    for (const method of methods) {
      const key = routeKey(method, route.url);
      const entry = ROUTE_PERMISSIONS[key];
      if (entry === undefined)
        throw new Error(`route ${key} has no entry in ROUTE_PERMISSIONS (apps/api/src/lib/route-permissions.ts)`);
      if (access !== undefined && access !== entry) throw new Error(`route ${key}: its methods need different access`);
      access = entry;
      if (method !== 'HEAD') registered.add(key);
    }
    route.config = { ...(route.config ?? {}), access };
    // the OpenAPI document says the same: a public route needs no security scheme, others the global ones
    if (access === 'public') route.schema = { ...(route.schema ?? {}), security: [] };
  };
}

/**
 * onRequest, after the auth plugin has found the principal: the route's access, checked before
 * the body is parsed or validated (an anonymous caller gets 401 whatever it sent).
 */
export function checkRouteAccess(app: FastifyInstance): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const access = request.routeOptions.config?.access;
    if (access === undefined) {
      // not an API route (docs, the web app); an unknown /api path falls to the JSON 404
      return;
    }
    if (access === 'public') return;
    await app.authorize(access === 'signed-in' ? undefined : access).call(app, request, undefined as never, () => {});
  };
}
