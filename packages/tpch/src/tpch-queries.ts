import { readdirSync, readFileSync } from 'node:fs';
import { LAYOUTS } from './layouts.js';
import { TABLE_NAMES } from './schema.js';

/**
 * TPC-H queries 1–22 (workload/tpch/qNN.sql) with the specification's validation
 * substitution parameters (clause 2.4, "Query Validation"), written once with unqualified
 * table names: one database holding all eight tables answers them as they are, and the
 * federation answers the same text through a search path that names, for each table, the
 * source of the JDV layout that holds it. Q15's view is a WITH clause, as most engines run it.
 * The engine's binder tests, golden plans and federated correctness tests read them too.
 */
const DIR = new URL('../workload/tpch/', import.meta.url);

export interface TpchQuery {
  /** Q1 … Q22 */
  readonly id: string;
  readonly number: number;
  readonly sql: string;
}

let cached: readonly TpchQuery[] | undefined;

/** Q11's FRACTION at SF 1, as the query file writes it. */
const Q11_FRACTION = '0.0001000000';

/**
 * The queries for a scale factor: Q11's FRACTION is 0.0001 / SF (clause 2.4.11.3), so that at
 * every scale it keeps the same share of parts. Left at SF 1's value, Q11 answers nothing at
 * SF 10 and compares nothing.
 */
export function tpchQueries(sf = 1): readonly TpchQuery[] {
  const queries = sqlFiles();
  if (sf === 1) return queries;
  if (!(sf > 0)) throw new Error(`a scale factor must be positive (got ${sf})`);
  const fraction = (0.0001 / sf).toFixed(10);
  return queries.map((q) => (q.number === 11 ? { ...q, sql: q.sql.replace(Q11_FRACTION, fraction) } : q));
}

function sqlFiles(): readonly TpchQuery[] {
  if (cached) return cached;
  const files = readdirSync(DIR)
    .filter((f) => /^q\d\d\.sql$/.test(f))
    .sort();
  cached = files.map((f) => {
    const number = Number(f.slice(1, 3));
    return { id: `Q${number}`, number, sql: readFileSync(new URL(f, DIR), 'utf8').trim() };
  });
  if (cached.length !== 22 || cached.some((q, i) => q.number !== i + 1))
    throw new Error(`workload/tpch must hold q01.sql … q22.sql, found ${files.join(', ')}`);
  if (!cached[10].sql.includes(Q11_FRACTION)) throw new Error(`q11.sql must hold FRACTION ${Q11_FRACTION}`);
  return cached;
}

/**
 * The search path under which the unqualified queries read the JDV federation: the sources in
 * layout order, so a table two sources hold (customer, in dbB and dbD) comes from the first,
 * PostgreSQL B, as the federated TPC-H layout places it.
 */
export function tpchFederatedSearchPath(): readonly string[] {
  const path = LAYOUTS.jdv.map((s) => s.name);
  for (const table of TABLE_NAMES)
    if (!LAYOUTS.jdv.some((s) => s.tables.includes(table))) throw new Error(`the JDV layout places no ${table}`);
  return path;
}

/** Where each table of the federated TPC-H comes from under tpchFederatedSearchPath(). */
export function tpchFederatedPlacement(): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of TABLE_NAMES) out[table] = LAYOUTS.jdv.find((s) => s.tables.includes(table))!.name;
  return out;
}
