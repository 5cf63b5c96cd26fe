import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  JunctionError,
  capabilitiesForEngine,
  renderFor,
  type CatalogSnapshot,
  type Connector,
  type SourceSemantics,
} from '@junction/connectors';
import { Engine } from '../../src/engine.js';
import type { ExecutionBackend, QueryOptions } from '../../src/api.js';
import { PG_SEMANTICS, registeredSources, tableInfo } from './fixtures.js';
import { planOnlyBackend } from '../support/backend.js';

/**
 * Golden EXPLAIN of queries run on a backend engine (Trino's place, held by a plan-only test
 * backend that names tables catalog.schema.table): which engine was chosen and why, the one
 * statement a join across sources becomes, what a source the backend cannot read keeps local,
 * and the backend's own plan under its statement. UPDATE_GOLDEN=1 rewrites the files.
 */
const here = dirname(fileURLToPath(import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function expectGolden(file: string, text: string): void {
  if (update) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } else if (!existsSync(file)) {
    throw new Error(`${file} is missing: run with UPDATE_GOLDEN=1 to write it, then review it`);
  }
  expect(text).toBe(readFileSync(file, 'utf8'));
}

const SQLITE_SEMANTICS: SourceSemantics = {
  serverVersion: '3.45.0',
  defaultCollation: 'BINARY',
  caseSensitive: true,
  accentSensitive: true,
  padSpace: false,
  timeZone: 'UTC',
  maxBindParams: 32766,
  maxIdentifierLength: 1000,
};

/** dbE: a SQLite file holding region, which the backend cannot reach. */
function sqliteSource() {
  const unused = (): never => {
    throw new JunctionError('plan_only', 'internal', 'dbE is a plan-only fixture.');
  };
  const connector: Connector = {
    name: 'dbE',
    engine: 'sqlite',
    capabilities: () => capabilitiesForEngine('sqlite', SQLITE_SEMANTICS),
    render: (q) => renderFor('sqlite', q, SQLITE_SEMANTICS),
    test: unused,
    probe: async () => SQLITE_SEMANTICS,
    introspect: unused,
    stream: unused,
    execute: unused,
    bulkLoad: unused,
    close: async () => undefined,
  };
  const catalog: CatalogSnapshot = {
    defaultSchema: 'main',
    tables: [tableInfo('region', 'main')],
    introspectedAt: '2026-01-01T00:00:00Z',
  };
  return { name: 'dbE', connector, catalog, semantics: SQLITE_SEMANTICS };
}

const backend: ExecutionBackend = {
  name: 'trino',
  connector: planOnlyBackend('trino', PG_SEMANTICS),
  tableOf: (source) =>
    source === 'dbE'
      ? { local: true, reason: 'SQLite files are not reachable from trino' }
      : source === 'dbB'
        ? { catalog: 'crm', schema: 'sales' }
        : { catalog: source.toLowerCase() },
  autoRowsThreshold: 1_000_000,
  explain: async (q) =>
    `Fragment 0 [SINGLE]\n    Output layout: [${q.columns.map((c) => c.name).join(', ')}]\n    Output partitioning: SINGLE []`,
};

const engine = new Engine({ workers: 0, backend });
for (const s of registeredSources('pg-mariadb')) engine.addSource(s);
engine.addSource(sqliteSource());
afterAll(() => engine.close());

const CASES: Record<string, { sql: string; options?: QueryOptions }> = {
  // PostgreSQL and MariaDB tables joined and grouped inside the backend: one statement
  'join-two-sources-hint': {
    sql: `/*+ engine(trino) */ SELECT n_name, count(*) AS customers FROM dbB.customer JOIN dbD.nation ON c_nationkey = n_nationkey WHERE c_acctbal > 0 GROUP BY n_name ORDER BY n_name`,
  },
  // the option says the same as the hint
  'join-two-sources-option': {
    sql: `SELECT o_orderkey, c_name FROM dbA.orders JOIN dbB.customer ON o_custkey = c_custkey WHERE o_totalprice > 500000`,
    options: { engine: 'trino' },
  },
  // region lives in SQLite: orders and customer meet in the backend, region joins in Junction
  'sqlite-source-kept-local': {
    sql: `/*+ engine(trino) */ SELECT r_name, count(*) AS customers FROM dbB.customer JOIN dbD.nation ON c_nationkey = n_nationkey JOIN dbE.region ON n_regionkey = r_regionkey GROUP BY r_name`,
  },
  // only SQLite: nothing for the backend, and the plan says why it ran locally
  'only-sqlite-runs-locally': { sql: `/*+ engine(trino) */ SELECT r_name FROM dbE.region WHERE r_regionkey = 1` },
  // a hint for local keeps the federated plan with a backend configured
  'hint-local': {
    sql: `/*+ engine(local) */ SELECT n_name, count(*) AS customers FROM dbB.customer JOIN dbD.nation ON c_nationkey = n_nationkey GROUP BY n_name`,
  },
  // auto: one customer and its nation fetched: well under the threshold
  'auto-under-threshold': {
    sql: `SELECT c_name, n_name FROM dbB.customer JOIN dbD.nation ON c_nationkey = n_nationkey WHERE c_custkey = 42`,
    options: { engine: 'auto' },
  },
  // auto: the orders of a market segment's customers would be fetched whole, and their
  // customers' hash table is past this query's memory budget: over both, so the backend
  'auto-over-threshold': {
    sql: `/*+ engine(auto) */ SELECT o_orderkey, o_totalprice, c_name FROM dbA.orders JOIN dbB.customer ON o_custkey = c_custkey WHERE c_mktsegment = 'BUILDING'`,
    options: { memoryBudgetBytes: 100 * 1024 },
  },
  // the same statement within the default budget: many rows fetched, little held, so Junction
  'auto-over-threshold-within-budget': {
    sql: `/*+ engine(auto) */ SELECT o_orderkey, o_totalprice, c_name FROM dbA.orders JOIN dbB.customer ON o_custkey = c_custkey WHERE c_mktsegment = 'BUILDING'`,
  },
  // the same statement grouped: each source groups its own rows first, and little is fetched
  'auto-grouped-under-threshold': {
    sql: `/*+ engine(auto) */ SELECT o_orderpriority, count(*) AS orders FROM dbA.orders JOIN dbB.customer ON o_custkey = c_custkey WHERE c_mktsegment = 'BUILDING' GROUP BY o_orderpriority`,
  },
};

describe('golden EXPLAIN on a backend engine', () => {
  it.each(Object.keys(CASES))('%s', async (name) => {
    const { sql, options } = CASES[name];
    const out = await engine.explain(sql, options ?? {});
    const text = [`-- ${name}${options ? `, options ${JSON.stringify(options)}` : ''}`, sql, '', out.text, ''].join(
      '\n',
    );
    expectGolden(join(here, 'backend', `${name}.explain`), text);
  });
});

describe('choosing the engine', () => {
  it('reports the choice with the plan', async () => {
    expect((await engine.explain(CASES['join-two-sources-hint'].sql)).engine).toEqual({
      engine: 'trino',
      reason: 'asked for by the hint engine(trino)',
    });
    expect((await engine.explain('SELECT 1 AS one')).engine).toEqual({ engine: 'local', reason: 'the default' });
  });

  it('refuses an unknown engine, pointing at its name in the hint', async () => {
    const sql = 'SELECT 1 AS one /* plain */';
    await expect(engine.explain(`/*+ engine(presto) */ ${sql}`)).rejects.toMatchObject({
      code: 'unknown_engine',
      kind: 'user',
      message: 'There is no engine named "presto": use local, auto or trino.',
      position: { offset: 11, line: 1, column: 12, length: 6 },
    });
    await expect(engine.explain(sql, { engine: 'presto' })).rejects.toMatchObject({
      code: 'unknown_engine',
      position: undefined,
    });
  });

  it('says trino is not configured rather than running the query locally', async () => {
    const bare = new Engine({ workers: 0 });
    try {
      for (const s of registeredSources('pg-mariadb')) bare.addSource(s);
      await expect(bare.explain('/*+ engine(trino) */ SELECT n_name FROM dbD.nation')).rejects.toMatchObject({
        code: 'trino_not_configured',
        kind: 'user',
        position: { offset: 11, length: 5 },
      });
      await expect(bare.query('SELECT n_name FROM dbD.nation', { engine: 'trino' })).rejects.toMatchObject({
        code: 'trino_not_configured',
      });
      // without a backend and without a request, EXPLAIN says nothing about engines
      const plain = await bare.explain('SELECT n_name FROM dbD.nation');
      expect(plain.engine).toBeUndefined();
      expect(plain.text.startsWith('RemoteQuery [dbD]')).toBe(true);
    } finally {
      await bare.close();
    }
  });

  it('keeps the backend and the sources apart by name', () => {
    const other = new Engine({ workers: 0 });
    try {
      const [dbA] = registeredSources('pg-mariadb');
      other.addSource({ ...dbA, name: 'trino' });
      expect(() => other.setBackend(backend)).toThrow(expect.objectContaining({ code: 'backend_name_taken' }));
      other.removeSource('trino');
      other.setBackend(backend);
      expect(() => other.addSource({ ...dbA, name: 'Trino' })).toThrow(
        expect.objectContaining({ code: 'source_name_reserved' }),
      );
    } finally {
      void other.close();
    }
  });
});
