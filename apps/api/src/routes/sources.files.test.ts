import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/harness.js';

// File (duckdb) and document sources through the API: registration under JUNCTION_FILE_ROOTS and
// JUNCTION_URL_HOSTS, the secret headers, the preview, queries and grants.

const TOKEN = `T0k-${Math.random().toString(36).slice(2)}`;
const HEADERS = JSON.stringify({ '*': { Authorization: `Bearer ${TOKEN}` } });

const ACCOUNTS_XML = `<?xml version="1.0"?>
<Customer id="c1"><Accounts>
  <Account id="a1"><Currency>EUR</Currency><Balance><OnlineActualBal>100.50</OnlineActualBal></Balance></Account>
  <Account id="a2"><Currency>USD</Currency><Balance><OnlineActualBal>-3.25</OnlineActualBal></Balance></Account>
</Accounts></Customer>`;
const FEED_JSON = JSON.stringify({
  items: [
    { sku: 'p1', qty: 3 },
    { sku: 'p2', qty: 5 },
  ],
});

let h: Harness;
let dir: string;
let root: string;
let server: http.Server;
let port = 0;
const requests: (string | undefined)[] = [];
// another allowed origin (same host, another port): where a moved URL would take the headers
let other: http.Server;
let otherPort = 0;
const otherRequests: (string | undefined)[] = [];

