import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgExec, pgSourcePayload, startHarness, type Harness } from '../../test/harness.js';

let h: Harness;
let db: Awaited<ReturnType<typeof createPgDatabase>>;

beforeAll(async () => {
  db = await createPgDatabase('api_export');
  await pgExec(
    db.url,
    `CREATE TABLE public.items (id int PRIMARY KEY, big bigint, price numeric(10,2), name text, note text, d date);
     INSERT INTO public.items VALUES
       (1, 9007199254740993, 12.50, 'plain', NULL, '1995-03-01'),
       (2, NULL, -0.10, 'comma, "quoted"', '', NULL),
       (3, 3, 0.00, E'two\\nlines', 'x', '2020-02-29');
     CREATE TABLE public.many AS SELECT g AS n FROM generate_series(1, 25000) g;`,
  );
  h = await startHarness();
  expect((await h.as('admin', { method: 'POST', url: '/api/v1/sources', payload: pgSourcePayload('shop', db) })).statusCode).toBe(201);
  for (const role of ['analyst', 'viewer'])
    await h.as('admin', { method: 'POST', url: '/api/v1/grants', payload: { role, sourceName: 'shop' } });
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

const SQL = 'SELECT id, big, price, name, note, d, name AS id FROM shop.public.items ORDER BY 1';

describe('POST /query/export', () => {
  it('streams CSV (RFC 4180, NULL empty, "" for an empty string) with exact values', async () => {
    const res = await h.as('analyst', { method: 'POST', url: '/api/v1/query/export', payload: { sql: SQL, format: 'csv' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="junction-[0-9a-f-]+\.csv"$/);
    expect(res.body).toBe(
      [
        'id,big,price,name,note,d,id',
        '1,9007199254740993,12.50,plain,,1995-03-01,plain',
        '2,,-0.10,"comma, ""quoted""","",,"comma, ""quoted"""',
        '3,3,0.00,"two\nlines",x,2020-02-29,"two\nlines"',
        '',
      ].join('\r\n'),
    );
  });

  it('streams JSON as an array of row objects; a repeated column name gets a suffix', async () => {
    const res = await h.as('analyst', { method: 'POST', url: '/api/v1/query/export', payload: { sql: SQL, format: 'json' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(
      '[\n' +
        '{"id":1,"big":"9007199254740993","price":"12.50","name":"plain","note":null,"d":"1995-03-01","id_2":"plain"},\n' +
        '{"id":2,"big":null,"price":"-0.10","name":"comma, \\"quoted\\"","note":"","d":null,"id_2":"comma, \\"quoted\\""},\n' +
        '{"id":3,"big":"3","price":"0.00","name":"two\\nlines","note":"x","d":"2020-02-29","id_2":"two\\nlines"}\n' +
        ']\n',
    );
    const empty = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query/export',
      payload: { sql: 'SELECT id FROM shop.public.items WHERE id < 0', format: 'json' },
    });
    expect(empty.body).toBe('[]\n');
  });

  it('exports the whole result past the JSON reply row cap, and is recorded in history', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query/export',
      payload: { sql: 'SELECT n FROM shop.public.many ORDER BY n', format: 'csv', maxRows: 100_000 },
    });
    const lines = res.body.split('\r\n');
    expect(lines.length).toBe(25_002);
    expect([lines[0], lines[1], lines[25_000], lines[25_001]]).toEqual(['n', '1', '25000', '']);
    const history = (await h.as('analyst', { method: 'GET', url: '/api/v1/history?limit=1' })).json();
    expect(history[0]).toMatchObject({ sql: 'SELECT n FROM shop.public.many ORDER BY n', status: 'ok', rows: 25_000 });
  });

  it('answers errors before the first byte as JSON, and refuses viewers and unknown formats', async () => {
    const bad = await h.as('analyst', { method: 'POST', url: '/api/v1/query/export', payload: { sql: 'SELECT nope FROM shop.public.items', format: 'csv' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('undefined_column');
    const viewer = await h.as('viewer', { method: 'POST', url: '/api/v1/query/export', payload: { sql: SQL, format: 'csv' } });
    expect(viewer.statusCode).toBe(403);
    const xml = await h.as('analyst', { method: 'POST', url: '/api/v1/query/export', payload: { sql: SQL, format: 'xml' } });
    expect(xml.statusCode).toBe(400);
  });
});

describe('saved queries: export, distinct names', () => {
  it('a viewer exports a shared saved query with its own parameter values', async () => {
    const saved = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'items up to', sql: 'SELECT id, name FROM shop.public.items WHERE id <= $1 ORDER BY id', params: [1], shared: true },
    });
    expect(saved.statusCode).toBe(201);
    const id = saved.json().id;
    const url = `/api/v1/saved-queries/${id}/export`;
    expect((await h.as('viewer', { method: 'POST', url, payload: { format: 'csv' } })).body).toBe('id,name\r\n1,plain\r\n');
    expect((await h.as('viewer', { method: 'POST', url, payload: { format: 'csv', params: [2] } })).body).toBe(
      'id,name\r\n1,plain\r\n2,"comma, ""quoted"""\r\n',
    );
    const run = await h.as('viewer', { method: 'POST', url: `/api/v1/saved-queries/${id}/run`, payload: { params: [3] } });
    expect(run.json().rows.map((r: unknown[]) => r[0])).toEqual([1, 2, 3]);
  });

  it('refuses a second saved query of the same name from one owner, on create and on rename', async () => {
    const first = await h.as('analyst', { method: 'POST', url: '/api/v1/saved-queries', payload: { name: 'dup', sql: 'SELECT 1' } });
    expect(first.statusCode).toBe(201);
    const again = await h.as('analyst', { method: 'POST', url: '/api/v1/saved-queries', payload: { name: 'dup', sql: 'SELECT 2' } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'saved_query_exists',
      message: 'You already have a saved query named "dup". Pick another name, or overwrite that one.',
    });
    // another owner may use the name
    expect((await h.as('admin', { method: 'POST', url: '/api/v1/saved-queries', payload: { name: 'dup', sql: 'SELECT 3' } })).statusCode).toBe(201);
    const other = await h.as('analyst', { method: 'POST', url: '/api/v1/saved-queries', payload: { name: 'other', sql: 'SELECT 4' } });
    const rename = await h.as('analyst', { method: 'PATCH', url: `/api/v1/saved-queries/${other.json().id}`, payload: { name: 'dup' } });
    expect(rename.statusCode).toBe(409);
    // overwriting keeps the name; renaming to itself is no conflict
    const overwrite = await h.as('analyst', {
      method: 'PATCH',
      url: `/api/v1/saved-queries/${first.json().id}`,
      payload: { name: 'dup', sql: 'SELECT 5' },
    });
    expect([overwrite.statusCode, overwrite.json().sql]).toEqual([200, 'SELECT 5']);
  });
});

describe('CSV formula injection', () => {
  // text that a spreadsheet would run, a text "-5", numbers (int32, int64, decimal) that must stay numbers
  const INJECT =
    `SELECT '=HYPERLINK("http://x","y")' AS a, '-5' AS b, -5 AS c, CAST(-7 AS bigint) AS d, ` +
    `CAST(-0.5 AS numeric(4,2)) AS e, '@x' AS f, '+1' AS g, 'ok' AS h, 'z' AS "=cmd"`;

  it('prefixes text cells and column names that start a formula with a quote, by default', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query/export',
      payload: { sql: INJECT, format: 'csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(
      ["a,b,c,d,e,f,g,h,'=cmd", `"'=HYPERLINK(""http://x"",""y"")",'-5,-5,-7,-0.50,'@x,'+1,ok,z`, ''].join('\r\n'),
    );
  });

  it('writes cells as they are with formulaSafe: false', async () => {
    const res = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/query/export',
      payload: { sql: INJECT, format: 'csv', formulaSafe: false },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(
      ['a,b,c,d,e,f,g,h,=cmd', `"=HYPERLINK(""http://x"",""y"")",-5,-5,-7,-0.50,@x,+1,ok,z`, ''].join('\r\n'),
    );
  });

  it('does the same for a saved query export', async () => {
    const saved = await h.as('analyst', {
      method: 'POST',
      url: '/api/v1/saved-queries',
      payload: { name: 'inject', sql: "SELECT '=1+2' AS f, -5 AS n" },
    });
    expect(saved.statusCode).toBe(201);
    const url = `/api/v1/saved-queries/${saved.json().id}/export`;
    const safe = await h.as('analyst', { method: 'POST', url, payload: { format: 'csv' } });
    expect(safe.body).toBe("f,n\r\n'=1+2,-5\r\n");
    const raw = await h.as('analyst', { method: 'POST', url, payload: { format: 'csv', formulaSafe: false } });
    expect(raw.body).toBe('f,n\r\n=1+2,-5\r\n');
  });
});
