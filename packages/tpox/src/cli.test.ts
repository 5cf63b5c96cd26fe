import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnector } from '@junction/connectors';
import { sourceFromUrl } from '@junction/tpch';
import { afterAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const pgUrl = process.env.TEST_PG_URL as string;

function run(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('tpox CLI', () => {
  const db = `i29_tpox_cli_${randomBytes(4).toString('hex')}`;
  let dir: string | undefined;

  afterAll(async () => {
    const admin = createConnector(sourceFromUrl('admin', pgUrl));
    await admin.execute(`drop database if exists "${db}" with (force)`);
    await admin.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses bad options with the usage', async () => {
    const r = await run(['--sf', '0.001']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('tpox failed: --out is required');
    expect(r.stderr).toContain('usage: npx tsx packages/tpox/src/cli.ts');
    const bad = await run(['--sf', '20', '--out', '/nonexistent']);
    expect(bad.stderr).toContain('tpox failed: --sf must be a number in [0.001, 10]');
  });

  it('writes the documents and prices.parquet, and shreds them into a database', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tpox-cli-'));
    const admin = createConnector(sourceFromUrl('admin', pgUrl));
    await admin.execute(`create database "${db}"`);
    await admin.close();
    const url = new URL(pgUrl);
    url.pathname = `/${db}`;
    const r = await run(['--sf', '0.001', '--out', dir, '--shred', url.toString()]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^tpox sf 0\.001: 150 customers \(322 accounts, 1273 positions\), 450 orders, 500 securities, 130000 daily prices → .* \(4 files, /,
    );
    expect(r.stderr).toMatch(
      /shredded tables in i29_tpox_cli_\w+: customer_account 150, account 322, position 1273, orders 450, security 500 \(/,
    );
    expect((await readdir(dir)).sort()).toEqual(['customers.xml', 'orders.xml', 'prices.parquet', 'securities.xml']);
  });
});
