import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's headers, worked out once. @fastify/helmet calls `helmet(options)` on every request,
 * which parses the whole configuration (CSP directives included) each time: about a tenth of
 * a millisecond of the server's only thread per request, for headers that never change. Here
 * helmet still decides every header and value, but only once, on a stand-in response; each
 * request then gets the recorded list. No per-route variants or CSP nonces are used, which is
 * what makes the headers fixed.
 */
export default fp<{ helmet: HelmetOptions }>(
  async (app, opts) => {
    const headers = recordHeaders(opts.helmet);
    app.addHook('onRequest', (_request, reply, done) => {
      const res = reply.raw;
      for (const [name, value] of headers) res.setHeader(name, value);
      done();
    });
  },
  { name: 'security-headers' },
);

function recordHeaders(options: HelmetOptions): [string, string][] {
  const headers = new Map<string, string>();
  const standIn = {
    setHeader(name: string, value: unknown) {
      headers.set(name.toLowerCase(), String(value));
      return this;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    getHeader: (name: string) => headers.get(name.toLowerCase()),
  };
  let failed: unknown;
  helmet(options)({} as IncomingMessage, standIn as unknown as ServerResponse, (e?: unknown) => (failed = e));
  if (failed) throw failed;
  return [...headers];
}
