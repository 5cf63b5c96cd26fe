import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Value } from '@junction/connectors';
import { collectRows, createEnvironment, type SltEnvironment } from '../../../test/slt/environment.js';
import { formatRows } from '../../../test/slt/slt-file.js';
import { TPCH_QUERIES } from './tpch-queries.js';

/**
 * The 22 TPC-H queries, federated over the JDV layout (dbA/dbB on PostgreSQL, dbC/dbD on
 * MariaDB, TPC-H SF 0.01 loaded into fresh jt_slt_* databases that are dropped afterwards),
 * return exactly the rows PostgreSQL returns for the same SQL on one database holding all
 * tables, with pushdown on and off. This checks the binder's semantics (decorrelation,
 * NULL-aware anti joins, OR factoring, literal typing) end to end.
 */
let env: SltEnvironment;
beforeAll(async () => {
  env = await createEnvironment(0.01);
}, 900_000);
afterAll(async () => {
  await env?.close();
});

/** Qualifies each table with its JDV source: the federated form of the query. */
function qualify(sql: string): string {
  const map: Record<string, string> = {
    orders: 'dbA.orders',
    lineitem: 'dbA.lineitem',
    customer: 'dbB.customer',
    part: 'dbC.part',
    supplier: 'dbC.supplier',
    partsupp: 'dbC.partsupp',
    nation: 'dbD.nation',
    region: 'dbD.region',
  };
  return sql.replace(
    /\b(from|,|join)\s+(orders|lineitem|customer|partsupp|part|supplier|nation|region)\b/gi,
    (_m, kw, t) => `${kw} ${map[t.toLowerCase()]}`,
  );
}

it.each(Object.keys(TPCH_QUERIES))(
  '%s',
  async (q) => {
    const sql = TPCH_QUERIES[q];
    const direct = formatRows((await env.direct.execute(sql)).rows as Value[][], 'rowsort');
    const fed = qualify(sql);
    for (const pushdown of [true, false]) {
      const got = formatRows((await collectRows(env.engine, fed, [], pushdown)).rows, 'rowsort');
      expect(got, `${q} pushdown=${pushdown}\n${fed}`).toEqual(direct);
    }
  },
  300_000,
);