const csvSource = (name = 'files') => ({
  name,
  engine: 'duckdb',
  options: {
    files: {
      root,
      tables: [
        { name: 'orders', path: 'sales/*.csv', format: 'csv', columns: { id: 'integer', total: 'decimal(10,2)' } },
      ],
    },
  },
});
const xmlSource = (name = 'docs') => ({
  name,
  engine: 'documents',
  options: {
    documents: {
      root,
      tables: [
        {
          name: 'accounts',
          format: 'xml',
          from: { path: 'xml/accounts.xml' },
          rowPath: '/Customer/Accounts/Account',
          columns: [
            { name: 'id', path: '@id', type: 'text' },
            { name: 'customer', path: '../../@id', type: 'text' },
            { name: 'currency', path: 'Currency', type: 'text' },
            { name: 'balance', path: 'Balance/OnlineActualBal', type: 'decimal(15,2)' },
          ],
        },
      ],
    },
  },
});
const urlSource = (url: string, password?: string) => ({
  name: 'feed',
  engine: 'documents',
  ...(password !== undefined ? { password } : {}),
  options: {
    documents: {
      tables: [
        {
          name: 'items',
          format: 'json',
          from: { url },
          rowPath: '$.items[*]',
          columns: [
            { name: 'sku', path: '$.sku', type: 'text' },
            { name: 'qty', path: '$.qty', type: 'integer' },
          ],
        },
      ],
    },
  },
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'jt-api-files-'));
  root = path.join(dir, 'roots');
  mkdirSync(path.join(root, 'sales'), { recursive: true });
  mkdirSync(path.join(root, 'xml'));
  mkdirSync(path.join(dir, 'outside'));
  writeFileSync(path.join(root, 'sales', 'jan.csv'), 'id,customer,total\n1,ACME,12.50\n2,Globex,7.25\n');
  writeFileSync(path.join(root, 'sales', 'feb.csv'), 'id,customer,total\n3,Initech,100.00\n');
  writeFileSync(path.join(root, 'xml', 'accounts.xml'), ACCOUNTS_XML);
  writeFileSync(path.join(dir, 'outside', 'secret.csv'), 'x\n1\n');
  server = http.createServer((req, res) => {
    // a document that never comes: the preview must give up on its own
    if (req.url === '/hang.json') return;
    requests.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(FEED_JSON);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  other = http.createServer((req, res) => {
    otherRequests.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(FEED_JSON);
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherPort = (other.address() as AddressInfo).port;
  // data.example.com is never contacted: it only stands for an allowed host off the loopback
  h = await startHarness({
    fileRoots: root,
    urlHosts: `127.0.0.1:${port},127.0.0.1:${otherPort},data.example.com`,
    previewTimeoutMs: 1500,
  });
});
afterAll(async () => {
  await h?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  other?.closeAllConnections();
  await new Promise((resolve) => other?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const post = (role: 'admin' | 'analyst', url: string, payload: unknown) => h.as(role, { method: 'POST', url, payload });
const query = (role: 'admin' | 'analyst', sql: string) => post(role, '/api/v1/query', { sql });

describe('file and document sources', () => {
  it('registers a CSV source for admins only, and queries read its files with the type overrides', async () => {
    const denied = await post('analyst', '/api/v1/sources', csvSource());
    expect(denied.statusCode).toBe(403);
    const res = await post('admin', '/api/v1/sources', csvSource());
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      name: 'files',
      engine: 'duckdb',
      status: 'online',
      tables: 1,
      hasPassword: false,
    });
    // the stored options are the admin's, without the server's roots
    expect(res.json().options).toEqual(csvSource().options);
    const q = await query('admin', 'SELECT id, customer, total FROM files.orders ORDER BY id');
    expect(q.statusCode).toBe(200);
    expect(q.json().rows).toEqual([
      [1, 'ACME', '12.50'],
      [2, 'Globex', '7.25'],
      [3, 'Initech', '100.00'],
    ]);
  });

  it('registers an XML source and queries read its rows by their paths', async () => {
    const res = await post('admin', '/api/v1/sources', xmlSource());
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'docs', engine: 'documents', status: 'online', tables: 1 });
    const q = await query(
      'admin',
      'SELECT id, customer, currency, balance FROM docs.accounts WHERE balance > 0 ORDER BY id',
    );
    expect(q.statusCode).toBe(200);
    expect(q.json().rows).toEqual([['a1', 'c1', 'EUR', '100.50']]);
  });

  it('applies grants: an analyst reads a file source only once granted', async () => {
    const before = await query('analyst', 'SELECT count(*) FROM files.orders');
    expect(before.statusCode).toBe(403);
    expect(before.json()).toMatchObject({ code: 'access_denied' });
    expect((await post('admin', '/api/v1/grants', { role: 'analyst', sourceName: 'files' })).statusCode).toBe(201);
    const after = await query('analyst', 'SELECT count(*) AS n FROM files.orders');
    expect(after.statusCode).toBe(200);
    expect(after.json().rows).toEqual([['3']]);
    // the grant on files says nothing of docs
    expect((await query('analyst', 'SELECT id FROM docs.accounts')).statusCode).toBe(403);
  });

  it('refuses a root, a path or a database file outside JUNCTION_FILE_ROOTS, before opening anything', async () => {
    const outside = path.join(dir, 'outside');
    const byRoot = await post('admin', '/api/v1/sources', {
      ...csvSource('bad1'),
      options: { files: { root: outside, tables: [{ name: 'secret', path: 'secret.csv' }] } },
    });
    expect(byRoot.statusCode).toBe(400);
    expect(byRoot.json()).toMatchObject({
      code: 'file_outside_roots',
      message: `Source "bad1" may not read "${outside}": it is not inside a folder allowed by JUNCTION_FILE_ROOTS (${root}).`,
    });
    const byDots = await post('admin', '/api/v1/sources', {
      ...csvSource('bad2'),
      options: { files: { root, tables: [{ name: 'secret', path: '../outside/secret.csv' }] } },
    });
    expect(byDots.json()).toMatchObject({
      code: 'file_outside_roots',
      message: 'Source "bad2" may not read "../outside/secret.csv": a path with ".." is not accepted.',
    });
    const byFile = await post('admin', '/api/v1/sources', { name: 'bad3', engine: 'duckdb', file: '/etc/passwd' });
    expect(byFile.statusCode).toBe(400);
    expect(byFile.json().code).toBe('file_outside_roots');
    const docs = await post('admin', '/api/v1/sources', {
      ...xmlSource('bad4'),
      options: { documents: { ...xmlSource().options.documents, root: outside } },
    });
    expect(docs.json().code).toBe('file_outside_roots');
    // a payload never chooses its own roots or hosts
    const forged = await post('admin', '/api/v1/sources', {
      ...csvSource('bad5'),
      options: { ...csvSource().options, fileRoots: ['/'] },
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({ code: 'validation', details: { field: 'body.options.fileRoots' } });
    const list = (await h.as('admin', { method: 'GET', url: '/api/v1/sources' })).json() as { name: string }[];
    expect(list.map((s) => s.name).filter((n) => n.startsWith('bad'))).toEqual([]);
  });

  it('refuses a URL whose host JUNCTION_URL_HOSTS does not list', async () => {
    const res = await post('admin', '/api/v1/sources', urlSource(`http://localhost:${port}/feed.json`, HEADERS));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'url_host_not_allowed',
      message: `Source "feed" may not fetch "http://localhost:${port}/feed.json": host localhost:${port} is not allowed by JUNCTION_URL_HOSTS (127.0.0.1:${port}, 127.0.0.1:${otherPort}, data.example.com).`,
    });
    expect(requests).toEqual([]);
  });

  it('keeps the secret headers write-only: sent to the URL, stored encrypted, never returned', async () => {
    const bad = await post('admin', '/api/v1/sources', urlSource(`http://127.0.0.1:${port}/feed.json`, 'Bearer x'));
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'source_options_invalid' });
    expect(bad.body).not.toContain('Bearer x');
    const res = await post('admin', '/api/v1/sources', urlSource(`http://127.0.0.1:${port}/feed.json`, HEADERS));
    expect(res.statusCode).toBe(201);
    expect(res.json().hasPassword).toBe(true);
    const detail = await h.as('admin', { method: 'GET', url: `/api/v1/sources/${res.json().id}` });
    expect(detail.json()).toMatchObject({ hasPassword: true });
    expect(detail.body).not.toContain(TOKEN);
    expect(res.body).not.toContain(TOKEN);
    const row = await h.meta.db.source.findUnique({ where: { name: 'feed' } });
    expect(row?.passwordEncrypted).toMatch(/^v1:/);
    expect(row?.passwordEncrypted).not.toContain(TOKEN);
    const q = await query('admin', 'SELECT sku, qty FROM feed.items ORDER BY sku');
    expect(q.json().rows).toEqual([
      ['p1', 3],
      ['p2', 5],
    ]);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((a) => a === `Bearer ${TOKEN}`)).toBe(true);
    // the preview sends the headers typed in the form
    const preview = await post('admin', '/api/v1/sources/preview', {
      source: urlSource(`http://127.0.0.1:${port}/feed.json`, HEADERS),
    });
    expect(preview.json()).toMatchObject({
      table: 'items',
      rows: [
        ['p1', 3],
        ['p2', 5],
      ],
    });
    const without = await post('admin', '/api/v1/sources/preview', {
      source: urlSource(`http://127.0.0.1:${port}/feed.json`),
    });
    expect(without.statusCode).toBe(502);
    expect(without.json()).toMatchObject({ code: 'document_fetch_failed', details: { status: 401 } });
    expect(without.body).not.toContain(TOKEN);
  });

  it('checks an update as a registration: a path moved outside the roots is refused and the source keeps working', async () => {
    const id = (await h.as('admin', { method: 'GET', url: '/api/v1/sources/files' })).json().id as string;
    const moved = await h.as('admin', {
      method: 'PATCH',
      url: `/api/v1/sources/${id}`,
      payload: { options: { files: { root: path.join(dir, 'outside') } } },
    });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().code).toBe('file_outside_roots');
    const forged = await h.as('admin', {
      method: 'PATCH',
      url: `/api/v1/sources/${id}`,
      payload: { options: { ...csvSource().options, urlHosts: ['evil.example'] } },
    });
    expect(forged.json()).toMatchObject({ code: 'validation', details: { field: 'body.options.urlHosts' } });
    const narrowed = await h.as('admin', {
      method: 'PATCH',
      url: `/api/v1/sources/${id}`,
      payload: {
        options: {
          files: {
            root,
            tables: [{ name: 'orders', path: 'sales/feb.csv', columns: { id: 'integer', total: 'decimal(10,2)' } }],
          },
        },
      },
    });
    expect(narrowed.statusCode).toBe(200);
    expect((await query('admin', 'SELECT id, customer, total FROM files.orders')).json().rows).toEqual([
      [3, 'Initech', '100.00'],
    ]);
  });

  it('previews a CSV table and an XML table without registering them, for admins only', async () => {
    const csv = await post('admin', '/api/v1/sources/preview', {
      source: csvSource('draft'),
      table: 'orders',
      limit: 2,
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.json()).toMatchObject({
      table: 'orders',
      tables: ['orders'],
      columns: [
        { name: 'id', type: 'int32' },
        { name: 'customer', type: 'text' },
        { name: 'total', type: 'decimal(10,2)' },
      ],
    });
    // two rows of the three, in whatever order the files are read
    expect(csv.json().rows).toHaveLength(2);
    for (const r of csv.json().rows)
      expect([
        [1, 'ACME', '12.50'],
        [2, 'Globex', '7.25'],
        [3, 'Initech', '100.00'],
      ]).toContainEqual(r);
    const xml = await post('admin', '/api/v1/sources/preview', { source: xmlSource('draft') });
    expect(xml.statusCode).toBe(200);
    expect(xml.json()).toEqual({
      table: 'accounts',
      tables: ['accounts'],
      columns: [
        { name: 'id', type: 'text', nativeType: expect.any(String) },
        { name: 'customer', type: 'text', nativeType: expect.any(String) },
        { name: 'currency', type: 'text', nativeType: expect.any(String) },
        { name: 'balance', type: 'decimal(15,2)', nativeType: expect.any(String) },
      ],
      rows: [
        ['a1', 'c1', 'EUR', '100.50'],
        ['a2', 'c1', 'USD', '-3.25'],
      ],
    });
    expect(
      (await h.as('admin', { method: 'GET', url: '/api/v1/sources' })).json().map((s: { name: string }) => s.name),
    ).not.toContain('draft');
    expect((await post('analyst', '/api/v1/sources/preview', { source: xmlSource('draft') })).statusCode).toBe(403);
  });

  it('answers a preview of a wrong table, a path outside the roots or too many rows with a clear error', async () => {
    const missing = await post('admin', '/api/v1/sources/preview', { source: xmlSource('draft'), table: 'nope' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      code: 'preview_table_not_found',
      message: 'The settings define no table "nope" (they define accounts).',
    });
    const outside = await post('admin', '/api/v1/sources/preview', {
      source: { ...csvSource('draft'), options: { files: { root: path.join(dir, 'outside') } } },
    });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().code).toBe('file_outside_roots');
    const started = Date.now();
    const hung = await post('admin', '/api/v1/sources/preview', {
      source: urlSource(`http://127.0.0.1:${port}/hang.json`, HEADERS),
    });
    expect(hung.statusCode).toBe(504);
    expect(hung.json()).toMatchObject({
      code: 'preview_timeout',
      message:
        'The preview took longer than 1.5 s and was stopped: narrow the path or glob, or check that the URL answers.',
    });
    expect(Date.now() - started).toBeLessThan(5000);
    const many = await post('admin', '/api/v1/sources/preview', { source: csvSource('draft'), limit: 101 });
    expect(many.statusCode).toBe(400);
    expect(many.json()).toMatchObject({ code: 'validation', details: { field: 'body.limit' } });
  });
});

