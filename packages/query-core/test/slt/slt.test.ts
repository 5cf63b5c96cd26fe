import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJunctionError, type Value } from '@junction/connectors';
import { jdvWorkload } from '@junction/tpch/workload';
import { rewriteOdbc } from '../../src/sql/odbc.js';
import { collectRows, createEnvironment, type SltEnvironment } from './environment.js';
import { formatRows, parseSlt, typeLetter, type SltRecord } from './slt-file.js';

/**
 * Correctness against real databases. TPC-H SF 0.01 is loaded into the JDV layout (dbA, dbB
 * on PostgreSQL; dbC, dbD on MariaDB) and into one PostgreSQL database, the reference.
 * - every JDV query, federated, returns exactly the rows of its direct form on the reference,
 *   with pushdown on and with pushdown off (the oracle plan);
 * - every cases/*.slt query returns its expected rows with pushdown on and off, and the
 *   expectation is what PostgreSQL itself answers on the reference database (source prefixes
 *   dbA.… removed). `explain` records pin what is pushed into which source (the real
 *   connectors' capabilities and dialects). UPDATE_SLT=1 rewrites expectations (rows from
 *   PostgreSQL, EXPLAIN from Junction); review the diff.
 */
const here = dirname(fileURLToPath(import.meta.url));
const SF = 0.01;
/** at this scale the workload swaps the study's constants that would select nothing */
const workload = jdvWorkload(SF);
const update = process.env.UPDATE_SLT === '1';

let env: SltEnvironment;
beforeAll(async () => {
  env = await createEnvironment(SF);
}, 900_000);
afterAll(async () => {
  await env?.close();
});

const sorted = (rows: Value[][]) => formatRows(rows, 'rowsort');

describe('JDV queries: federated = direct on one PostgreSQL database, with and without pushdown', () => {
  const params: Record<string, Value[][]> = { H: [[1], [77], [1499]] };
  it.each(workload.queries.map((q) => q.id))('query %s', async (q) => {
    const direct = rewriteOdbc(workload.query(q).direct).text;
    const federated = workload.query(q).federated;
    for (const p of params[q] ?? [[]]) {
      const expected = sorted((await env.direct.execute(direct, p)).rows);
      // an empty answer would make the comparison below pass whatever Junction did
      expect(expected.length, `query ${q} ${JSON.stringify(p)} selects rows at SF ${SF}`).toBeGreaterThan(0);
      const pushed = await collectRows(env.engine, federated, p, true);
      const oracle = await collectRows(env.engine, federated, p, false);
      expect(sorted(pushed.rows), `query ${q} ${JSON.stringify(p)} with pushdown`).toEqual(expected);
      expect(sorted(oracle.rows), `query ${q} ${JSON.stringify(p)} without pushdown`).toEqual(expected);
    }
  });
});

const files = readdirSync(join(here, 'cases'))
  .filter((f) => f.endsWith('.slt'))
  .sort();

describe.each(files)('%s', (file) => {
  it("returns PostgreSQL's rows through Junction, with and without pushdown", async () => {
    const path = join(here, 'cases', file);
    const text = readFileSync(path, 'utf8');
    const records = parseSlt(text);
    const refreshed = new Set<string>();
    const updates = new Map<number, string[]>();
    for (const r of records) {
      const where = `${file}:${r.line}`;
      if (r.kind === 'setup') {
        if (r.source === 'direct') await env.direct.execute(r.sql);
        else {
          await env.connectors.get(r.source)!.execute(r.sql);
          refreshed.add(r.source);
        }
        continue;
      }
      for (const s of refreshed) await env.refresh(s);
      refreshed.clear();
      if (r.kind === 'error') {
        for (const pushdown of [true, false]) {
          const err = await collectRows(env.engine, r.sql, [], pushdown).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err, `${where}: expected error ${r.code}`).toBeDefined();
          expect(isJunctionError(err) ? err.code : String(err), where).toBe(r.code);
        }
        continue;
      }
      if (r.kind === 'explain') {
        let explained = (await env.engine.explain(r.sql, { params: r.params })).text;
        for (const [source, db] of env.databases) explained = explained.replaceAll(db, `<${source} database>`);
        const text = explained.split('\n');
        if (update) updates.set(r.line, text);
        else expect(text, `${where}: EXPLAIN`).toEqual(r.expected);
        continue;
      }
      const reference = formatRows((await env.direct.execute(directSql(r.sql), r.params)).rows, r.sort);
      // an empty reference would let any answer that is also empty pass: pick constants that select rows
      expect(reference.length, `${where}: PostgreSQL's own answer is empty`).toBeGreaterThan(0);
      if (update) updates.set(r.line, reference);
      else expect(reference, `${where}: PostgreSQL's own answer differs from the file`).toEqual(r.expected);
      for (const pushdown of [true, false]) {
        const got = await collectRows(env.engine, r.sql, r.params, pushdown).catch((e: unknown) => {
          throw new Error(
            `${where} (pushdown ${pushdown ? 'on' : 'off'}): ${e instanceof Error ? e.message : String(e)}`,
            { cause: e },
          );
        });
        expect(got.columns.map(typeLetter).join(''), `${where}: column types`).toBe(r.types);
        expect(formatRows(got.rows, r.sort), `${where} (pushdown ${pushdown ? 'on' : 'off'})`).toEqual(reference);
      }
    }
    if (update) writeFileSync(path, rewriteExpectations(text, records, updates));
  });
});

/** The query as the one-database copy runs it: source qualifiers dropped. */
function directSql(sql: string): string {
  return rewriteOdbc(sql.replace(/\bdb[A-D]\./g, '')).text;
}

function rewriteExpectations(
  text: string,
  records: readonly SltRecord[],
  updates: ReadonlyMap<number, string[]>,
): string {
  const lines = text.split('\n');
  // from the bottom, so earlier line numbers stay valid
  for (const r of [...records].reverse()) {
    if ((r.kind !== 'query' && r.kind !== 'explain') || !updates.has(r.line)) continue;
    let i = r.line; // first SQL line (0-based index of the line after the header)
    while (lines[i].trim() !== '----') i++;
    let end = i + 1;
    while (end < lines.length && lines[end].trim() !== '') end++;
    lines.splice(i + 1, end - i - 1, ...updates.get(r.line)!);
  }
  return lines.join('\n');
}
