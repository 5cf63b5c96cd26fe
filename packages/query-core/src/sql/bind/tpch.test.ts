import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JType } from '@junction/connectors';
import { TABLES, renderTableDdl, tpchQueries } from '@junction/tpch';
import type { TableName } from '@junction/tpch';
import { jdvCatalog } from '../test-fixture.js';
import { bind } from './bind.js';
import { freeRefs } from './plan-utils.js';

/** TPC-H 1–22 (@junction/tpch's workload/tpch), by id. */
const TPCH_QUERIES: Record<string, string> = Object.fromEntries(tpchQueries().map((q) => [q.id, q.sql]));

/**
 * All 22 TPC-H queries bind, and their result columns (names and types) are exactly what
 * PostgreSQL 15 reports for the same SQL over the same schema (created empty in a scratch
 * schema of TEST_PG_URL and dropped afterwards).
 */
const PG_URL = process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test';
const schema = `jt_bind_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const OIDS: Record<number, string> = {
  16: 'bool',
  20: 'int64',
  21: 'int16',
  23: 'int32',
  25: 'text',
  700: 'float32',
  701: 'float64',
  1042: 'char',
  1043: 'varchar',
  1082: 'date',
  1114: 'timestamp',
  1184: 'timestamptz',
  1186: 'interval',
  1700: 'decimal',
};

function kind(t: JType): string {
  if (t.kind === 'string') return t.fixed ? 'char' : t.length !== undefined ? 'varchar' : 'text';
  return t.kind;
}

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path TO ${schema}`);
  for (const name of Object.keys(TABLES) as TableName[]) {
    for (const sql of renderTableDdl('postgresql', TABLES[name]).create) await client.query(sql);
  }
});
afterAll(async () => {
  await client?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client?.end();
});

describe('TPC-H queries 1–22', () => {
  const catalog = jdvCatalog();
  it.each(Object.keys(TPCH_QUERIES))('%s binds with PostgreSQL’s result columns', async (q) => {
    const sql = TPCH_QUERIES[q];
    const bound = bind(sql, catalog, { searchPath: ['dbA', 'dbB', 'dbC', 'dbD'] });
    expect(freeRefs(bound.plan).size).toBe(0);
    const res = await client.query({ text: sql, rowMode: 'array' });
    const expected = res.fields.map((f) => `${f.name} ${OIDS[f.dataTypeID] ?? f.dataTypeID}`);
    expect(bound.columns.map((c) => `${c.name} ${kind(c.type)}`)).toEqual(expected);
  });
});
