import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentTableSpec, SourceConfig } from '../contract/connector.js';
import type { JunctionError } from '../contract/errors.js';
import { DocumentsConnector, previewDocumentTable } from './connector.js';
import { resolveLocations } from './sources.js';

let tmp: string;
let root: string;
const SECRET = 'Bearer s3cr3t-t0ken-9f2c';

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'i29-docs-src-'));
  root = path.join(tmp, 'docs');
  fs.mkdirSync(path.join(root, 'in', 'deep'), { recursive: true });
  fs.mkdirSync(path.join(tmp, 'outside'));
  fs.writeFileSync(path.join(tmp, 'outside', 'secret.xml'), '<r><a id="leak"/></r>');
  fs.writeFileSync(path.join(root, 'in', 'b.xml'), '<r><a id="b"/></r>');
  fs.writeFileSync(path.join(root, 'in', 'a.xml'), '<r><a id="a"/></r>');
  fs.writeFileSync(path.join(root, 'in', '.hidden.xml'), '<r><a id="hidden"/></r>');
  fs.writeFileSync(path.join(root, 'in', 'deep', 'c.xml'), '<r><a id="c"/></r>');
  fs.symlinkSync(path.join(tmp, 'outside', 'secret.xml'), path.join(root, 'in', 'link.xml'));
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const xmlTable = (from: DocumentTableSpec['from']): DocumentTableSpec => ({
  name: 't',
  format: 'xml',
  from,
  rowPath: '/r/a',
  columns: [{ name: 'id', path: '@id', type: 'text' }],
});

const config = (table: DocumentTableSpec, extra: Partial<SourceConfig> = {}): SourceConfig => ({
  name: 'docs',
  engine: 'documents',
  ...extra,
  options: { fileRoots: [root], urlHosts: ['127.0.0.1'], documents: { tables: [table] }, ...extra.options },
});

async function failure(p: Promise<unknown>): Promise<JunctionError> {
  try {
    await p;
  } catch (err) {
    return err as JunctionError;
  }
  throw new Error('expected a failure');
}

describe('document files', () => {
  it('expands globs itself, in name order, skipping hidden files and refusing the symlink that leads out', async () => {
    const t = xmlTable({ path: 'in/[ab].xml' });
    await expect(resolveLocations(config(t), t)).rejects.toMatchObject({ code: 'file_missing' });
    const star = xmlTable({ path: 'in/*.xml' });
    const err = await failure(resolveLocations(config(star), star));
    expect([err.code, err.kind, err.message]).toEqual([
      'file_outside_roots',
      'forbidden',
      'Source "docs" may not read "in/*.xml": it leads (through a symbolic link) outside the allowed folders. Documents must lie under the folders the administrator allowed (JUNCTION_FILE_ROOTS).',
    ]);
    fs.renameSync(path.join(root, 'in', 'link.xml'), path.join(root, 'link.xml'));
    try {
      const locs = await resolveLocations(config(star), star);
      expect(locs.map((l) => l.shown)).toEqual(['in/a.xml', 'in/b.xml']);
      const deep = xmlTable({ path: '**/*.xml' });
      await expect(resolveLocations(config(deep), deep)).rejects.toMatchObject({ code: 'file_outside_roots' });
      const under = xmlTable({ path: 'in/**/*.xml' });
      expect((await resolveLocations(config(under), under)).map((l) => l.shown)).toEqual([
        'in/a.xml',
        'in/b.xml',
        'in/deep/c.xml',
      ]);
      const rows = await previewDocumentTable(config(under), 't', 10);
      expect(rows.rows).toEqual([['a'], ['b'], ['c']]);
    } finally {
      fs.renameSync(path.join(root, 'link.xml'), path.join(root, 'in', 'link.xml'));
    }
  });

  it("refuses '..', absolute paths outside the roots, and symlinks out of them", async () => {
    for (const [p, why] of [
      ['../outside/secret.xml', "a path may not contain '..'"],
      ['in/../../outside/secret.xml', "a path may not contain '..'"],
      [path.join(tmp, 'outside', 'secret.xml'), 'it is outside the allowed folders'],
      ['in/link.xml', 'it leads (through a symbolic link) outside the allowed folders'],
    ]) {
      const t = xmlTable({ path: p });
      const err = await failure(previewDocumentTable(config(t), 't', 10));
      expect([err.code, err.message]).toEqual([
        'file_outside_roots',
        `Source "docs" may not read "${p}": ${why}. Documents must lie under the folders the administrator allowed (JUNCTION_FILE_ROOTS).`,
      ]);
    }
  });

  it('reads no file at all without allowed roots', async () => {
    const t = xmlTable({ path: 'in/a.xml' });
    const err = await failure(previewDocumentTable({ ...config(t), options: { documents: { tables: [t] } } }, 't', 10));
    expect([err.code, err.kind]).toEqual(['file_roots_unset', 'forbidden']);
  });
});

