import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { outsidePaths } from './self-contained.mjs';

const root = '/home/alice/src/junction';
// the paths under test are built, so this file does not itself name them
const up = (n: number) => '../'.repeat(n);

describe('self-contained check', () => {
  it('finds relative paths that climb out of the repository and absolute paths beside it', () => {
    const text = [
      `const jdvDir = join(here, '${up(5)}shared/workload/jdv');`,
      "const workload = '/home/alice/src/shared/workload/jdv';",
      `import { x } from '${up(2)}src/engine.js';`,
      "const own = '/home/alice/src/junction/data';",
      "const system = '/usr/bin/chromium';",
      "const dir = new URL('../workload/jdv/', import.meta.url);",
    ].join('\n');
    expect(outsidePaths(root, 'packages/query-core/test/golden/golden.test.ts', text)).toEqual([
      { line: 1, path: `${up(5)}shared/workload/jdv` },
      { line: 2, path: '/home/alice/src/shared/workload/jdv' },
    ]);
  });

  it('lets a path meant relative to another file say so', () => {
    const text = `// self-contained: relative to prisma/postgres/\n.replace('a', '${up(2)}apps/api/src/generated')`;
    expect(outsidePaths(root, 'prisma/sync.mjs', text)).toEqual([]);
    expect(outsidePaths(root, 'prisma/sync.mjs', `x('${up(2)}apps/api')`)).toEqual([{ line: 1, path: `${up(2)}apps/api` }]);
  });

  it('says nothing of absolute paths when the clone lives in the temporary directory', () => {
    expect(outsidePaths(`${tmpdir()}/junction`, 'a.ts', `const f = '${tmpdir()}/a.db';`)).toEqual([]);
  });
});
