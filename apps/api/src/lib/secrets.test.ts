import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword, loadSecretKey, SecretBox, verifyPassword } from './secrets.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'jt-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('passwords', () => {
  it('hashes with scrypt and a per-user salt; verifies only the right password', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsf', a)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });
});

describe('SecretBox', () => {
  it('round-trips, uses a fresh IV each time, and refuses tampered or foreign ciphertext', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const s1 = box.encrypt('p@ss wörd');
    const s2 = box.encrypt('p@ss wörd');
    expect(s1).not.toBe(s2);
    expect(s1).not.toContain('p@ss');
    expect(box.decrypt(s1)).toBe('p@ss wörd');
    const parts = s1.split(':');
    const data = Buffer.from(parts[3], 'base64');
    data[0] ^= 1;
    expect(() => box.decrypt([...parts.slice(0, 3), data.toString('base64')].join(':'))).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).decrypt(s1)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe('loadSecretKey', () => {
  it('creates a 0600 key file once and reuses it', () => {
    const k1 = loadSecretKey(dir, undefined);
    expect(k1.length).toBe(32);
    expect(statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(loadSecretKey(dir, undefined).equals(k1)).toBe(true);
  });

  it('takes JUNCTION_SECRET_KEY as hex or base64 and rejects other lengths', () => {
    const hex = 'ab'.repeat(32);
    expect(loadSecretKey(dir, hex).toString('hex')).toBe(hex);
    expect(loadSecretKey(dir, Buffer.alloc(32, 3).toString('base64')).equals(Buffer.alloc(32, 3))).toBe(true);
    expect(() => loadSecretKey(dir, 'short')).toThrow(/JUNCTION_SECRET_KEY/);
  });
});
