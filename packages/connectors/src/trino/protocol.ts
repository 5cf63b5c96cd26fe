import http from 'node:http';
import https from 'node:https';

/**
 * Trino's client protocol over plain node:http(s), not the trino-client package: that one
 * parses pages with JSON.parse inside axios (a bigint past 2^53 loses digits before any hook
 * could see it), takes no AbortSignal for its in-flight requests, keeps one mutable set of
 * session headers per client for all concurrent queries, and announces no client
 * capabilities, so Trino cuts every timestamp to milliseconds. The protocol is small: POST
 * the statement, GET each nextUri until there is none, DELETE the nextUri to cancel.
 */

export interface TrinoColumn {
  readonly name: string;
  readonly type: string;
}

export interface TrinoErrorInfo {
  readonly message: string;
  readonly errorCode: number;
  readonly errorName: string;
  readonly errorType: string;
}

export interface TrinoPage {
  readonly id: string;
  readonly infoUri?: string;
  readonly nextUri?: string;
  readonly columns?: readonly TrinoColumn[];
  readonly data?: readonly (readonly unknown[])[];
  readonly error?: TrinoErrorInfo;
  readonly updateType?: string;
  readonly updateCount?: number;
  readonly stats?: { readonly state?: string };
}

export interface TrinoEndpoint {
  readonly url: URL;
  readonly user: string;
  readonly password?: string;
  readonly tls?: { readonly rejectUnauthorized?: boolean; readonly ca?: string };
  readonly catalog?: string;
  readonly schema?: string;
  readonly connectTimeoutMs: number;
}

/** An HTTP answer other than 200 from Trino (401 bad credentials, 404 a query that is gone…). */
export class TrinoHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`Trino answered HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ''}`);
    this.name = 'TrinoHttpError';
  }
}

/**
 * Trino writes bigint values as JSON numbers. JSON.parse's reviver sees each number's source
 * text (Node 21+), so an integer too long for a double is kept as a BigInt of its digits.
 */
export function parseTrinoJson(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}

/** Statuses Trino's protocol says a client should retry after a moment (a busy or restarting coordinator). */
const RETRY_STATUS = new Set([502, 503, 504]);
const MAX_RETRIES = 20;

export class TrinoHttp {
  private readonly agent: http.Agent;
  private readonly secure: boolean;

  constructor(private readonly endpoint: TrinoEndpoint) {
    this.secure = endpoint.url.protocol === 'https:';
    this.agent = this.secure
      ? new https.Agent({
          keepAlive: true,
          rejectUnauthorized: endpoint.tls?.rejectUnauthorized ?? true,
          ...(endpoint.tls?.ca ? { ca: endpoint.tls.ca } : {}),
        })
      : new http.Agent({ keepAlive: true });
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const e = this.endpoint;
    const h: Record<string, string> = {
      'X-Trino-User': e.user,
      'X-Trino-Source': 'junction',
      // full precision for timestamps and times (without it Trino rounds them to milliseconds)
      'X-Trino-Client-Capabilities': 'PARAMETRIC_DATETIME',
      // current_timestamp and timestamp with time zone texts in UTC, Junction's timestamptz form
      'X-Trino-Time-Zone': 'UTC',
      ...extra,
    };
    if (e.catalog) h['X-Trino-Catalog'] = e.catalog;
    if (e.schema) h['X-Trino-Schema'] = e.schema;
    if (e.password !== undefined && e.password !== '')
      h.Authorization = `Basic ${Buffer.from(`${e.user}:${e.password}`, 'utf8').toString('base64')}`;
    return h;
  }

