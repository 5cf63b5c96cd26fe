import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const bench = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'packages/query-core/bench/main.ts', ...args], {
    cwd: repo,
    timeout: 60_000,
    env: { ...process.env, JUNCTION_TOKEN: '', ...env },
  });

describe('npm run bench', () => {
  it('--help prints how to call each benchmark, with or without a preset', async () => {
    for (const args of [['--help'], ['--preset', 'jdv', '--help'], ['-h']]) {
      const { stdout } = await bench(args);
      expect(stdout).toContain('--preset jdv|oltp-mix|streams');
      expect(stdout).toContain('JUNCTION_TOKEN');
      expect(stdout).toContain('--preset tpch22');
      expect(stdout).toContain('--documents [--sf 0.1]');
      expect(stdout).toContain('--shapes [--sf 1]');
    }
  });

  it('the lab reads the token from JUNCTION_TOKEN; one on the command line works but is warned about', async () => {
    // nothing listens on port 9: the call fails after the options are read
    const url = ['--preset', 'jdv', '--url', 'http://127.0.0.1:9'];
    const withFlag = await bench([...url, '--token', 'jct_x']).catch((e: { stderr: string }) => e);
    expect(withFlag.stderr).toMatch(/warning: a token given with --token may be echoed/);
    const fromEnv = await bench(url, { JUNCTION_TOKEN: 'jct_x' }).catch((e: { stderr: string }) => e);
    expect(fromEnv.stderr).not.toMatch(/warning/);
    expect(fromEnv.stderr).not.toMatch(/JUNCTION_TOKEN is required/);
    const none = await bench(url).catch((e: { stderr: string }) => e);
    expect(none.stderr).toMatch(/JUNCTION_TOKEN is required/);
  });
});
