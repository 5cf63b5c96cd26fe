import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JunctionError, type Row } from '@junction/connectors';
import { createPgDatabase, type TestDatabase } from '../test/support/databases.js';
import { Engine } from './engine.js';

// A view is a security barrier: a caller's predicate that can fail runs only on the rows the
// view's own filter keeps, so its error cannot tell of a hidden row (salary 90000 is exec's).
let db: TestDatabase;
let engine: Engine;

async function rows(sql: string): Promise<Row[]> {
  const r = await engine.query(sql);
  const out: Row[] = [];
  for await (const b of r.rows) out.push(...b);
  return out;
}

beforeAll(async () => {
  db = await createPgDatabase('view_barrier');
  await db.exec(`CREATE TABLE staff (id integer PRIMARY KEY, name text NOT NULL, dept text NOT NULL, salary integer NOT NULL)`);
  await db.exec(`INSERT INTO staff VALUES (1, 'ann', 'eng', 70000), (2, 'bob', 'exec', 90000), (3, 'cy', 'ops', 50000)`);
  await db.exec(`ANALYZE`);
  engine = new Engine({ workers: 0 });
  const connector = await db.connector('pg');
  engine.addSource({ name: 'pg', connector, catalog: await connector.introspect(), semantics: await connector.probe() });
  engine.setView({ schema: 'hr', name: 'public_staff', sql: `SELECT name, dept, salary FROM pg.staff WHERE dept <> 'exec'` });
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('views are security barriers', () => {
  const leaky = '1/(salary - 90000) > 0';

  it('a predicate that can fail does not meet the rows the view hides', async () => {
    expect(await rows(`SELECT name FROM hr.public_staff WHERE ${leaky} ORDER BY name`)).toEqual([]);
    expect(await rows(`SELECT name FROM hr.public_staff WHERE ${leaky} OR dept = 'ops' ORDER BY name`)).toEqual([['cy']]);
  });

  it('the same predicate on the base table meets that row and fails', async () => {
    const err = (await rows(`SELECT name FROM pg.staff WHERE ${leaky}`).catch((e: unknown) => e)) as JunctionError;
    expect(err).toBeInstanceOf(JunctionError);
    expect(err.code).toBe('division_by_zero');
  });

  it('EXPLAIN: the leakproof conjunct is in the source SQL, the other runs in Junction above it', async () => {
    const ex = await engine.explain(`SELECT name FROM hr.public_staff WHERE dept = 'eng' AND ${leaky}`);
    expect(ex.text).toMatchInlineSnapshot(`
      "Project name
        Filter ((1 / (salary - 90000)) > 0)
          not pushed: ((1 / (salary - 90000)) > 0): not leakproof: evaluated after view hr.public_staff's own filter
          RemoteQuery [pg]
            SQL: SELECT "staff"."name" AS "name", "staff"."salary" AS "salary" FROM "public"."staff" "staff" WHERE (("staff"."dept" <> $1::text) AND ("staff"."dept" = $2::text))
            params: ["exec","eng"]"
    `);
  });

  it('also through a join with another table of the same source', async () => {
    const on = `s.id = 1 AND 1/(v.salary - 90000) > s.id - 2`;
    expect(await rows(`SELECT v.name FROM hr.public_staff v JOIN pg.staff s ON ${on} ORDER BY v.name`)).toEqual([['ann'], ['cy']]);
    const err = (await rows(`SELECT v.name FROM pg.staff v JOIN pg.staff s ON ${on}`).catch((e: unknown) => e)) as JunctionError;
    expect(err.code).toBe('division_by_zero');
    expect((await engine.explain(`SELECT v.name FROM hr.public_staff v JOIN pg.staff s ON ${on}`)).text).toMatchInlineSnapshot(`
      "Project name
        NestedLoopJoin inner on ((1 / (salary - 90000)) > (id - 2))
          not pushed: ((1 / (salary - 90000)) > (id - 2)): not leakproof: evaluated after view hr.public_staff's own filter
          RemoteQuery [pg]
            SQL: SELECT "staff"."name" AS "name", "staff"."salary" AS "salary" FROM "public"."staff" "staff" WHERE ("staff"."dept" <> $1::text)
            params: ["exec"]
          RemoteQuery [pg]
            SQL: SELECT "s"."id" AS "id" FROM "public"."staff" "s" WHERE ("s"."id" = $1::integer)
            params: [1]"
    `);
  });
});
