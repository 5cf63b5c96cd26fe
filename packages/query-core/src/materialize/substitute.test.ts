import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '@junction/connectors';
import { createPgDatabase, type TestDatabase } from '../../test/support/databases.js';
import { Engine } from '../engine.js';

let db: TestDatabase;
let engine: Engine;

async function rows(sql: string): Promise<Row[]> {
  const r = await engine.query(sql);
  const out: Row[] = [];
  for await (const b of r.rows) out.push(...b);
  return out;
}

beforeAll(async () => {
  db = await createPgDatabase('mview');
  await db.exec(`CREATE TABLE item (id integer PRIMARY KEY, price numeric(8,2) NOT NULL, tag varchar(10))`);
  await db.exec(`INSERT INTO item VALUES (1, 1.50, 'a'), (2, 2.25, 'b'), (3, 9.99, NULL)`);
  // the stored copy, as a refresh would have written it an hour ago (other rows, so a test tells them apart)
  await db.exec(`CREATE TABLE mv_cheap (id bigint, price numeric(8,2), tag text)`);
  await db.exec(`INSERT INTO mv_cheap VALUES (1, 1.50, 'old')`);
  await db.exec(`CREATE TABLE mv_other (id integer, cost numeric(8,2), tag text)`);
  engine = new Engine({ workers: 0 });
  const connector = await db.connector('pg');
  engine.addSource({ name: 'pg', connector, catalog: await connector.introspect(), semantics: await connector.probe() });
  engine.setView({ schema: 'shop', name: 'cheap', sql: `SELECT id, price, tag FROM pg.item WHERE price < 5` });
});
afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('materialized views', () => {
  it('reads a fresh materialization with the view\'s own column types, and says so in EXPLAIN', async () => {
    expect(await rows('SELECT * FROM shop.cheap ORDER BY id')).toEqual([[1, '1.50', 'a'], [2, '2.25', 'b']]);
    engine.setMaterialization('shop', 'cheap', { source: 'pg', table: 'mv_cheap', refreshedAt: Date.now() - 5_000, maxStalenessSeconds: 60 });
    const r = await engine.query('SELECT * FROM shop.cheap ORDER BY id');
    expect(r.columns.map((c) => `${c.name}:${c.type.kind}`)).toEqual(['id:int32', 'price:decimal', 'tag:string']);
    const out: Row[] = [];
    for await (const b of r.rows) out.push(...b);
    expect(out).toEqual([[1, '1.50', 'old']]);
    const text = (await engine.explain('SELECT count(*) FROM shop.cheap')).text.split('\n');
    expect(text[0]).toMatch(/^Materialized view shop\.cheap read from its stored rows, refreshed [56] s ago$/);
    expect(text.join('\n')).toContain('mv_cheap');
  });

  it('goes back to the definition once the materialization is older than its staleness allows', async () => {
    engine.setMaterialization('shop', 'cheap', { source: 'pg', table: 'mv_cheap', refreshedAt: Date.now() - 120_000, maxStalenessSeconds: 60 });
    expect(await rows('SELECT id FROM shop.cheap ORDER BY id')).toEqual([[1], [2]]);
    expect((await engine.explain('SELECT id FROM shop.cheap')).text).not.toContain('Materialized view');
    engine.setMaterialization('shop', 'cheap', undefined);
  });

  it('refuses a table that cannot stand in for the view', () => {
    expect(() => engine.setMaterialization('shop', 'cheap', { source: 'pg', table: 'mv_other', refreshedAt: Date.now(), maxStalenessSeconds: 60 })).toThrow(
      /does not have the columns of view shop\.cheap/,
    );
    expect(() => engine.setMaterialization('shop', 'nope', { source: 'pg', table: 'mv_cheap', refreshedAt: Date.now(), maxStalenessSeconds: 60 })).toThrow(/No view/);
  });

  it('without its materialization, the view reads its definition again', async () => {
    engine.setMaterialization('shop', 'cheap', { source: 'pg', table: 'mv_cheap', refreshedAt: Date.now(), maxStalenessSeconds: 60 });
    expect(await rows('SELECT tag FROM shop.cheap')).toEqual([['old']]);
    engine.setMaterialization('shop', 'cheap', undefined);
    expect(await rows('SELECT tag FROM shop.cheap ORDER BY 1')).toEqual([['a'], ['b']]);
  });

  it('a new definition of the view forgets its materialization', async () => {
    engine.setMaterialization('shop', 'cheap', { source: 'pg', table: 'mv_cheap', refreshedAt: Date.now(), maxStalenessSeconds: 60 });
    expect(await rows('SELECT tag FROM shop.cheap')).toEqual([['old']]);
    engine.setView({ schema: 'shop', name: 'cheap', sql: `SELECT id, price, tag FROM pg.item WHERE price < 2` });
    expect(await rows('SELECT tag FROM shop.cheap')).toEqual([['a']]);
  });
});
