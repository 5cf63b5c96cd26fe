import { type Connector, type Value } from '@junction/connectors';
import { TABLE_NAMES, loadTpch, type LoadTarget } from '@junction/tpch';
import { Engine } from '../../src/engine.js';
import { createMysqlDatabase, createPgDatabase, type TestDatabase } from '../support/databases.js';

/** The JDV layout (workload/jdv/layout.json) in fresh databases, plus the one-database copy. */
export const JDV_LAYOUT = [
  { name: 'dbA', engine: 'pg', tables: ['orders', 'lineitem'] },
  { name: 'dbB', engine: 'pg', tables: ['customer'] },
  { name: 'dbC', engine: 'mysql', tables: ['part', 'supplier', 'partsupp'] },
  { name: 'dbD', engine: 'mysql', tables: ['nation', 'region', 'customer'] },
] as const;

export interface SltEnvironment {
  /** Junction over dbA…dbD */
  readonly engine: Engine;
  readonly connectors: ReadonlyMap<string, Connector>;
  /** the one PostgreSQL database holding all eight tables */
  readonly direct: Connector;
  /** the generated database name behind each source, for masking it in EXPLAIN text */
  readonly databases: ReadonlyMap<string, string>;
  refresh(source: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates uniquely named databases (jt_slt_*) on the real test servers, loads TPC-H at `sf`
 * with @junction/tpch into the JDV layout and into one PostgreSQL database, and registers
 * dbA…dbD with a Junction engine. close() drops everything.
 */
export async function createEnvironment(sf: number): Promise<SltEnvironment> {
  const dbs: TestDatabase[] = [];
  const connectors = new Map<string, Connector>();
  const databases = new Map<string, string>();
  try {
    for (const s of JDV_LAYOUT) {
      const db = s.engine === 'pg' ? await createPgDatabase('slt') : await createMysqlDatabase('slt');
      dbs.push(db);
      databases.set(s.name, db.name);
      connectors.set(s.name, await db.connector(s.name));
    }
    const directDb = await createPgDatabase('slt_direct');
    dbs.push(directDb);
    const direct = await directDb.connector('direct');
    const targets: LoadTarget[] = [
      ...JDV_LAYOUT.map((s) => ({ name: s.name, connector: connectors.get(s.name)!, tables: [...s.tables] })),
      { name: 'direct', connector: direct, tables: [...TABLE_NAMES] },
    ];
    await loadTpch(targets, { sf, concurrency: 2 });
    const engine = new Engine({ workers: 1 });
    for (const [name, connector] of connectors) {
      engine.addSource({ name, connector, catalog: await connector.introspect(), semantics: await connector.probe() });
    }
    return {
      engine,
      connectors,
      direct,
      databases,
      async refresh(source) {
        engine.refreshSource(source, await connectors.get(source)!.introspect());
      },
      async close() {
        await engine.close();
        for (const db of dbs) await db.drop();
      },
    };
  } catch (e) {
    for (const db of dbs) await db.drop().catch(() => undefined);
    throw e;
  }
}

export async function collectRows(engine: Engine, sql: string, params: readonly Value[], pushdown: boolean) {
  const result = await engine.query(sql, { params, pushdown });
  const rows: Value[][] = [];
  for await (const batch of result.rows) for (const r of batch) rows.push([...r]);
  return { columns: result.columns, rows };
}
