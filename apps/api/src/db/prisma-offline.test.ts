import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const apiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const repo = path.resolve(apiDir, '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'jt-prisma-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('Prisma without the network', () => {
  it('the PostgreSQL schema is the generated twin of the SQLite one', () => {
    const r = spawnSync(process.execPath, [path.join(repo, 'prisma/sync-schemas.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('`prisma generate` succeeds with no engine download (our prisma.config.ts), for both providers', () => {
    for (const [file, out] of [
      ['prisma/schema.prisma', 'sqlite-client'],
      ['prisma/postgres/schema.prisma', 'pg-client'],
    ]) {
      const schema = readFileSync(path.join(repo, file), 'utf8').replace(
        /output\s*=\s*"[^"]+"/,
        `output   = "${path.join(tmp, out)}"`,
      );
      const schemaFile = path.join(tmp, `${out}.prisma`);
      writeFileSync(schemaFile, schema);
      // an unroutable proxy makes any download attempt fail fast instead of hanging
      const r = spawnSync(path.join(repo, 'node_modules/.bin/prisma'), ['generate', '--schema', schemaFile], {
        cwd: apiDir,
        encoding: 'utf8',
        env: {
          ...process.env,
          HTTPS_PROXY: 'http://127.0.0.1:9',
          HTTP_PROXY: 'http://127.0.0.1:9',
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
        },
        timeout: 120_000,
      });
      expect(r.stdout + r.stderr).toContain('Generated Prisma Client');
      expect(r.status).toBe(0);
      expect(existsSync(path.join(tmp, out, 'client.ts'))).toBe(true);
    }
  });
});
