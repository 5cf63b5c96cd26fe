import { link, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveReal, SourceAllow } from './source-allow.js';

let root: string;
let data: string;
let outside: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'jt-allow-'));
  data = path.join(root, 'data');
  outside = path.join(root, 'outside');
  for (const d of [data, path.join(data, 'sqlite'), path.join(data, 'postgres', 'base'), outside])
    mkdirSync(d, { recursive: true });
  for (const f of ['junction.db', 'secret.key', 'demo.json', 'materialized.db']) writeFileSync(path.join(data, f), 'x');
  writeFileSync(path.join(data, 'sqlite', 'dbC.sqlite'), 'x');
  writeFileSync(path.join(outside, 'ok.sqlite'), 'x');
  symlinkSync(path.join(data, 'junction.db'), path.join(outside, 'meta.sqlite'));
  symlinkSync(data, path.join(outside, 'data-link'));
  // dangling: opening it would create the file it names
  symlinkSync(path.join(data, 'new.db'), path.join(outside, 'dangling.sqlite'));
  await promisify(link)(path.join(data, 'secret.key'), path.join(outside, 'hard.sqlite'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sqlite = (file: string) => ({ name: 's', engine: 'sqlite', file });
const pg = (host?: string) => ({ name: 's', engine: 'postgresql', host });
const refusal = async (p: Promise<void>) => {
  try {
    await p;
  } catch (e) {
    return e as { code: string; kind: string; message: string; details: Record<string, unknown> };
  }
  return undefined;
};

describe('SourceAllow', () => {
  it('by default allows any host and SQLite files only under the data directory’s sqlite/ folder', async () => {
    const allow = SourceAllow.parse(undefined, data);
    await expect(allow.check(pg('db.example.com'))).resolves.toBeUndefined();
    await expect(allow.check(pg('10.1.2.3'))).resolves.toBeUndefined();
    await expect(allow.check(pg())).resolves.toBeUndefined();
    await expect(allow.check(sqlite(path.join(data, 'sqlite', 'dbC.sqlite')))).resolves.toBeUndefined();
    await expect(allow.check(sqlite(path.join(data, 'sqlite', 'not-yet.sqlite')))).resolves.toBeUndefined();
    await expect(allow.check(sqlite(':memory:'))).resolves.toBeUndefined();
    const e = await refusal(allow.check(sqlite(path.join(outside, 'ok.sqlite'))));
    expect(e).toMatchObject({
      code: 'source_not_allowed',
      kind: 'forbidden',
      details: { rule: 'JUNCTION_SOURCE_ALLOW' },
    });
    expect(e!.message).toContain('JUNCTION_SOURCE_ALLOW');
  });

  it('never lets a file resolve into the data directory, whatever the list allows', async () => {
    for (const spec of [undefined, `*,${root}`, data]) {
      const allow = SourceAllow.parse(spec, data);
      for (const file of [
        path.join(data, 'junction.db'),
        path.join(data, 'secret.key'),
        path.join(data, 'demo.json'),
        path.join(data, 'materialized.db'),
        path.join(data, 'not-yet.db'),
        path.join(data, 'postgres', 'base', 'x'),
        path.join(outside, 'meta.sqlite'),
        path.join(outside, 'data-link', 'secret.key'),
        path.join(outside, 'data-link', 'missing', 'x.db'),
        path.join(outside, 'dangling.sqlite'),
        path.join(outside, 'hard.sqlite'),
      ]) {
        const e = await refusal(allow.check(sqlite(file)));
        expect(e, `${spec} ${file}`).toMatchObject({ code: 'source_not_allowed', details: { rule: 'data_directory' } });
      }
    }
    // a relative path resolves as the connector would open it (against the working directory)
    const rel = path.relative(process.cwd(), path.join(data, 'junction.db'));
    expect(await refusal(SourceAllow.parse(`${root}`, data).check(sqlite(rel)))).toMatchObject({
      code: 'source_not_allowed',
    });
  });

  it('reads ".." as refused, since it means something else after a symlink', async () => {
    const allow = SourceAllow.parse(outside, data);
    const e = await refusal(allow.check(sqlite(`${outside}/x/../ok.sqlite`)));
    expect(e).toMatchObject({ code: 'source_not_allowed', details: { rule: 'path' } });
    await expect(allow.check(sqlite(path.join(outside, 'ok.sqlite')))).resolves.toBeUndefined();
  });

  it('takes hosts, wildcard names, IPv4 and IPv6 addresses and CIDRs', async () => {
    const allow = SourceAllow.parse(
      'db.example.com, *.corp.example, 10.0.0.0/8, fd00::/8, 192.168.1.5, ::1, localhost',
      data,
    );
    for (const host of [
      'db.example.com',
      'DB.Example.com.',
      'a.corp.example',
      '10.20.30.40',
      'fd12::1',
      '[::1]',
      '192.168.1.5',
      '::ffff:10.0.0.1',
      'localhost',
    ])
      await expect(allow.check(pg(host)), host).resolves.toBeUndefined();
    for (const host of ['corp.example', 'evil.com', '11.0.0.1', '192.168.1.6', 'fe80::1', '127.0.0.1']) {
      const e = await refusal(allow.check(pg(host)));
      expect(e, host).toMatchObject({
        code: 'source_not_allowed',
        details: { field: 'host', rule: 'JUNCTION_SOURCE_ALLOW' },
      });
      expect(e!.message).toContain(host);
    }
    // no host given: the connectors' default, 127.0.0.1
    expect(await refusal(allow.check(pg()))).toMatchObject({ code: 'source_not_allowed' });
    // the list replaces the default: no folder listed, no SQLite file
    expect(await refusal(allow.check(sqlite(path.join(data, 'sqlite', 'dbC.sqlite'))))).toMatchObject({
      code: 'source_not_allowed',
    });
  });

  it('allows a host name by CIDR when every address it resolves to is inside one', async () => {
    await expect(SourceAllow.parse('127.0.0.0/8,::1/128', data).check(pg('localhost'))).resolves.toBeUndefined();
    expect(await refusal(SourceAllow.parse('10.0.0.0/8', data).check(pg('localhost')))).toMatchObject({
      code: 'source_not_allowed',
    });
    // a name that does not resolve is refused like any other: nothing tells it apart
    const e = await refusal(SourceAllow.parse('10.0.0.0/8', data).check(pg('no-such-host.invalid')));
    expect(e).toMatchObject({ code: 'source_not_allowed', details: { rule: 'JUNCTION_SOURCE_ALLOW' } });
  });

  it('treats a PostgreSQL socket folder as a path: refused unless its folder is listed, never in the data directory', async () => {
    expect(await refusal(SourceAllow.parse(undefined, data).check(pg('/var/run/postgresql')))).toMatchObject({
      code: 'source_not_allowed',
      details: { field: 'host' },
    });
    await expect(SourceAllow.parse('/var/run', data).check(pg('/var/run/postgresql'))).resolves.toBeUndefined();
    expect(await refusal(SourceAllow.parse(`*,${root}`, data).check(pg(path.join(data, 'postgres'))))).toMatchObject({
      details: { rule: 'data_directory' },
    });
  });

  it('refuses an unreadable list at start-up', () => {
    for (const bad of ['10.0.0.0/33', 'relative/folder', 'bad host!', '1.2.3.4/8/9'])
      expect(() => SourceAllow.parse(bad, data), bad).toThrow(/JUNCTION_SOURCE_ALLOW/);
    expect(SourceAllow.parse(' , ', data).entries).toEqual(['*', path.join(data, 'sqlite')]);
  });

  it('resolves a path that does not exist yet through its existing, symlinked ancestors', async () => {
    expect(await resolveReal(path.join(outside, 'data-link', 'a', 'b.db'))).toBe(
      path.join(await resolveReal(data), 'a', 'b.db'),
    );
  });
});
