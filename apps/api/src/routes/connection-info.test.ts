import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';
import type { PgWireOption } from './connection-info.js';

const URL = '/api/v1/connection-info';
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function appWith(pgWire?: PgWireOption): Promise<Harness> {
  h = await startHarness(pgWire === undefined ? {} : { pgWire });
  return h;
}

describe('GET /api/v1/connection-info', () => {
  it('shows the listener where it is bound, and the user name to connect with', async () => {
    const app = await appWith({ host: '127.0.0.1', port: 5433, tls: false });
    const res = await app.as('analyst', { method: 'GET', url: URL, headers: { host: 'studio.example.com:8080' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      pgWire: { enabled: true, host: '127.0.0.1', port: 5433, tls: false, database: 'junction' },
      username: 'analyst',
      canQuery: true,
    });
    // every role may read it, each with its own name
    const viewer = await app.as('viewer', { method: 'GET', url: URL });
    expect(viewer.json()).toEqual({
      pgWire: { enabled: true, host: '127.0.0.1', port: 5433, tls: false, database: 'junction' },
      username: 'viewer',
      canQuery: false,
    });
  });

  it('says TLS is offered when it is', async () => {
    const app = await appWith({ host: 'db.example.com', port: 6543, tls: true });
    const res = await app.as('admin', { method: 'GET', url: URL });
    expect(res.json()).toEqual({
      pgWire: { enabled: true, host: 'db.example.com', port: 6543, tls: true, database: 'junction' },
      username: 'admin',
      canQuery: true,
    });
  });

  it('bound on every interface, it shows the host the browser used, without its port', async () => {
    const app = await appWith({ host: '0.0.0.0', port: 5433, tls: true });
    const res = await app.as('analyst', { method: 'GET', url: URL, headers: { host: 'junction.internal:8080' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      pgWire: { enabled: true, host: 'junction.internal', port: 5433, tls: true, database: 'junction' },
      username: 'analyst',
      canQuery: true,
    });
    // an IPv6 Host loses its brackets (libpq's host= takes the bare address)
    const v6 = await app.as('analyst', { method: 'GET', url: URL, headers: { host: '[fd00::5]:8080' } });
    expect(v6.json().pgWire.host).toBe('fd00::5');
    // a Host header that is no host name is not echoed back
    const odd = await app.as('analyst', { method: 'GET', url: URL, headers: { host: 'a b"c' } });
    // (but the server's own address on the connection, which an injected request has not: localhost)
    expect(odd.json().pgWire.host).toBe('localhost');
  });

  it('bound on :: it does the same', async () => {
    const app = await appWith({ host: '::', port: 5433, tls: false });
    const res = await app.as('viewer', { method: 'GET', url: URL, headers: { host: '10.1.2.3:8080' } });
    expect(res.json()).toEqual({
      pgWire: { enabled: true, host: '10.1.2.3', port: 5433, tls: false, database: 'junction' },
      username: 'viewer',
      canQuery: false,
    });
  });

  it('reads the settings when asked, when given a function', async () => {
    let pg: { host: string; port: number; tls: boolean } | null = null;
    const app = await appWith(() => pg);
    const before = await app.as('analyst', { method: 'GET', url: URL, headers: { host: 'localhost:8080' } });
    expect(before.json().pgWire.enabled).toBe(false);
    pg = { host: '127.0.0.1', port: 40001, tls: false };
    const after = await app.as('analyst', { method: 'GET', url: URL, headers: { host: 'localhost:8080' } });
    expect(after.json().pgWire).toEqual({
      enabled: true,
      host: '127.0.0.1',
      port: 40001,
      tls: false,
      database: 'junction',
    });
  });

  for (const [label, option] of [
    ['without the option', undefined],
    ['with null', null],
    ['with port 0', { host: '127.0.0.1', port: 0, tls: true }],
  ] as const) {
    it(`is disabled ${label}`, async () => {
      const app = await appWith(option);
      const res = await app.as('analyst', { method: 'GET', url: URL, headers: { host: 'studio.example.com:8080' } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        pgWire: { enabled: false, host: 'studio.example.com', port: null, tls: false, database: 'junction' },
        username: 'analyst',
        canQuery: true,
      });
    });
  }

  it('answers 401 without a sign-in', async () => {
    const app = await appWith({ host: '127.0.0.1', port: 5433, tls: false });
    const res = await app.as(null, { method: 'GET', url: URL });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'unauthenticated', kind: 'auth' });
    expect(res.body).not.toContain('5433');
  });

  it('is in the OpenAPI document with its reply schema', async () => {
    const app = await appWith();
    const doc = (await app.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const op = doc.paths['/api/v1/connection-info'].get;
    expect(op.tags).toEqual(['meta']);
    const reply = op.responses['200'].content['application/json'].schema;
    expect(Object.keys(reply.properties)).toEqual(['pgWire', 'username', 'canQuery']);
    expect(Object.keys(reply.properties.pgWire.properties)).toEqual(['enabled', 'host', 'port', 'tls', 'database']);
  });
});
