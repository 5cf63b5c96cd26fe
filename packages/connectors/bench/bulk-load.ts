// Measures each engine's bulkLoad path with lineitem-shaped rows (16 columns, TPC-H SF1 has 6,001,215).
// Usage: node --import tsx packages/connectors/bench/bulk-load.ts <postgresql|mysql|sqlite> [rows]
import { createConnector } from '../src/create-connector.js';
import { t, type Row } from '../src/contract/types.js';
import type { SourceConfig } from '../src/contract/connector.js';
import { sourceFromUrl, uniqueName } from '../test/support/sources.js';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';

const engine = process.argv[2] ?? 'postgresql';
const total = Number(process.argv[3] ?? 1_000_000);
const name = uniqueName('bench');

const columns = [
  ['l_orderkey', t.int64, 'bigint'],
  ['l_partkey', t.int64, 'bigint'],
  ['l_suppkey', t.int64, 'bigint'],
  ['l_linenumber', t.int32, 'integer'],
  ['l_quantity', t.decimal(15, 2), 'decimal(15,2)'],
  ['l_extendedprice', t.decimal(15, 2), 'decimal(15,2)'],
  ['l_discount', t.decimal(15, 2), 'decimal(15,2)'],
  ['l_tax', t.decimal(15, 2), 'decimal(15,2)'],
  ['l_returnflag', t.char(1), 'char(1)'],
  ['l_linestatus', t.char(1), 'char(1)'],
  ['l_shipdate', t.date, 'date'],
  ['l_commitdate', t.date, 'date'],
  ['l_receiptdate', t.date, 'date'],
  ['l_shipinstruct', t.char(25), 'char(25)'],
  ['l_shipmode', t.char(10), 'char(10)'],
  ['l_comment', t.varchar(44), 'varchar(44)'],
] as const;

async function* rows(): AsyncIterable<Row[]> {
  const batch = 10_000;
  for (let start = 0; start < total; start += batch) {
    const out: Row[] = [];
    for (let i = start; i < Math.min(total, start + batch); i++) {
      const d = `199${i % 8}-0${(i % 9) + 1}-1${i % 10}`;
      out.push([
        BigInt(Math.floor(i / 4) + 1),
        BigInt((i * 7) % 200000),
        BigInt(i % 10000),
        (i % 7) + 1,
        `${(i % 50) + 1}.00`,
        `${(i * 13) % 100000}.${i % 100}`.replace(/\.(\d)$/, '.0$1'),
        '0.04',
        '0.02',
        'NRA'[i % 3],
        'OF'[i % 2],
        d,
        d,
        d,
        'DELIVER IN PERSON',
        'TRUCK',
        `quickly regular deposits ${i % 1000} sleep`,
      ]);
    }
    yield out;
  }
}

async function main(): Promise<void> {
  let cfg: SourceConfig;
  let cleanup = async (): Promise<void> => undefined;
  if (engine === 'sqlite') {
    const file = path.join(os.tmpdir(), `${name}.db`);
    cfg = { name: 'bench', engine: 'sqlite', file };
    cleanup = async () => fs.rmSync(file, { force: true });
  } else {
    const url =
      engine === 'mysql'
        ? (process.env.TEST_MYSQL_URL ?? 'mysql://junction:junction@127.0.0.1:3306/junction_test')
        : (process.env.TEST_PG_URL ?? 'postgres://junction:junction@127.0.0.1:5432/junction_test');
    const admin = createConnector(sourceFromUrl(url, 'admin'));
    await admin.execute(`CREATE DATABASE ${name}`);
    cfg = sourceFromUrl(url, 'bench', { database: name });
    cleanup = async () => {
      await admin.execute(engine === 'mysql' ? `DROP DATABASE ${name}` : `DROP DATABASE ${name} WITH (FORCE)`);
      await admin.close();
    };
  }
  const c = createConnector(cfg);
  try {
    await c.execute(`CREATE TABLE lineitem (${columns.map(([n, , native]) => `${n} ${native}`).join(', ')})`);
    const started = performance.now();
    const n = await c.bulkLoad(
      { name: 'lineitem', columns: columns.map(([n, type]) => ({ name: n, type, nullable: false })) },
      rows(),
    );
    const secs = (performance.now() - started) / 1000;
    const check = await c.execute('SELECT count(*) FROM lineitem');
    process.stdout.write(
      `${engine}: ${n} rows (count ${String(check.rows[0][0])}) in ${secs.toFixed(1)} s = ${Math.round(n / secs).toLocaleString('en')} rows/s (generation included)\n`,
    );
  } finally {
    await c.close();
    await cleanup();
  }
}

await main();
