import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatType } from '@junction/connectors';
import { jdvWorkload } from '@junction/tpch/workload';
import { printPlan } from '../../plan/print.js';
import { jdvCatalog } from '../test-fixture.js';
import { bind } from './bind.js';

/**
 * Binder golden files for the JDV workload (federated forms, queries A–H): the bound plan
 * before optimization, its output columns and parameter types. UPDATE_GOLDEN=1 rewrites them;
 * review the diff.
 */
const here = dirname(fileURLToPath(import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const workload = jdvWorkload();
const queries = workload.queries.map((q) => q.id);

describe('JDV federated queries bind to the expected logical plans', () => {
  const catalog = jdvCatalog();
  it('covers queries A–H', () => {
    expect(queries).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
  });
  it.each(queries)('query %s', (q) => {
    const sql = workload.query(q).federated;
    const bound = bind(sql, catalog);
    const text = [
      `-- ${q}.federated.sql`,
      sql,
      '',
      printPlan(bound.plan),
      '',
      `columns: ${bound.columns.map((c) => `${c.name} ${formatType(c.type)}${c.nullable ? ' NULL' : ''}`).join(', ')}`,
      `params: ${bound.paramTypes.map(formatType).join(', ') || '-'}`,
      '',
    ].join('\n');
    const file = join(here, 'golden', `${q}.plan`);
    if (update) writeFileSync(file, text);
    else if (!existsSync(file)) throw new Error(`${file} is missing: run with UPDATE_GOLDEN=1 to write it, then review it`);
    expect(text).toBe(readFileSync(file, 'utf8'));
  });
});