  /** One request; resolves with the body of a 200, rejects with TrinoHttpError otherwise. */
  request(method: 'GET' | 'POST' | 'DELETE', target: string, options: { body?: string; signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<{ body: string; headers: http.IncomingHttpHeaders }> {
    const url = new URL(target, this.endpoint.url);
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        url,
        {
          method,
          agent: this.agent,
          signal: options.signal,
          headers: {
            ...this.headers(options.headers),
            ...(options.body !== undefined ? { 'Content-Type': 'text/plain; charset=utf-8' } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 200 || (method === 'DELETE' && res.statusCode === 204)) resolve({ body, headers: res.headers });
            else reject(new TrinoHttpError(res.statusCode ?? 0, body));
          });
        },
      );
      // bounds establishing the connection only; a page may legitimately take long to come
      const connectTimer = setTimeout(() => {
        const err = Object.assign(new Error(`connect ETIMEDOUT ${url.host}`), { code: 'ETIMEDOUT' });
        req.destroy(err);
      }, this.endpoint.connectTimeoutMs);
      req.on('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once(this.secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
      req.on('close', () => clearTimeout(connectTimer));
      req.on('error', reject);
      if (options.body !== undefined) req.write(options.body);
      req.end();
    });
  }

  /** A page request, retried on the statuses Trino asks clients to retry. */
  async page(method: 'GET' | 'POST', target: string, options: { body?: string; signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<{ page: TrinoPage; headers: http.IncomingHttpHeaders }> {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await this.request(method, target, options);
        return { page: parseTrinoJson(r.body) as TrinoPage, headers: r.headers };
      } catch (err) {
        if (!(err instanceof TrinoHttpError) || !RETRY_STATUS.has(err.status) || attempt >= MAX_RETRIES || options.signal?.aborted) throw err;
        await new Promise((r) => setTimeout(r, Math.min(50 * (attempt + 1), 500)));
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * One statement on Trino, page by page. `cancel()` sends the protocol's DELETE on the current
 * nextUri (Trino then fails the query with USER_CANCELED) and aborts the request in flight.
 */
export class TrinoStatement {
  private nextUri: string | undefined;
  private started = false;
  private readonly abort = new AbortController();
  private cancelled: Promise<void> | undefined;
  queryId: string | undefined;
  columns: readonly TrinoColumn[] | undefined;
  /** response headers of all pages so far, later ones winning (a started transaction's id, for one) */
  lastHeaders: http.IncomingHttpHeaders = {};

  constructor(
    private readonly http: TrinoHttp,
    private readonly sql: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  get done(): boolean {
    return this.started && this.nextUri === undefined;
  }

  /** The next page with rows (or the last page); undefined once the statement has finished. */
  async next(): Promise<{ rows: readonly (readonly unknown[])[]; columns: readonly TrinoColumn[] | undefined } | undefined> {
    for (;;) {
      if (this.done) return undefined;
      const { page, headers } = this.started
        ? await this.http.page('GET', this.nextUri!, { signal: this.abort.signal, headers: this.extraHeaders })
        : await this.http.page('POST', '/v1/statement', { body: this.sql, signal: this.abort.signal, headers: this.extraHeaders });
      this.started = true;
      this.lastHeaders = { ...this.lastHeaders, ...headers };
      this.queryId ??= page.id;
      this.nextUri = page.nextUri;
      if (page.columns) this.columns = page.columns;
      if (page.error) {
        this.nextUri = undefined;
        throw new TrinoQueryError(page.error, page.id);
      }
      if ((page.data && page.data.length > 0) || this.nextUri === undefined) return { rows: page.data ?? [], columns: this.columns };
    }
  }

  /** Cancels on Trino (once); resolves when Trino has acknowledged or could not be told. */
  cancel(): Promise<void> {
    this.abort.abort();
    const uri = this.nextUri;
    this.nextUri = undefined;
    this.started = true;
    this.cancelled ??= uri === undefined ? Promise.resolve() : this.http.request('DELETE', uri).then(() => undefined, () => undefined);
    return this.cancelled;
  }
}

/** Trino ran the statement and failed it: its errorName and message, as Trino said them. */
export class TrinoQueryError extends Error {
  constructor(
    readonly info: TrinoErrorInfo,
    readonly queryId: string,
  ) {
    super(info.message);
    this.name = 'TrinoQueryError';
  }
}
