import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createConnector } from '@junction/connectors';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedRowCount } from './generate.js';
import { sourceFromUrl } from './source-url.js';

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

describe('tpch load CLI', () => {
  const db = `jt_tpch_cli_${randomBytes(4).toString('hex')}`;
  const url = new URL(pgUrl);
  url.pathname = `/${db}`;

  afterAll(async () => {
    const admin = createConnector(sourceFromUrl('admin', pgUrl));
    await admin.execute(`drop database if exists "${db}" with (force)`);
    await admin.close();
  });

  it('creates the database, loads the single layout, and skips it the second time', async () => {
    const first = await run(['--sf', '0.001', '--layout', 'single', '--single', url.toString()]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      `direct → postgresql postgres://${url.username}:***@${url.host}/${db} database ${db}`,
    );
    expect(first.stderr).toContain(
      `direct: region 5, nation 25, supplier 10, part 200, partsupp 800, customer 150, orders 1500, lineitem ${expectedRowCount('lineitem', 0.001)} (`,
    );
    expect(first.stderr).not.toContain(`:${url.password}@`);

    const second = await run(['--sf', '0.001', '--layout', 'single', '--single', url.toString()]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('direct: already loaded (sf 0.001, seed 19920101), skipped');
  });

  it('rejects bad options with a message and the usage', async () => {
    const badSf = await run(['--sf', '20']);
    expect(badSf.code).toBe(1);
    expect(badSf.stderr).toContain('tpch load failed: --sf must be a number in [0.001, 10]');
    expect(badSf.stderr).toContain('usage: npm run load -- [options]');
    const badLayout = await run(['--layout', 'star']);
    expect(badLayout.code).toBe(1);
    expect(badLayout.stderr).toContain('--layout must be jdv, single or all');
  });

  it('prints the usage for --help', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--layout <name>    jdv | single | all (default jdv)');
  });
});
