import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../test/harness.js';

let dist: string;
let web: Harness;
beforeAll(async () => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'jt-web-cache-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><script src="/assets/index-B3xk_9aZ.js"></script>');
  writeFileSync(path.join(dist, 'assets', 'index-B3xk_9aZ.js'), 'console.log(1)');
  writeFileSync(path.join(dist, 'assets', 'index-B3xk_9aZ.js.gz'), 'x');
  writeFileSync(path.join(dist, 'assets', 'plain.js'), 'console.log(2)');
  writeFileSync(path.join(dist, 'favicon.svg'), '<svg/>');
  web = await startHarness({ webDist: dist });
});
afterAll(async () => {
  await web?.close();
  rmSync(dist, { recursive: true, force: true });
});

const cacheControl = async (url: string, headers: Record<string, string> = {}) =>
  (await web.as(null, { method: 'GET', url, headers })).headers['cache-control'];

describe('caching of the built web app', () => {
  it('keeps hashed assets for a year: their name changes with their content', async () => {
    expect(await cacheControl('/assets/index-B3xk_9aZ.js')).toBe('public, max-age=31536000, immutable');
    expect(await cacheControl('/assets/index-B3xk_9aZ.js', { 'accept-encoding': 'gzip' })).toBe(
      'public, max-age=31536000, immutable',
    );
  });

  it('revalidates the app shell and anything without a hash in its name', async () => {
    expect(await cacheControl('/')).toBe('no-cache');
    expect(await cacheControl('/index.html')).toBe('no-cache');
    expect(await cacheControl('/queries/42')).toBe('no-cache');
    expect(await cacheControl('/assets/plain.js')).toBe('no-cache');
    expect(await cacheControl('/favicon.svg')).toBe('no-cache');
  });
});