describe('document URLs', () => {
  let server: http.Server;
  let other: http.Server;
  let port: number;
  let otherPort: number;
  const seen: { url: string; auth: string | undefined }[] = [];
  const otherSeen: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url!, auth: req.headers.authorization });
      if (req.url === '/bank.xml') {
        if (req.headers.authorization !== SECRET) {
          res.writeHead(401).end('no');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.write('<r><a id="u1"/>');
        res.end('<a id="u2"/></r>');
      } else if (req.url === '/same-host') {
        res.writeHead(302, { location: '/bank.xml' }).end();
      } else if (req.url === '/elsewhere') {
        res.writeHead(302, { location: `http://localhost:${otherPort}/steal` }).end();
      } else if (req.url === '/boom') {
        res.writeHead(500, 'Internal Server Error').end(`echo ${req.headers.authorization}`);
      } else res.writeHead(404).end();
    });
    other = http.createServer((req, res) => {
      otherSeen.push(req.url!);
      res.writeHead(200).end('<r/>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await new Promise((r) => other.close(r));
  });

  const urlConfig = (p: string, extra: Partial<SourceConfig> = {}): SourceConfig =>
    config(xmlTable({ url: `http://127.0.0.1:${port}${p}` }), {
      password: JSON.stringify({ t: { Authorization: SECRET } }),
      ...extra,
    });

  it('sends the secret headers to the allowed host and follows a redirect on that host', async () => {
    seen.length = 0;
    expect((await previewDocumentTable(urlConfig('/bank.xml'), 't', 10)).rows).toEqual([['u1'], ['u2']]);
    expect((await previewDocumentTable(urlConfig('/same-host'), 't', 10)).rows).toEqual([['u1'], ['u2']]);
    expect(seen).toEqual([
      { url: '/bank.xml', auth: SECRET },
      { url: '/same-host', auth: SECRET },
      { url: '/bank.xml', auth: SECRET },
    ]);
  });

  it('refuses hosts not allowed, and redirects to another host, before anything is sent there', async () => {
    const err = await failure(
      previewDocumentTable(
        urlConfig('/bank.xml', { options: { urlHosts: ['example.org', `127.0.0.1:${port + 1}`] } }),
        't',
        10,
      ),
    );
    expect([err.code, err.kind, err.message]).toEqual([
      'url_host_not_allowed',
      'forbidden',
      `Source "docs" may not fetch documents from 127.0.0.1:${port}: the administrator allows only the hosts in JUNCTION_URL_HOSTS.`,
    ]);
    const redirected = await failure(
      previewDocumentTable(urlConfig('/elsewhere', { options: { urlHosts: ['127.0.0.1', 'localhost'] } }), 't', 10),
    );
    expect([redirected.code, redirected.message]).toEqual([
      'url_redirect_refused',
      `Source "docs": 127.0.0.1:${port} redirected the document of table "t" to localhost:${otherPort}; documents are only read from the host they were defined on.`,
    ]);
    expect(otherSeen).toEqual([]);
  });

  it('never puts a secret header in an error or a diagnosis', async () => {
    const err = await failure(previewDocumentTable(urlConfig('/boom'), 't', 10));
    expect([err.code, err.message]).toEqual([
      'document_fetch_failed',
      `Source "docs": 127.0.0.1:${port} answered 500 Internal Server Error for the document of table "t".`,
    ]);
    const unauth = await new DocumentsConnector(
      urlConfig('/bank.xml', { password: JSON.stringify({ '*': { Authorization: 'Bearer wrong-one' } }) }),
    ).test();
    expect(unauth).toEqual({
      ok: false,
      code: 'auth_failed',
      message: `Source "docs": 127.0.0.1:${port} answered 401 Unauthorized for the document of table "t".`,
      hint: 'Check the secret headers (for instance the Authorization token) for this table.',
    });
    const closed = await new DocumentsConnector(
      config(xmlTable({ url: 'http://127.0.0.1:9/x.xml' }), {
        password: JSON.stringify({ t: { Authorization: SECRET } }),
      }),
    ).test();
    expect(closed).toMatchObject({ ok: false, code: 'host_unreachable' });
    expect(JSON.stringify(closed)).not.toContain('s3cr3t');
    const bad = await failure(
      previewDocumentTable(urlConfig('/bank.xml', { password: `{"t": {"Authorization": "${SECRET}"` }), 't', 10),
    );
    expect([bad.code, bad.message]).toEqual([
      'document_headers_invalid',
      'The secret headers of source "docs" are not valid JSON; expected {"<table>" or "*": {"Header": "value"}}.',
    ]);
    expect(await new DocumentsConnector(urlConfig('/bank.xml')).test()).toMatchObject({
      ok: true,
      serverVersion: 'documents 1',
    });
  });
});
