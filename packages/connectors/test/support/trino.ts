import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TrinoConfig } from '../../src/trino/connector.js';

const SCRIPT = fileURLToPath(new URL('../../../../scripts/trino.sh', import.meta.url));

export type TrinoForTests = { readonly url: URL; readonly skip?: undefined } | { readonly url?: undefined; readonly skip: string };

let started: Promise<TrinoForTests> | undefined;

/**
 * The Trino the live tests use: TRINO_URL when set, otherwise the repository's own
 * (scripts/trino.sh start: installs on first use, ~15 s to start when installed). When neither
 * is possible the reason is printed loudly and the live tests skip.
 */
export function trinoForTests(): Promise<TrinoForTests> {
  started ??= (async (): Promise<TrinoForTests> => {
    if (process.env.TRINO_URL) return { url: new URL(process.env.TRINO_URL) };
    const port = process.env.TRINO_PORT ?? '8088';
    try {
      await new Promise<void>((resolve, reject) =>
        execFile('bash', [SCRIPT, 'start'], { timeout: 600_000 }, (err, _out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve())),
      );
      return { url: new URL(`http://127.0.0.1:${port}`) };
    } catch (err) {
      const skip = `TRINO LIVE TESTS SKIPPED: TRINO_URL is unset and "bash scripts/trino.sh start" failed: ${(err as Error).message}`;
      console.warn(`\n${'!'.repeat(100)}\n${skip}\n${'!'.repeat(100)}\n`);
      return { skip };
    }
  })();
  return started;
}

export function trinoConfig(url: URL, overrides: Partial<TrinoConfig> = {}): TrinoConfig {
  return {
    name: 'trino',
    engine: 'trino',
    host: url.hostname,
    port: Number(url.port || 8080),
    user: 'junction',
    ...overrides,
  };
}
