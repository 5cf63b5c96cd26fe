import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileAccess } from './file-access.js';

let dir: string;
let roots: string;
let outsideDir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'jt-file-access-'));
  roots = path.join(dir, 'files');
  outsideDir = path.join(dir, 'elsewhere');
  mkdirSync(path.join(roots, 'sales'), { recursive: true });
  mkdirSync(outsideDir);
  writeFileSync(path.join(roots, 'sales', 'a.csv'), 'x\n1\n');
  writeFileSync(path.join(outsideDir, 'secret.csv'), 'x\n1\n');
  symlinkSync(outsideDir, path.join(roots, 'escape'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function refusal(p: Promise<unknown>): Promise<{ code: string; kind: string; message: string }> {
  const e = (await p.then(
    () => undefined,
    (err: unknown) => err,
  )) as { code: string; kind: string; message: string } | undefined;
  if (!e) throw new Error('expected a refusal');
  return { code: e.code, kind: e.kind, message: e.message };
}

describe('FileAccess', () => {
  it('defaults to the files folder of the data directory, and to no URL host', () => {
    const a = FileAccess.parse(undefined, undefined, path.join(dir, 'data'));
    expect(a.roots).toEqual([path.join(dir, 'data', 'files')]);
    expect(a.urlHosts).toEqual([]);
    expect(FileAccess.parse('', ' ', undefined).roots).toEqual([]);
  });

  it('reads path.delimiter-separated roots and comma-separated hosts, refusing what it cannot read', () => {
    const a = FileAccess.parse(['/srv/a', '/srv/b'].join(path.delimiter), 'data.example.com, 127.0.0.1:8080');
    expect(a.roots).toEqual(['/srv/a', '/srv/b']);
    expect(a.urlHosts).toEqual(['data.example.com', '127.0.0.1:8080']);
    expect(() => FileAccess.parse('relative/dir', undefined)).toThrow(
      'JUNCTION_FILE_ROOTS: "relative/dir" is not an absolute folder',
    );
    expect(() => FileAccess.parse(undefined, 'http://x/')).toThrow(
      'JUNCTION_URL_HOSTS: "http://x/" is neither a host name nor host:port (e.g. data.example.com or 127.0.0.1:8080)',
    );
  });

  it("refuses a root that contains Junction's data directory or lies in it outside files/", () => {
    const data = path.join(dir, 'data');
    mkdirSync(path.join(data, 'sqlite'), { recursive: true });
    expect(() => FileAccess.parse(dir, undefined, data)).toThrow(
      `JUNCTION_FILE_ROOTS: "${dir}" contains Junction's data directory (${data}), whose junction.db and secret.key no source may read; name a folder beside it`,
    );
    expect(() => FileAccess.parse(path.join(data, 'sqlite'), undefined, data)).toThrow(
      /is inside Junction's data directory/,
    );
    expect(FileAccess.parse(path.join(data, 'files', 'x'), undefined, data).roots).toEqual([
      path.join(data, 'files', 'x'),
    ]);
  });

  it('gives file and document sources the server lists, whatever their options carried', () => {
    const a = FileAccess.parse(roots, '127.0.0.1');
    const forged = {
      name: 's',
      engine: 'documents',
      options: { fileRoots: ['/'], urlHosts: ['evil.example'] },
    } as const;
    expect(a.apply(forged as never).options).toEqual({ fileRoots: [roots], urlHosts: ['127.0.0.1'] });
    const pg = { name: 'p', engine: 'postgresql', host: 'x' } as const;
    expect(a.apply(pg)).toBe(pg);
  });

  it('accepts a root, relative paths and globs under a root', async () => {
    const a = FileAccess.parse(roots, undefined);
    await a.check({
      name: 's',
      engine: 'duckdb',
      options: { files: { root: roots, tables: [{ path: 'sales/*.csv' }] } },
    });
    await a.check({ name: 's', engine: 'duckdb', options: { files: { tables: [{ path: `${roots}/**/*.csv` }] } } });
    await a.check({
      name: 's',
      engine: 'documents',
      options: { documents: { root: path.join(roots, 'sales'), tables: [{ from: { path: 'a.csv' } }] } },
    });
    // the connector refuses what matched files resolve to; a missing file under a root is its business
    await a.check({ name: 's', engine: 'duckdb', file: path.join(roots, 'not-yet.duckdb'), options: {} });
  });

  it('refuses a root, a path, a glob, a symlink and a database file outside the roots', async () => {
    const a = FileAccess.parse(roots, undefined);
    expect(await refusal(a.check({ name: 's', engine: 'duckdb', options: { files: { root: outsideDir } } }))).toEqual({
      code: 'file_outside_roots',
      kind: 'user',
      message: `Source "s" may not read "${outsideDir}": it is not inside a folder allowed by JUNCTION_FILE_ROOTS (${roots}).`,
    });
    expect(
      (
        await refusal(
          a.check({
            name: 's',
            engine: 'duckdb',
            options: { files: { root: roots, tables: [{ path: '../elsewhere/secret.csv' }] } },
          }),
        )
      ).message,
    ).toBe('Source "s" may not read "../elsewhere/secret.csv": a path with ".." is not accepted.');
    expect(
      (
        await refusal(
          a.check({ name: 's', engine: 'duckdb', options: { files: { tables: [{ path: `${outsideDir}/*.csv` }] } } }),
        )
      ).code,
    ).toBe('file_outside_roots');
    expect(
      (
        await refusal(
          a.check({
            name: 's',
            engine: 'documents',
            options: { documents: { root: roots, tables: [{ from: { path: 'escape/secret.csv' } }] } },
          }),
        )
      ).message,
    ).toBe(
      `Source "s" may not read "escape/secret.csv": it is not inside a folder allowed by JUNCTION_FILE_ROOTS (${roots}).`,
    );
    expect((await refusal(a.check({ name: 's', engine: 'duckdb', file: '/etc/passwd', options: {} }))).code).toBe(
      'file_outside_roots',
    );
    expect(
      (await refusal(a.check({ name: 's', engine: 'duckdb', options: { files: { tables: [{ path: 'a.csv' }] } } })))
        .message,
    ).toBe('Source "s" may not read "a.csv": a relative path needs a root folder to resolve in.');
  });

  it('refuses every file when no root is configured', async () => {
    const a = FileAccess.parse(undefined, undefined);
    expect((await refusal(a.check({ name: 's', engine: 'duckdb', options: { files: { root: roots } } }))).message).toBe(
      `Source "s" may not read "${roots}": it is not inside a folder allowed by JUNCTION_FILE_ROOTS (none).`,
    );
  });

  it('allows URLs on listed hosts only (a bare host on any port, host:port on that port)', async () => {
    const a = FileAccess.parse(roots, 'data.example.com,127.0.0.1:8080');
    const doc = (url: string) => ({
      name: 'feeds',
      engine: 'documents',
      options: { documents: { tables: [{ from: { url } }] } },
    });
    await a.check(doc('https://data.example.com/a.xml'));
    await a.check(doc('http://DATA.example.com:9000/a.xml'));
    await a.check(doc('http://127.0.0.1:8080/a.json'));
    expect(await refusal(a.check(doc('http://127.0.0.1:8081/a.json')))).toEqual({
      code: 'url_host_not_allowed',
      kind: 'user',
      message:
        'Source "feeds" may not fetch "http://127.0.0.1:8081/a.json": host 127.0.0.1:8081 is not allowed by JUNCTION_URL_HOSTS (data.example.com, 127.0.0.1:8080).',
    });
    expect((await refusal(a.check(doc('https://evil.example.com/a.xml')))).code).toBe('url_host_not_allowed');
    expect((await refusal(a.check(doc('https://u:s3cret@data.example.com/a.xml')))).message).toBe(
      'Source "feeds": a URL may not carry a user or password; put credentials in the secret headers.',
    );
    expect((await refusal(a.check(doc('file:///etc/passwd')))).message).toBe(
      'Source "feeds": "file:///etc/passwd" is not an http or https URL.',
    );
  });

  it('leaves other engines to JUNCTION_SOURCE_ALLOW', async () => {
    await FileAccess.parse(undefined, undefined).check({ name: 'p', engine: 'sqlite', file: '/etc/passwd' });
  });
});