// Runs after the tests above registered "feed" at http://127.0.0.1:<port> with HEADERS.
describe('secret headers when a URL moves', () => {
  const feedId = async () => (await h.as('admin', { method: 'GET', url: '/api/v1/sources/feed' })).json().id as string;
  const patch = (id: string, payload: unknown) =>
    h.as('admin', { method: 'PATCH', url: `/api/v1/sources/${id}`, payload });
  const reentry = (origin: string) => ({
    code: 'document_headers_reentry',
    kind: 'user',
    message: `Source "feed": the URL of table "items" now has another origin (${origin}) than its secret headers were sent to; enter the secret headers again in the password to send them there, or send an empty password to drop them.`,
    details: { source: 'feed', table: 'items', origin },
  });
  const insecure = (source: string) => ({
    code: 'document_headers_insecure',
    kind: 'user',
    message: `Source "${source}": table "items" is fetched over plain http from http://data.example.com, where its secret headers would cross the network unencrypted; use https, or drop the headers for this table. Plain http carries secret headers only to the loopback host (127.0.0.1, localhost, ::1).`,
    details: { source, table: 'items', origin: 'http://data.example.com' },
  });

  it('refuses an options-only PATCH that moves the URL to another allowed origin, and that origin receives nothing', async () => {
    const id = await feedId();
    const before = await h.meta.db.source.findUniqueOrThrow({ where: { name: 'feed' } });
    const moved = await patch(id, { options: urlSource(`http://127.0.0.1:${otherPort}/feed.json`).options });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toEqual(reentry(`http://127.0.0.1:${otherPort}`));
    // the scheme is part of the origin: the same host and port over https is somewhere else too
    const tls = await patch(id, { options: urlSource(`https://127.0.0.1:${port}/feed.json`).options });
    expect(tls.statusCode).toBe(400);
    expect(tls.json()).toEqual(reentry(`https://127.0.0.1:${port}`));
    expect(otherRequests).toEqual([]);
    const after = await h.meta.db.source.findUniqueOrThrow({ where: { name: 'feed' } });
    expect(after.options).toBe(before.options);
    expect(after.passwordEncrypted).toBe(before.passwordEncrypted);
    const q = await query('admin', 'SELECT sku, qty FROM feed.items ORDER BY sku');
    expect(q.statusCode).toBe(200);
    expect(q.json().rows).toEqual([
      ['p1', 3],
      ['p2', 5],
    ]);
    expect(otherRequests).toEqual([]);
    await h.app.records.flush();
    const audit = await h.meta.db.auditLog.findMany({ where: { action: 'source.refused', target: 'feed' } });
    // the earlier refusal of "feed" at registration (url_host_not_allowed) is left out
    const updates = audit.map((a) => JSON.parse(a.details ?? '{}')).filter((d) => d.path === 'update');
    expect(updates.map((d) => d.code)).toEqual(['document_headers_reentry', 'document_headers_reentry']);
    expect(JSON.stringify(audit)).not.toContain(TOKEN);
  });

  it('keeps the stored headers when a PATCH leaves every origin as it was', async () => {
    const id = await feedId();
    const seen = requests.length;
    // another path and query on the same origin; the explicit port is the one it already had
    const res = await patch(id, { options: urlSource(`http://127.0.0.1:${port}/feed.json?v=2`).options });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ hasPassword: true, status: 'online' });
    const q = await query('admin', 'SELECT sku, qty FROM feed.items ORDER BY sku');
    expect(q.statusCode).toBe(200);
    expect(q.json().rows).toEqual([
      ['p1', 3],
      ['p2', 5],
    ]);
    expect(requests.length).toBeGreaterThan(seen);
    expect(requests.slice(seen).every((a) => a === `Bearer ${TOKEN}`)).toBe(true);
    expect(otherRequests).toEqual([]);
  });

  it('refuses secret headers for a table read over plain http off the loopback host', async () => {
    const created = await post('admin', '/api/v1/sources', {
      ...urlSource('http://data.example.com/feed.json', HEADERS),
      name: 'plain',
    });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toEqual(insecure('plain'));
    const preview = await post('admin', '/api/v1/sources/preview', {
      source: { ...urlSource('http://data.example.com/feed.json', HEADERS), name: 'plain' },
    });
    expect(preview.statusCode).toBe(400);
    expect(preview.json()).toEqual(insecure('plain'));
    const id = await feedId();
    const options = urlSource('http://data.example.com/feed.json').options;
    // re-entering the headers does not make plain http acceptable, nor does keeping the stored ones
    const reentered = await patch(id, { password: HEADERS, options });
    expect(reentered.statusCode).toBe(400);
    expect(reentered.json()).toEqual(insecure('feed'));
    const kept = await patch(id, { options });
    expect(kept.statusCode).toBe(400);
    expect(kept.json()).toEqual(insecure('feed'));
    for (const r of [created, preview, reentered, kept]) expect(r.body).not.toContain(TOKEN);
    expect((await h.as('admin', { method: 'GET', url: '/api/v1/sources/plain' })).statusCode).toBe(404);
  });

  it('moves the URL to another origin once the headers are entered again, and sends them there', async () => {
    const id = await feedId();
    const res = await patch(id, {
      password: HEADERS,
      options: urlSource(`http://127.0.0.1:${otherPort}/feed.json`).options,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ hasPassword: true, status: 'online' });
    expect(res.body).not.toContain(TOKEN);
    const q = await query('admin', 'SELECT sku, qty FROM feed.items ORDER BY sku');
    expect(q.statusCode).toBe(200);
    expect(q.json().rows).toEqual([
      ['p1', 3],
      ['p2', 5],
    ]);
    expect(otherRequests.length).toBeGreaterThan(0);
    expect(otherRequests.every((a) => a === `Bearer ${TOKEN}`)).toBe(true);
  });
});
